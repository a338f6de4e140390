/**
 * Text envs (Countdown, MetaMathQA): teacher success at ε=0 over N seeds, and episodes per second
 * of reset + one random valid action (the single-action episode), timed with tinybench.
 *   node_modules/.bin/bun benchmarks/envs-text.ts [--seeds 2000] [--time 300]
 *
 * Each tinybench sample is a batch of 100 episodes (time per episode); the rate is 1000 / the
 * mean (ms), i.e. episodes over total time; rme is tinybench's relative margin of error.
 */
import { Bench } from "tinybench"
import { withTimeLimit } from "../core/env/time-limit.ts"
import { Rng } from "../core/rng.ts"
import { decodeSync } from "../core/schema/decode.ts"
import type { EnvSpec } from "../core/contracts/index.ts"
import { countdownSpec } from "../envs/countdown/env.ts"
import { metaMathQASpec } from "../envs/metamathqa/env.ts"
import { jsonLine, numberFlag, runBench } from "./_tinybench.ts"

const N = numberFlag("seeds", 2000)
const TIME = numberFlag("time", 300)
const BATCH = 100

const bench = new Bench({ time: TIME, warmupTime: Math.min(TIME, 100) })
const teacherSuccess = new Map<string, number>()

const add = (spec: EnvSpec) => {
  const d = decodeSync(spec.options, {})
  if (!d.ok) throw new Error(d.message)
  const env = withTimeLimit(spec.make(d.value), spec.actionBudget)
  let solved = 0
  for (let s = 0; s < N; s++) {
    env.reset(10_000 + s)
    if (env.step(env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(s)).action).info.success) solved++
  }
  teacherSuccess.set(spec.id, solved / N)
  const rng = new Rng(1)
  let seed = 0
  bench.add(`${spec.id} reset + 1 random action`, () => {
    const t0 = bench.now()
    for (let i = 0; i < BATCH; i++) {
      env.reset(seed++ % N)
      env.step(env.randomAction(rng))
    }
    const ms = bench.now() - t0
    return { overriddenDuration: ms / BATCH, overriddenIterationCost: ms }
  })
}

for (const spec of [countdownSpec, metaMathQASpec]) add(spec)
const results = await runBench(bench, "text envs: episodes of one random action")
for (const [i, spec] of [countdownSpec, metaMathQASpec].entries()) {
  const r = results[i]!
  jsonLine("envs-text", {
    env: spec.id,
    seeds: N,
    teacherSuccess: teacherSuccess.get(spec.id),
    episodesPerSecond: Math.round(1000 / r.meanMs),
    rme: +r.rme.toFixed(2),
    samples: r.samples,
    timeMs: TIME
  })
}
