/**
 * Teacher success rates: every registered built-in env (envs/plugin.ts) is played by its own
 * teacher (`env.teach`) for N seeds at action noise ε ∈ {0, 0.5}; prints the success rate,
 * the mean return, the mean reasoning length and the teacher's self-graded fidelity.
 *
 *   node_modules/.bin/bun benchmarks/teachers.ts [--seeds 200]
 *
 * Seeds are the training seeds (10000, 10001, …), default options (the paper's).
 */
import envsPlugin from "../envs/plugin.ts"
import type { EnvSpec } from "../core/contracts/index.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { Rng } from "../core/rng.ts"

const argv = process.argv.slice(2)
const i = argv.indexOf("--seeds")
const SEEDS = i >= 0 ? Number(argv[i + 1]) : 200
const EPSILONS = [0, 0.5]
/** Extra option sets per env id, run after the defaults (slippery ice, harder rooms). */
const VARIANTS: Record<string, ReadonlyArray<Record<string, unknown>>> = {
  "frozenlake-v1": [{ successRate: 0.8 }],
  "sokoban-v1": [{ dim: 8, numBoxes: 2 }]
}

interface Result {
  env: string
  epsilon: number
  seeds: number
  success: number
  meanReturn: number
  meanReasoningWords: number
  factAccuracy: number
  consistency: number
  ms: number
}

const run = (spec: EnvSpec, epsilon: number, options: Record<string, unknown> = {}): Result => {
  const decoded = decodeSync(spec.options, options)
  if (!decoded.ok) throw new Error(`${spec.id}: ${decoded.message}`)
  const env = spec.make(decoded.value)
  const rng = new Rng(7)
  let success = 0
  let ret = 0
  let words = 0
  let turns = 0
  let fact = 0
  let cons = 0
  const t0 = performance.now()
  for (let s = 0; s < SEEDS; s++) {
    env.reset(10_000 + s)
    let last
    while (!env.done) {
      const t = env.teach({ epsilon, reasoningNoise: 0.5 }, rng)
      const g = env.gradeReasoning(env.state(), t.reasoning, t.intendedAction)
      fact += g.factAccuracy
      cons += g.consistency
      words += t.reasoning.split(/\s+/).length
      turns++
      last = env.step(t.action)
      ret += last.reward
    }
    if (last?.info.success) success++
  }
  return {
    env: Object.keys(options).length ? `${spec.id} ${JSON.stringify(options)}` : spec.id,
    epsilon,
    seeds: SEEDS,
    success: success / SEEDS,
    meanReturn: ret / SEEDS,
    meanReasoningWords: words / turns,
    factAccuracy: fact / turns,
    consistency: cons / turns,
    ms: performance.now() - t0
  }
}

const results: Result[] = []
for (const spec of envsPlugin.envs ?? []) {
  for (const o of [{}, ...(VARIANTS[spec.id] ?? [])]) for (const e of EPSILONS) results.push(run(spec, e, o))
}

const w = Math.max(...results.map((r) => r.env.length))
console.log(`teacher success over ${SEEDS} seeds (reasoning noise 0.5; fact/cons = self-graded fidelity of the intended action)`)
console.log(`${"env".padEnd(w)}  ε     success  return   words  fact   cons`)
for (const r of results) {
  console.log(
    `${r.env.padEnd(w)}  ${r.epsilon.toFixed(2)}  ${r.success.toFixed(3).padStart(7)}  ${r.meanReturn.toFixed(2).padStart(6)}  ${r.meanReasoningWords.toFixed(1).padStart(5)}  ${r.factAccuracy.toFixed(2)}  ${r.consistency.toFixed(2)}`
  )
}
for (const r of results) console.log(JSON.stringify({ bench: "teachers", ...r, ms: Math.round(r.ms) }))
