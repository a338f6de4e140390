/**
 * Teacher success rates: every registered built-in env (envs/plugin.ts) is played by its own
 * teacher (`env.teach`) for N seeds at action noise ε ∈ {0, 0.5}; prints the success rate,
 * the mean return, the mean reasoning length and the teacher's self-graded fidelity.
 *
 *   node_modules/.bin/bun benchmarks/teachers.ts [--seeds 200] [--time 200]
 *
 * Seeds are the training seeds (10000, 10001, …), default options (the paper's). The cost of a
 * teacher episode (teach + grade + step per turn, reset included) is timed with tinybench: each
 * sample is a batch of 10 episodes, the figure is the mean time per episode (ms).
 */
import { Bench } from "tinybench"
import envsPlugin from "../envs/plugin.ts"
import type { EnvSpec } from "../core/contracts/index.ts"
import { withTimeLimit } from "../core/env/time-limit.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { Rng } from "../core/rng.ts"
import { jsonLine, numberFlag, runBench } from "./_tinybench.ts"

const SEEDS = numberFlag("seeds", 200)
const TIME = numberFlag("time", 200)
const BATCH = 10
const bench = new Bench({ time: TIME, warmupTime: Math.min(TIME, 50) })
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
  /** Task name of the episode timing in the bench. */
  task: string
}

const run = (spec: EnvSpec, epsilon: number, options: Record<string, unknown> = {}): Result => {
  const decoded = decodeSync(spec.options, options)
  if (!decoded.ok) throw new Error(`${spec.id}: ${decoded.message}`)
  // The harness applies the action budget (as the rollout does); envs themselves never truncate.
  const env = withTimeLimit(spec.make(decoded.value), spec.actionBudget)
  const rng = new Rng(7)
  let solved = 0
  let ret = 0
  let words = 0
  let turns = 0
  let fact = 0
  let cons = 0
  for (let s = 0; s < SEEDS; s++) {
    env.reset(10_000 + s)
    let succeeded = false
    while (!env.done) {
      const t = env.teach({ epsilon, reasoningNoise: 0.5 }, rng)
      const g = env.gradeReasoning(env.state(), t.reasoning, t.intendedAction)
      fact += g.factAccuracy
      cons += g.consistency
      words += t.reasoning.split(/\s+/).length
      turns++
      const r = env.step(t.action)
      ret += r.reward
      succeeded = r.info.success
    }
    if (succeeded) solved++
  }
  const label = Object.keys(options).length ? `${spec.id} ${JSON.stringify(options)}` : spec.id
  const task = `${label} ε=${epsilon} teacher episode`
  let seed = 10_000
  bench.add(task, () => {
    const t0 = bench.now()
    for (let e = 0; e < BATCH; e++) {
      env.reset(seed++)
      while (!env.done) {
        const t = env.teach({ epsilon, reasoningNoise: 0.5 }, rng)
        env.gradeReasoning(env.state(), t.reasoning, t.intendedAction)
        env.step(t.action)
      }
    }
    const ms = bench.now() - t0
    return { overriddenDuration: ms / BATCH, overriddenIterationCost: ms }
  })
  return {
    env: label,
    epsilon,
    seeds: SEEDS,
    success: solved / SEEDS,
    meanReturn: ret / SEEDS,
    meanReasoningWords: words / turns,
    factAccuracy: fact / turns,
    consistency: cons / turns,
    task
  }
}

const results: Result[] = []
for (const spec of envsPlugin.envs ?? []) {
  for (const o of [{}, ...(VARIANTS[spec.id] ?? [])]) for (const e of EPSILONS) results.push(run(spec, e, o))
}

const timed = new Map((await runBench(bench, "teacher episode cost")).map((f) => [f.task, f]))
const w = Math.max(...results.map((r) => r.env.length))
console.log(`teacher success over ${SEEDS} seeds (reasoning noise 0.5; fact/cons = self-graded fidelity of the intended action)`)
console.log(`${"env".padEnd(w)}  ε     success  return   words  fact   cons   ms/episode`)
for (const r of results) {
  console.log(
    `${r.env.padEnd(w)}  ${r.epsilon.toFixed(2)}  ${r.success.toFixed(3).padStart(7)}  ${r.meanReturn.toFixed(2).padStart(6)}  ${r.meanReasoningWords.toFixed(1).padStart(5)}  ${r.factAccuracy.toFixed(2)}  ${r.consistency.toFixed(2)}   ${timed.get(r.task)!.meanMs.toFixed(3)}`
  )
}
for (const { task, ...r } of results) {
  const f = timed.get(task)!
  jsonLine("teachers", { ...r, msPerEpisode: +f.meanMs.toFixed(4), rme: +f.rme.toFixed(2), samples: f.samples, timeMs: TIME })
}
