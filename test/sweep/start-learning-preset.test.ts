/**
 * start-learning (docs/decisions.md#issue-26): no-filter RL from every env's strong warm start —
 * one shipped start per env at ≥ 0.5 of its teacher's validation success — at the standard
 * suite's RL recipe and per-env lr, with enough seeds for the exact sign-flip test of the rise to
 * reach p ≤ 0.05.
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec, loadSpec } from "../../core/sweep/spec.ts"
import { signFlipMinP } from "../../plugins/leaderboard/statistics/paired-tests.ts"
import standard from "../../plugins/sweep/presets/standard.ts"
import startLearning from "../../plugins/sweep/presets/start-learning.ts"
import { readManifest } from "../../plugins/tinylm/warm-starts.ts"

const runsOf = (s: typeof standard) => Effect.runPromise(Effect.flatMap(decodeSpec(s, s.name), (spec) => expandGrid(spec)).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))
const train = (c: { train?: unknown }) => (c.train ?? {}) as Record<string, unknown>

test("each of the six envs starts from a shipped start at ≥ 0.5 of its teacher, without a filter, at the suite's lr and recipe", async () => {
  const runs = await runsOf(startLearning)
  const suite = await runsOf(standard)
  const manifest = readManifest()
  // The same six envs; a version may differ (MetaMathQA: the suite's v1, v2 here).
  const family = (env: string) => env.replace(/-v\d+$/, "")
  expect(new Set(runs.map((r) => family(r.config.env)))).toEqual(new Set(suite.map((r) => family(r.config.env))))
  expect(new Set(runs.map((r) => r.config.filter))).toEqual(new Set(["filters/none"]))
  for (const r of runs) {
    const id = String(train(r.config).warmStart).replace(/@.*$/, "")
    const w = manifest.warmstarts.find((m) => m.id === id)
    expect(w?.env).toBe(r.config.env)
    expect([id, w!.validation.success["0.5"]! / w!.validation.teacherSuccess >= 0.5]).toEqual([id, true])
    const same = suite.find((s) => family(s.config.env) === family(r.config.env))!.config
    expect([r.config.env, r.config.lr, r.config.P, r.config.G, r.config.steps]).toEqual([r.config.env, same.lr, same.P, same.G, same.steps])
  }
  const seeds = new Set(runs.map((r) => r.config.seed)).size
  expect(signFlipMinP(seeds)).toBeLessThanOrEqual(0.05)
})

test("the sweep specs behind experiments/arithmetic-sft/README.md expand, start from a shipped start of their env, and their published records are exactly their runs", async () => {
  const manifest = readManifest()
  const dir = "experiments/arithmetic-sft/specs"
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"))
  expect(files.length).toBeGreaterThanOrEqual(6)
  for (const f of files) {
    const runs = await Effect.runPromise(Effect.flatMap(loadSpec(join(dir, f)), (spec) => expandGrid(spec)).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))
    expect(runs.length).toBeGreaterThan(0)
    const published = readdirSync(join("plugins/leaderboard/reference/arithmetic-rl", f.replace(/\.yaml$/, ""))).map((x) => x.replace(/\.json$/, ""))
    expect([f, published.sort()]).toEqual([f, runs.map((r) => r.runId).sort()])
    for (const r of runs) {
      const id = String(train(r.config).warmStart).replace(/@.*$/, "")
      expect([f, id, manifest.warmstarts.find((w) => w.id === id)?.env]).toEqual([f, id, r.config.env])
    }
  }
})
