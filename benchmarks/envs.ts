/**
 * Env throughput: steps per second of every registered built-in env (envs/plugin.ts) under a
 * random valid policy (`env.randomAction`), and Sokoban levels generated per second.
 *
 *   node_modules/.bin/bun benchmarks/envs.ts [--rounds 5] [--ms 300]
 *   node_modules/.bin/deno run -A benchmarks/envs.ts
 *
 * Each round steps episodes for about `ms` milliseconds; the step loop is timed apart from
 * reset() (level/map generation is reported separately: "episodes/s" includes it). The
 * figure is the median over rounds. Prints a table, then one JSON line per task.
 * Targets (2-core machine, issue 3): FrozenLake ≥ 1e6 steps/s, Sokoban ≥ 2e5 steps/s and
 * ≥ 2,000 levels/s, text envs ≥ 5e4 steps/s.
 */
import envsPlugin from "../envs/plugin.ts"
import type { EnvSpec } from "../core/contracts/index.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { derive, Rng } from "../core/rng.ts"
import { generatorOptions, sokobanSpec } from "../envs/sokoban/env.ts"
import { generateLevel } from "../envs/sokoban/level.ts"

const argv = process.argv.slice(2)
const arg = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : dflt
}
const ROUNDS = arg("rounds", 5)
const MS = arg("ms", 300)

const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } }
const runtime = g.Bun ? `bun ${g.Bun.version}` : g.Deno ? `deno ${g.Deno.version.deno}` : `node ${process.version}`
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

interface Row {
  task: string
  median: number
  unit: string
  extra: Record<string, number>
}
const rows: Row[] = []
let sink = 0

const benchEnv = (spec: EnvSpec): void => {
  const decoded = decodeSync(spec.options, {})
  if (!decoded.ok) throw new Error(`${spec.id}: default options do not decode: ${decoded.message}`)
  const env = spec.make(decoded.value)
  const rng = new Rng(1)
  let seed = 10_000
  const stepRates: number[] = []
  const episodeRates: number[] = []
  // Warm-up (JIT) outside the timed rounds.
  for (let i = 0; i < 200; i++) {
    env.reset(seed++)
    while (!env.done) env.step(env.randomAction(rng))
  }
  for (let r = 0; r < ROUNDS; r++) {
    let steps = 0
    let episodes = 0
    let stepTime = 0
    const t0 = performance.now()
    while (performance.now() - t0 < MS) {
      env.reset(seed++)
      const s0 = performance.now()
      while (!env.done) {
        // Read a character so that a lazily concatenated observation string is materialised.
        const o = env.step(env.randomAction(rng)).observation
        sink ^= o.charCodeAt(o.length >> 1)
        steps++
      }
      stepTime += performance.now() - s0
      episodes++
    }
    const wall = performance.now() - t0
    stepRates.push((steps / stepTime) * 1000)
    episodeRates.push((episodes / wall) * 1000)
  }
  rows.push({ task: `${spec.id} steps (random policy)`, median: median(stepRates), unit: "steps/s", extra: { episodesPerSec: median(episodeRates) } })
}

const benchSokobanLevels = (raw: Record<string, unknown>, label: string): void => {
  const decoded = decodeSync(sokobanSpec.options, raw)
  if (!decoded.ok) throw new Error(decoded.message)
  const gen = generatorOptions(decoded.value)
  const rates: number[] = []
  let seed = 0
  for (let i = 0; i < 200; i++) generateLevel(derive(seed++, "bench"), gen)
  for (let r = 0; r < ROUNDS; r++) {
    let n = 0
    const t0 = performance.now()
    while (performance.now() - t0 < MS) {
      generateLevel(derive(seed++, "bench"), gen)
      n++
    }
    rates.push((n / (performance.now() - t0)) * 1000)
  }
  rows.push({ task: `sokoban-v1 levels ${gen.dim}x${gen.dim} ${gen.numBoxes} box ${label}`, median: median(rates), unit: "levels/s", extra: {} })
}

for (const spec of envsPlugin.envs ?? []) benchEnv(spec)
benchSokobanLevels({}, "(default, depth ≤ 10)")
benchSokobanLevels({ maxSolutionSteps: 0 }, "(uncapped, depth ≤ 300)")
benchSokobanLevels({ dim: 8, numBoxes: 2 }, "(depth ≤ 10)")

const fmt = (x: number) => Math.round(x).toLocaleString("en-US")
const w = Math.max(...rows.map((r) => r.task.length))
console.log(`env throughput (${runtime}, median of ${ROUNDS} rounds × ${MS} ms)`)
console.log(`${"task".padEnd(w)}  ${"median".padStart(12)}  unit       episodes/s (incl. reset)`)
for (const r of rows) {
  const ep = r.extra.episodesPerSec !== undefined ? fmt(r.extra.episodesPerSec) : ""
  console.log(`${r.task.padEnd(w)}  ${fmt(r.median).padStart(12)}  ${r.unit.padEnd(9)}  ${ep}`)
}
for (const r of rows) {
  const extra = Object.fromEntries(Object.entries(r.extra).map(([k, v]) => [k, Math.round(v)]))
  console.log(JSON.stringify({ bench: "envs", task: r.task, median: Math.round(r.median), unit: r.unit, ...extra, rounds: ROUNDS, ms: MS, runtime }))
}
if (sink === 0.5) console.log("") // keeps `sink` observable
