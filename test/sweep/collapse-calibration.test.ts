/**
 * The collapse track's calibration (docs/results/calibration.md §5, issue 39): the gate rule as
 * written before any run, and the calibration sweep specs in experiments/collapse-calibration/specs,
 * each of whose published compact records (plugins/leaderboard/reference/calib-collapse/<spec>/)
 * is one of its runs (a probe stopped early publishes the runs it finished).
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { loadSpec } from "../../core/sweep/spec.ts"
import { seedGate } from "../../experiments/collapse-calibration/rule.ts"

const curve = (xs: ReadonlyArray<number>) => xs.map((value, i) => ({ step: 10 * i, value }))

test("the gate: a rise then a fall of at least 10 points passes; a blow-up, a plateau or a fall without a rise does not", () => {
  expect(seedGate(1, curve([0.58, 0.76, 0.88, 0.86, 0.68, 0.22, 0.1, 0.05]))?.pass).toBe(true)
  // the first evaluation 10 points below step 0: a blow-up, whatever follows
  expect(seedGate(1, curve([0.76, 0.66, 0.9, 0.5, 0.3, 0.2]))?.blowUp).toBe(true)
  expect(seedGate(1, curve([0.76, 0.66, 0.9, 0.5, 0.3, 0.2]))?.pass).toBe(false)
  // a rise that holds
  expect(seedGate(1, curve([0.5, 0.7, 0.8, 0.8, 0.78, 0.8]))?.pass).toBe(false)
  // never above step 0
  expect(seedGate(1, curve([0.8, 0.75, 0.7, 0.5, 0.4, 0.3]))?.pass).toBe(false)
  // exactly 10 points below the peak passes
  expect(seedGate(1, curve([0.5, 0.9, 0.8, 0.8, 0.8]))?.pass).toBe(true)
  expect(seedGate(1, curve([0.5, 0.9, 0.8]))).toBeNull()
})

test("each calibration spec expands, and its published records are runs of it", async () => {
  const dir = "experiments/collapse-calibration/specs"
  const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"))
  expect(files.length).toBeGreaterThanOrEqual(2)
  let published = 0
  for (const f of files) {
    const runs = await Effect.runPromise(Effect.flatMap(loadSpec(join(dir, f)), (spec) => expandGrid(spec)).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))
    expect(runs.length).toBeGreaterThan(0)
    const folder = join("plugins/leaderboard/reference/calib-collapse", f.replace(/\.yaml$/, ""))
    if (!existsSync(folder)) continue
    const ids = new Set(runs.map((r) => r.runId))
    for (const x of readdirSync(folder)) expect([f, x, ids.has(x.replace(/\.json$/, ""))]).toEqual([f, x, true])
    published++
  }
  expect(published).toBeGreaterThanOrEqual(1)
})
