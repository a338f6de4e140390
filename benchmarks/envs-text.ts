/**
 * Text envs (Countdown, MetaMathQA): teacher success at ε=0 over N seeds, and steps per second
 * of reset + one random valid action (the single-action episode), median of 5 rounds.
 *   node_modules/.bin/bun benchmarks/envs-text.ts [--seeds 2000]
 */
import { Rng } from "../core/rng.ts"
import { decodeSync } from "../core/schema/decode.ts"
import type { EnvSpec } from "../core/contracts/index.ts"
import { countdownSpec } from "../envs/countdown/env.ts"
import { metaMathQASpec } from "../envs/metamathqa/env.ts"

const arg = process.argv.indexOf("--seeds")
const N = arg > 0 ? Number(process.argv[arg + 1]) : 2000

const run = (spec: EnvSpec) => {
  const d = decodeSync(spec.options, {})
  if (!d.ok) throw new Error(d.message)
  const env = spec.make(d.value)
  let solved = 0
  for (let s = 0; s < N; s++) {
    env.reset(10_000 + s)
    if (env.step(env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(s)).action).info.success) solved++
  }
  const rng = new Rng(1)
  const rates: number[] = []
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now()
    for (let s = 0; s < N; s++) {
      env.reset(s)
      env.step(env.randomAction(rng))
    }
    rates.push(N / ((performance.now() - t0) / 1000))
  }
  rates.sort((a, b) => a - b)
  return { env: spec.id, seeds: N, teacherSuccess: solved / N, episodesPerSecond: Math.round(rates[2]!) }
}

for (const spec of [countdownSpec, metaMathQASpec]) console.log(JSON.stringify(run(spec)))
