/**
 * The standard suite is a regime where filters act (docs/decisions.md#issue-25): six envs from
 * warm starts with headroom, P × G = 8 × 16, four filters against none (both top-p rules, the random control, Q4) plus the
 * noise floor, enough seeds for the positive control to pass the page's first Holm threshold,
 * within 3 hours on 2 workers by the dry-run estimator.
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { estimateGridSeconds, estimateSweepSeconds } from "../../core/sweep/estimate.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"
import { ALPHA } from "../../plugins/leaderboard/build.ts"
import { signFlipMinP } from "../../plugins/leaderboard/statistics/paired-tests.ts"
import { PAIRED_TEST, pairsToReject } from "../../plugins/leaderboard/statistics/verdicts.ts"
import standard from "../../plugins/sweep/presets/standard.ts"
import { readManifest } from "../../plugins/tinylm/warm-starts.ts"

const load = () =>
  Effect.runPromise(Effect.flatMap(decodeSpec(standard, "standard"), (spec) => Effect.map(expandGrid(spec), (runs) => ({ spec, runs }))).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))

const train = (c: { train?: unknown }) => (c.train ?? {}) as Record<string, unknown>

test("standard holds six envs × {none, both top-p rules, the random control at the paper's top-p's count, Q4} at 8 × 16, with the noise floor", async () => {
  const { spec, runs } = await load()
  expect(spec.noiseFloor).toBe(true)
  expect(new Set(runs.map((r) => r.config.env.replace(/-v\d+$/, "")))).toEqual(new Set(["envs/sokoban", "envs/frozenlake", "envs/metamathqa", "envs/countdown", "envs/searchqa", "envs/webshop"]))
  expect(runs.find((r) => r.config.env.startsWith("envs/webshop"))!.config.env).toBe("envs/webshop-v2")
  expect(new Set(runs.map((r) => `${r.config.P}x${r.config.G}`))).toEqual(new Set(["8x16"]))
  const filters = new Set(runs.filter((r) => train(r.config).samplingStream === 0).map((r) => `${r.config.filter} ${JSON.stringify(r.config.filterOptions)}`))
  expect(filters.size).toBe(5)
  const has = (f: (s: string) => boolean) => expect([...filters].some(f)).toBe(true)
  has((f) => f === "filters/none {}")
  has((f) => f.startsWith("filters/top-p-softmax") && f.includes('"includeZero":true'))
  has((f) => f.startsWith("filters/top-p ") && f.includes('"includeZero":false'))
  has((f) => f.startsWith("filters/random") && f.includes('"like":"top-p-softmax"'))
  has((f) => f.startsWith("filters/quantile") && f.includes('"lo":0.75') && f.includes('"hi":1'))
  const seeds = new Set(runs.map((r) => r.config.seed))
  expect(runs.length).toBe(6 * (filters.size + 1) * seeds.size)
})

test("every env starts from a named shipped warm start whose validation success is 20–70% of its teacher's", async () => {
  const { runs } = await load()
  const manifest = readManifest()
  const starts = new Map(runs.map((r) => [r.config.env, String(train(r.config).warmStart).replace(/@.*$/, "")]))
  expect(starts.size).toBe(6)
  for (const [env, id] of starts) {
    const w = manifest.warmstarts.find((m) => m.id === id)
    expect(w === undefined ? `${env}: ${id} not shipped` : w.env).toBe(env)
    const ratio = w!.validation!.success["0.5"]! / w!.validation!.teacherSuccess!
    expect(ratio).toBeGreaterThanOrEqual(0.2)
    expect(ratio).toBeLessThanOrEqual(0.7)
  }
})

test("standard's seeds let the positive control pass the page's first Holm threshold even when its smallest difference has the wrong sign", async () => {
  const { spec } = await load()
  const n = spec.axes.seeds.length
  // The page's family: each filter other than none against none, on every env (the noise floor is tested alone).
  const m = (spec.axes.filter.length - 1) * spec.axes.env.length
  expect(m).toBe(24)
  expect(n).toBeGreaterThanOrEqual(pairsToReject(PAIRED_TEST, ALPHA / m))
  // With the smallest |difference| of the wrong sign, 2 patterns and their mirrors reach the observed sum: p = 4/2^n.
  expect(2 * signFlipMinP(n)).toBeLessThanOrEqual(ALPHA / m)
  // ...and one seed fewer could not (the suite is no bigger than that margin needs).
  expect(2 * signFlipMinP(n - 1)).toBeGreaterThan(ALPHA / m)
})

test("standard fits its 3-hour budget on 2 workers by the dry-run estimator", async () => {
  const { spec, runs } = await load()
  const seconds = estimateSweepSeconds(
    estimateGridSeconds(
      runs.map((r) => r.config),
      spec.secondsPerStep
    ),
    2
  )
  // about an hour on issue 41's kernels (2 h before them); below half an hour the estimator is broken
  expect(seconds).toBeGreaterThan(30 * 60)
  expect(seconds).toBeLessThanOrEqual(3 * 60 * 60)
})
