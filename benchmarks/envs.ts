/**
 * Env throughput: steps per second of every registered built-in env (envs/plugin.ts) under a
 * random valid policy (`env.randomAction`), and Sokoban levels generated per second; tinybench.
 *
 *   node_modules/.bin/bun benchmarks/envs.ts [--time 300]
 *   node_modules/.bin/deno run -A benchmarks/envs.ts
 *
 * Per env two tasks: "steps" plays whole episodes until at least 1,000 steps, timing the steps
 * with reset() left out, and "episodes incl. reset" plays 100 whole episodes, level or map
 * generation included. Each tinybench sample is one such batch's time per unit (its
 * overriddenDuration); levels are timed 20 at a time. The rate is units over total time (1000 /
 * tinybench's mean, rme = its relative margin of error): episodes and level generation have heavy
 * tails that a median would hide; the median batch's rate is printed beside it.
 * Prints tinybench's table (latencies are ms per step, episode or level), a table of rates, then
 * one JSON line per task.
 * Targets (2-core machine, docs/decisions.md#issue-3): FrozenLake ≥ 1e6 steps/s, Sokoban ≥ 2e5 steps/s and
 * ≥ 2,000 levels/s, text envs ≥ 5e4 steps/s.
 */
import { Bench } from "tinybench"
import envsPlugin from "../envs/plugin.ts"
import type { EnvSpec } from "../core/contracts/index.ts"
import { withTimeLimit } from "../core/env/time-limit.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { derive, Rng } from "../core/rng.ts"
import { generatorOptions, sokobanSpec } from "../envs/sokoban/env.ts"
import { generateLevel } from "../envs/sokoban/level.ts"
import { jsonLine, numberFlag, runBench } from "./_tinybench.ts"

const TIME = numberFlag("time", 300)
/** Steps, episodes and levels per tinybench sample: each sample is a batch mean, so rare slow
 * calls (GC, a hard level) weigh in as they do in a long run. */
const STEPS = 1000,
  EPISODES = 100,
  LEVELS = 20

const bench = new Bench({ time: TIME, warmupTime: Math.min(TIME, 100) })
const units = new Map<string, string>()
let sink = 0

/** A task whose sample is `fn`'s measured time over the count it returns (ms per unit). */
const addBatched = (name: string, unit: string, fn: () => { count: number; ms: number }): void => {
  bench.add(name, () => {
    const t0 = bench.now()
    const { count, ms } = fn()
    return { overriddenDuration: ms / count, overriddenIterationCost: bench.now() - t0 }
  })
  units.set(name, unit)
}

const addEnv = (spec: EnvSpec): void => {
  const decoded = decodeSync(spec.options, {})
  if (!decoded.ok) throw new Error(`${spec.id}: default options do not decode: ${decoded.message}`)
  // The harness applies the action budget (as the rollout does); envs themselves never truncate.
  const env = withTimeLimit(spec.make(decoded.value), spec.actionBudget)
  const rng = new Rng(1)
  let seed = 10_000
  addBatched(`${spec.id} steps (random policy)`, "steps/s", () => {
    let steps = 0
    let ms = 0
    while (steps < STEPS) {
      env.reset(seed++)
      const s0 = bench.now()
      while (!env.done) {
        // Read a character so that a lazily concatenated observation string is materialised.
        const o = env.step(env.randomAction(rng)).observation
        sink ^= o.charCodeAt(o.length >> 1)
        steps++
      }
      ms += bench.now() - s0
    }
    return { count: steps, ms }
  })
  addBatched(`${spec.id} episodes incl. reset`, "episodes/s", () => {
    const t0 = bench.now()
    for (let e = 0; e < EPISODES; e++) {
      env.reset(seed++)
      while (!env.done) sink ^= env.step(env.randomAction(rng)).observation.length
    }
    return { count: EPISODES, ms: bench.now() - t0 }
  })
}

const addSokobanLevels = (raw: Record<string, unknown>, label: string): void => {
  const decoded = decodeSync(sokobanSpec.options, raw)
  if (!decoded.ok) throw new Error(decoded.message)
  const gen = generatorOptions(decoded.value)
  let seed = 0
  addBatched(`sokoban-v1 levels ${gen.dim}x${gen.dim} ${gen.numBoxes} box ${label}`, "levels/s", () => {
    const t0 = bench.now()
    for (let i = 0; i < LEVELS; i++) generateLevel(derive(seed++, "bench"), gen)
    return { count: LEVELS, ms: bench.now() - t0 }
  })
}

for (const spec of envsPlugin.envs ?? []) addEnv(spec)
addSokobanLevels({}, "(default, depth ≤ 10)")
addSokobanLevels({ maxSolutionSteps: 0 }, "(uncapped, depth ≤ 300)")
addSokobanLevels({ dim: 8, numBoxes: 2 }, "(depth ≤ 10)")

const results = await runBench(bench, "env throughput")
const fmt = (x: number) => Math.round(x).toLocaleString("en-US")
const w = Math.max(...results.map((r) => r.task.length))
console.log(`${"task".padEnd(w)}  ${"rate".padStart(12)}  ${"median batch".padStart(12)}  unit`)
// Rates from the mean (total time over units): episodes and level generation have heavy tails
// (a few seeds take 10× longer), which a median would hide from a throughput figure.
const rows = results.map((r) => ({ ...r, rate: 1000 / r.meanMs, medianRate: 1000 / r.medianMs, unit: units.get(r.task)! }))
for (const r of rows) console.log(`${r.task.padEnd(w)}  ${fmt(r.rate).padStart(12)}  ${fmt(r.medianRate).padStart(12)}  ${r.unit}`)
for (const r of rows) {
  jsonLine("envs", { task: r.task, rate: Math.round(r.rate), medianBatchRate: Math.round(r.medianRate), unit: r.unit, meanMs: r.meanMs, rme: +r.rme.toFixed(2), samples: r.samples, timeMs: TIME })
}
if (sink === 0.5) console.log("") // keeps `sink` observable
