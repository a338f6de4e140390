/**
 * Teacher turns for a supervised warm start (docs/design.md §4, §10): the env's scripted expert plays
 * episodes with action noise ε and reasoning noise; each turn becomes (prompt, completion) with
 * core/prompt.ts, so SFT and RL see identical text. The env steps on the (noisy) action.
 *
 * Seeds: SFT episodes start at SFT_SEED_START (1,000,000, as docs/design.md §10's prototype); with the
 * instance split their instances are training instances, never validation ones.
 */
import type { EnvSpec, TeacherTurn } from "../contracts/index.ts"
import { splitSeeds } from "../env/instance-split.ts"
import { actionBudgetFor, withTimeLimit } from "../env/time-limit.ts"
import { buildPrompt, formatCompletion } from "../prompt.ts"
import { derive } from "../rng.ts"

export const SFT_SEED_START = 1_000_000

export interface CollectOptions {
  readonly turns: number
  readonly epsilon: number
  readonly reasoningNoise: number
  readonly seed: number
  /** First env seed (default SFT_SEED_START). */
  readonly seedStart?: number
  /** Shown at the top of each prompt (undefined: Markov prompts, the grid-env default). */
  readonly instructions?: string | undefined
  readonly maxTurns?: number
  /** Only training instances (core/env/instance-split.ts): never one that validation can meet. */
  readonly instanceSplit?: boolean
  /** With the split: only this share of the training instances (core/env/instance-split.ts inSftShare). */
  readonly sftInstanceShare?: number | undefined
  /** Told each episode's first observation (tests check the instances SFT meets). */
  readonly onEpisode?: (firstObservation: string) => void
}

/**
 * Teacher episodes until `turns` turns are collected. Awaits resetAsync/stepAsync when the env
 * has them (remote-backed envs throw on sync reset/step), else the sync calls: the turns are the same.
 */
export const collectTeacherTurns = async (spec: EnvSpec, envOptions: unknown, o: CollectOptions): Promise<TeacherTurn[]> => {
  const out: TeacherTurn[] = []
  // The harness's time limit, as in training: a teacher that slips plans for the steps left.
  const env = withTimeLimit(spec.make(envOptions), actionBudgetFor(spec, envOptions))
  const maxTurns = o.maxTurns ?? spec.maxTurns
  for (let slot = o.seedStart ?? SFT_SEED_START; out.length < o.turns; slot++) {
    const seed = o.instanceSplit ? (await splitSeeds(spec, envOptions, [slot], "train", undefined, o.sftInstanceShare))[0]! : slot
    let obs = env.resetAsync ? await env.resetAsync(seed) : env.reset(seed)
    o.onEpisode?.(obs)
    const rng = derive(o.seed, "sft-teacher", seed)
    for (let turn = 0; turn < maxTurns && !env.done && out.length < o.turns; turn++) {
      const t = env.teach({ epsilon: o.epsilon, reasoningNoise: o.reasoningNoise }, rng)
      out.push({ prompt: buildPrompt({ instructions: o.instructions, observation: obs }), completion: formatCompletion(t.reasoning, t.action) })
      const r = env.stepAsync ? await env.stepAsync(t.action) : env.step(t.action)
      obs = r.observation
      if (r.terminated) break
    }
  }
  return out
}
