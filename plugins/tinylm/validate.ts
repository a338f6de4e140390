/**
 * Validation success of a policy and of the env teacher on the fixed validation seeds (docs/design.md
 * §3: 123..), as the trainer validates: on validation instances only (core/env/instance-split.ts).
 */
import { actionBudgetFor, derive, rollout, rolloutStats, seedCache, splitSeeds, withTimeLimit } from "../../core/host.ts"
import type { EnvSpec, Policy } from "../../core/contracts/index.ts"

export const VAL_SEED_START = 123

export const policySuccess = async (
  policy: Policy,
  spec: EnvSpec,
  envOptions: unknown,
  n: number,
  temperature: number,
  seed: number,
  maxTokens: number,
  instructions?: string
): Promise<Record<string, number>> => {
  const seeds = Array.from({ length: n }, (_, i) => VAL_SEED_START + i)
  const b = await rollout(
    policy,
    { spec, envOptions, maxTurns: spec.maxTurns, context: "markov", historyTurns: 0, instructions, maxTokens, temperature, topP: 1, minP: 0, formatPenalty: -0.1, instanceSplit: seedCache() },
    seeds,
    1,
    derive(seed, "sft-val", temperature),
    "validation"
  )
  return rolloutStats(b)
}

/** The teacher without action noise on the same seeds and turn limit. */
export const teacherSuccess = async (spec: EnvSpec, envOptions: unknown, n: number, seed: number): Promise<number> => {
  // The harness's time limit, as in training: a teacher that slips plans for the steps left.
  const env = withTimeLimit(spec.make(envOptions), actionBudgetFor(spec, envOptions))
  const seeds = await splitSeeds(
    spec,
    envOptions,
    Array.from({ length: n }, (_, i) => VAL_SEED_START + i),
    "validation"
  )
  let ok = 0
  for (let i = 0; i < n; i++) {
    env.reset(seeds[i]!)
    const rng = derive(seed, "teacher-val", i)
    for (let t = 0; t < spec.maxTurns && !env.done; t++) {
      const r = env.step(env.teach({ epsilon: 0, reasoningNoise: 0 }, rng).action)
      if (r.info.success) {
        ok++
        break
      }
      if (r.terminated) break
    }
  }
  return ok / Math.max(1, n)
}

/**
 * Does the reasoning depend on the input? Sample one completion per prompt, score each sampled
 * reasoning (up to "</think>") against every prompt; the share of rows whose own prompt has the
 * highest log-likelihood (chance 1/n). The diagnostics' Retrieval-Acc, computed directly.
 */
export const reasoningRetrieval = async (policy: Policy, prompts: ReadonlyArray<string>, temperature: number, seed: number, maxTokens: number): Promise<number> => {
  const cs = await policy.sample(prompts, { temperature, topP: 1, minP: 0, maxTokens }, derive(seed, "retrieval"))
  const reasoning = cs.map((c) => `${c.text.split("</think>")[0]!.trim()} </think>`)
  const reqs = reasoning.flatMap((z) => prompts.map((x) => ({ prompt: x, continuation: z })))
  const scores = await policy.score(reqs)
  let hit = 0
  for (let r = 0; r < prompts.length; r++) {
    let best = -1,
      bestV = -Infinity
    for (let j = 0; j < prompts.length; j++) {
      let s = 0
      for (const v of scores[r * prompts.length + j]!.logprobs) s += v
      if (s > bestV) {
        bestV = s
        best = j
      }
    }
    if (best === r) hit++
  }
  return hit / prompts.length
}
