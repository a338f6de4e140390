// Metric sinks apply to whole sweeps (docs/decisions.md#issue-28): `sweep --sink csv --sink tensorboard` makes every
// run write them into its own folder, so `tensorboard --logdir <out>` finds one run per subfolder.
// The event files are read back with the independent reader of the sinks test.
import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { listRunDirs } from "../../core/results/store.ts"
import { runCli } from "../helpers/cli.ts"
import { fakeEnv, fixturePlugin, smallSpec, tempDir, writeSpec } from "../sweep/helpers.ts"
import { decodeEvent, readRecords } from "./tfevents-reader.ts"

describe("sinks for whole sweeps", () => {
  test("every run of a sweep writes metrics.csv and its TensorBoard events in its own folder", () => {
    const dir = tempDir("sweep-sinks")
    const spec = writeSpec(dir, smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p" }], seeds: [1, 2] }, budget: { steps: 4, evalEvery: 2 } }))
    const out = join(dir, "results")
    const args = ["sweep", spec, "--plugin", fixturePlugin, "--out", out, "--leaderboard", join(dir, "site"), "--workers", "2", "--reference", "none"]
    const r = runCli([...args, "--sink", "csv", "--sink", "tensorboard"], { env: fakeEnv(0) })
    expect(r.code).toBe(0)
    const runs = listRunDirs(out)
    expect(runs.length).toBe(4)
    for (const run of runs) {
      const jsonl = readFileSync(join(run, "metrics.jsonl"), "utf8").trim().split("\n")
      const csv = readFileSync(join(run, "metrics.csv"), "utf8").trim().split("\n")
      expect(csv.length).toBe(jsonl.length + 1) // a header and one row per step
      const events = readdirSync(run).filter((f) => f.startsWith("events.out.tfevents."))
      expect(events.length).toBe(1)
      const steps = new Set(
        readRecords(new Uint8Array(readFileSync(join(run, events[0]!))))
          .map(decodeEvent)
          .filter((e) => (e.values?.length ?? 0) > 0)
          .map((e) => e.step)
      )
      expect([...steps].sort((a, b) => a - b)).toEqual(jsonl.map((l) => JSON.parse(l).step))
    }
    // a misspelt sink is refused before any run, with the nearest id
    const bad = runCli([...args, "--sink", "tensorbord"], { env: fakeEnv(0) })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('unknown sink "tensorbord" (did you mean tensorboard?)')
  }, 120_000)
})
