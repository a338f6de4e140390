/**
 * The quick preset (`npm start`) is the positive-control demonstration (docs/decisions.md#issue-25): Sokoban PPO at
 * 8 × 16 with none, both top-p rules, the random control and Table 6's Q4, plus the noise floor,
 * with enough seeds that the control can pass the page's first Holm threshold, within its
 * 15-minute budget by the dry-run estimator.
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { estimateGridSeconds, estimateSweepSeconds } from "../../core/sweep/estimate.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"
import { ALPHA } from "../../plugins/leaderboard/build.ts"
import { matchedControls } from "../../plugins/leaderboard/controls.ts"
import { signFlipMinP } from "../../plugins/leaderboard/statistics/paired-tests.ts"
import { PAIRED_TEST, pairsToReject } from "../../plugins/leaderboard/statistics/verdicts.ts"
import quick from "../../plugins/sweep/presets/quick.ts"

const load = () =>
  Effect.runPromise(Effect.flatMap(decodeSpec(quick, "quick"), (spec) => Effect.map(expandGrid(spec), (runs) => ({ spec, runs }))).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))

test("quick holds none, both top-p rules, the random control and the positive control Q4 on Sokoban 8 × 16, with the noise floor", async () => {
  const { spec, runs } = await load()
  expect(spec.noiseFloor).toBe(true)
  expect(new Set(runs.map((r) => r.config.env))).toEqual(new Set(["envs/sokoban-v1"]))
  expect(new Set(runs.map((r) => `${r.config.P}x${r.config.G}`))).toEqual(new Set(["8x16"]))
  const filters = new Set(runs.map((r) => `${r.config.filter} ${JSON.stringify(r.config.filterOptions)}`))
  expect(filters.has("filters/none {}")).toBe(true)
  expect([...filters].some((f) => f.startsWith("filters/quantile") && f.includes('"lo":0.75') && f.includes('"hi":1'))).toBe(true)
  expect([...filters].some((f) => f.startsWith("filters/top-p-softmax") && f.includes('"includeZero":true'))).toBe(true)
  expect([...filters].some((f) => f.startsWith("filters/top-p ") && f.includes('"includeZero":false'))).toBe(true)
  expect([...filters].some((f) => f.startsWith("filters/random") && f.includes('"like":"top-p"'))).toBe(true)
  // Every filter cell plus the noise floor (none on sampling stream 1) at every seed.
  const seeds = new Set(runs.map((r) => r.config.seed))
  expect(runs.length).toBe((filters.size + 1) * seeds.size)
})

test("quick's seeds let the positive control pass the page's first Holm threshold, even with one flipped sign", async () => {
  const { spec } = await load()
  const n = spec.axes.seeds.length
  // The page's family: each filter other than none against none (the noise floor is tested alone),
  // and each filter against its matched random control (selection, plugins/leaderboard/controls.ts).
  const cells = spec.axes.filter.map((f, i) => (typeof f === "string" ? { name: `${i}`, id: f, options: {}, stream: 0 } : { name: `${i}`, id: f.id, options: f.options ?? {}, stream: 0 }))
  const m = spec.axes.filter.length - 1 + matchedControls(cells).size
  expect(m).toBe(5)
  expect(n).toBeGreaterThanOrEqual(pairsToReject(PAIRED_TEST, ALPHA / m))
  // With the smallest |delta| of the wrong sign the exact sign-flip p doubles.
  expect(2 * signFlipMinP(n)).toBeLessThanOrEqual(ALPHA / m)
})

test("quick fits its 15-minute budget on 2 workers by the dry-run estimator, with a minute left for the install", async () => {
  const { spec, runs } = await load()
  const seconds = estimateSweepSeconds(
    estimateGridSeconds(
      runs.map((r) => r.config),
      spec.secondsPerStep
    ),
    2
  )
  expect(seconds).toBeGreaterThan(0)
  expect(seconds).toBeLessThanOrEqual(14 * 60)
})
