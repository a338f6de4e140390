/**
 * The results-semantics version is kept honest (docs/decisions.md#issue-13): two short runs (the tabular test
 * policy, and the real tinylm policy on its plain JS kernels, so the numbers do not depend on the
 * CPU) are pinned per SEMANTICS_VERSION. If their metrics change while the version did not, a
 * change of code changed what runs mean without changing their ids: bump SEMANTICS_VERSION in
 * core/semantics.ts (saying why) and pin the new hashes in test/fixtures/semantics.json.
 */
import { describe, expect, test } from "bun:test"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { canonicalJson, sha256Hex } from "../../core/hash.ts"
import { SEMANTICS_VERSION } from "../../core/semantics.ts"
import { runTraining } from "../../core/train/run.ts"
import { metricsWithoutPerf } from "../helpers/run-metrics.ts"
import { cfg, testPlugin } from "./fixtures.ts"

const pins = JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "semantics.json"), "utf8")) as Record<string, Record<string, string>>

const metricsHash = async (name: string, config: ReturnType<typeof cfg>): Promise<string> => {
  const out = mkdtempSync(join(tmpdir(), `ragen-sem-${name}-`))
  const s = await runTraining(config, { outDir: out, plugins: [...builtinPlugins, testPlugin], onLog: () => {} })
  expect(s.status).toBe("complete")
  // The record names the kernels the policy really ran (chosen when it was built, after config.json was first written).
  const notes = JSON.parse(readFileSync(join(out, s.runId, "config.json"), "utf8")).runtime.notes ?? {}
  if (config.policy === "tinylm") expect(notes.kernels).toBe("tinylm:js")
  const lines = metricsWithoutPerf(join(out, s.runId))
  return sha256Hex(canonicalJson(lines)).slice(0, 16)
}

const runs = {
  tabular: () => cfg({ steps: 6, filter: "top-p", filterOptions: { p: 0.9 } }, { minibatches: undefined, diagEvery: 2 }),
  tinylm: () =>
    cfg(
      { steps: 3, P: 2, G: 4, lr: 1e-3, policy: "tinylm", policyOptions: { kernels: "js", ctx: 64, d: 16, layers: 1, heads: 2 }, filter: "top-p" },
      { minibatches: undefined, minibatchTrajectories: 4, sftSteps: 10, sftTurns: 64, sftBatch: 8, valSeeds: 8, diagEvery: 1 }
    )
}

describe("results semantics", () => {
  for (const [name, config] of Object.entries(runs)) {
    test(`${name}: the pinned run's metrics match semantics version ${SEMANTICS_VERSION}`, async () => {
      const hash = await metricsHash(name, config())
      const pinned = pins[String(SEMANTICS_VERSION)]?.[name]
      if (pinned !== hash) {
        console.error(
          `semantics: ${name} metrics hash ${hash}, pinned ${pinned ?? "(none)"} for version ${SEMANTICS_VERSION}. If the numbers changed on purpose, bump SEMANTICS_VERSION in core/semantics.ts and pin "${hash}" under the new version in test/fixtures/semantics.json.`
        )
      }
      expect(hash).toBe(pinned!)
    }, 120_000)
  }
})
