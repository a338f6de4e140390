/**
 * collapse (issue 39; docs/results/calibration.md §5): the collapse track holds the regimes that
 * passed the calibration gate, the paper's arms with a random control at each filter's count, the
 * noise floor, and fits 90 minutes on 2 workers by the dry-run estimator.
 */
import { expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { canonicalJson } from "../../core/hash.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { listCompactFiles } from "../../core/results/compact.ts"
import { estimateGridSeconds, estimateSweepSeconds } from "../../core/sweep/estimate.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"
import collapse from "../../plugins/sweep/presets/collapse.ts"

const load = () =>
  Effect.runPromise(Effect.flatMap(decodeSpec(collapse, "collapse"), (spec) => Effect.map(expandGrid(spec), (runs) => ({ spec, runs }))).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))

const train = (c: { train?: unknown }) => (c.train ?? {}) as Record<string, unknown>

test("collapse: FrozenLake (PPO, headroom start, lr 1e-3, 140 steps) and Sokoban (PPO, strong start, lr 5.5e-4, 60 steps) × none, both top-p rules, random at each one's count, Q4 and random at its count, with the noise floor", async () => {
  const { spec, runs } = await load()
  expect(spec.noiseFloor).toBe(true)
  const settings = new Set(runs.map((r) => `${r.config.env} ${r.config.algo} ${r.config.lr} ${r.config.steps} ${r.config.P}x${r.config.G} ${String(train(r.config).warmStart).replace(/@.*$/, "")}`))
  expect(settings).toEqual(new Set(["envs/frozenlake-v1 algorithms/ppo 0.001 140 8x16 frozenlake-tiny-headroom", "envs/sokoban-v1 algorithms/ppo 0.00055 60 8x16 sokoban-tiny"]))
  const filters = new Set(runs.filter((r) => train(r.config).samplingStream === 0).map((r) => `${r.config.filter} ${JSON.stringify(r.config.filterOptions)}`))
  expect(filters.size).toBe(7)
  const has = (f: (s: string) => boolean) => expect([...filters].filter(f).length).toBe(1)
  has((f) => f === "filters/none {}")
  has((f) => f.startsWith("filters/top-p-softmax") && f.includes('"includeZero":true'))
  has((f) => f.startsWith("filters/top-p ") && f.includes('"includeZero":false'))
  has((f) => f.startsWith("filters/random") && f.includes('"like":"top-p-softmax"'))
  has((f) => f.startsWith("filters/random") && f.includes('"like":"top-p"'))
  has((f) => f.startsWith("filters/quantile") && f.includes('"lo":0.75') && f.includes('"hi":1'))
  has((f) => f.startsWith("filters/random") && f.includes('"like":"quantile"') && f.includes('"lo":0.75'))
  const seeds = new Set(runs.map((r) => r.config.seed))
  expect(seeds.size).toBe(11)
  expect(runs.length).toBe(2 * (filters.size + 1) * seeds.size)
})

test("collapse fits 90 minutes on 2 workers by the dry-run estimator", async () => {
  const { spec, runs } = await load()
  const seconds = estimateSweepSeconds(
    estimateGridSeconds(
      runs.map((r) => r.config),
      spec.secondsPerStep
    ),
    2
  )
  expect(seconds).toBeLessThanOrEqual(90 * 60)
})

test("the published collapse records (plugins/leaderboard/reference/collapse, shards committed as they finish) are runs of the preset, each once, with the preset's config", async () => {
  const { runs } = await load()
  const byId = new Map(runs.map((r) => [r.runId, r]))
  const files = listCompactFiles(join(import.meta.dir, "..", "..", "plugins", "leaderboard", "reference", "collapse"))
  // All four shards are in: every run of the preset, once.
  expect(files.length).toBe(runs.length)
  for (const f of files) {
    const rec = JSON.parse(readFileSync(f, "utf8"))
    const run = byId.get(rec.run.runId)
    expect(run === undefined ? `${f}: not a run of the collapse preset` : "").toBe("")
    expect(canonicalJson(rec.run.config)).toBe(canonicalJson(run!.config))
  }
  expect(new Set(files.map((f) => basename(f))).size).toBe(files.length)
})
