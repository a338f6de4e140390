/**
 * The validation episodes an evaluation keeps (samples.jsonl, core/schema/samples.ts): the first
 * `evalSamples` validation seeds at the headline temperature, so the same episodes are compared
 * across steps. The teacher's facts are asked for before each step, on the state the policy saw,
 * with a stream of their own: the sampling streams and every metric stay as without samples.
 */
import { derive } from "../rng.ts"
import { EPISODE_MAX_CHARS, FACT_MAX_CHARS, FIELD_MAX_CHARS, MAX_FACTS, type SampleEpisode, type SampleTurn } from "../schema/samples.ts"
import type { RolloutSettings, Trajectory, TurnRecord } from "./rollout.ts"

/** `s` cut to at most `max` characters, the cut marked with the original length. */
export const truncateText = (s: string, max: number = FIELD_MAX_CHARS): string => {
  if (s.length <= max) return s
  const marker = ` …[truncated: ${s.length} chars]`
  let cut = Math.max(0, max - marker.length)
  // Never split a surrogate pair (the half left would not encode).
  const c = s.charCodeAt(cut - 1)
  if (cut > 0 && c >= 0xd800 && c <= 0xdbff) cut--
  return (s.slice(0, cut) + marker).slice(0, max)
}

/** The rollout hook that keeps the teacher's facts for trajectories 0..keep−1 (RolloutSettings.teachFacts). */
export const factsTeacher =
  (keep: number, step: number): RolloutSettings["teachFacts"] =>
  (i, env, turn) => {
    if (i >= keep) return undefined
    try {
      // ε = 0 and no reasoning noise: the facts of this state; the rng is our own, never the sampler's.
      const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, derive(step, "samples", i, turn))
      return t.facts.slice(0, MAX_FACTS).map((f) => truncateText(String(f), FACT_MAX_CHARS))
    } catch {
      // A teacher with nothing to say for a state the policy reached costs the sample its facts, never the run.
      return null
    }
  }

const turnOf = (u: TurnRecord, cap: number): SampleTurn => ({
  prompt: truncateText(u.prompt, cap),
  reasoning: truncateText(u.reasoning, cap),
  action: truncateText(u.action, cap),
  ...(u.formatValid ? {} : { response: truncateText(u.completion.text, cap) }),
  reward: u.reward,
  facts: u.facts ? u.facts.slice(0, MAX_FACTS).map((f) => truncateText(f, Math.min(cap, FACT_MAX_CHARS))) : null,
  factAccuracy: u.grade?.factAccuracy ?? null,
  consistency: u.grade?.consistency ?? null
})

const build = (t: Trajectory, cap: number, turns: number): SampleEpisode => {
  const omitted = t.turns.length - turns
  return { seed: t.seed, success: t.success, return: t.ret, turns: t.turns.slice(0, turns).map((u) => turnOf(u, cap)), ...(omitted > 0 ? { omittedTurns: omitted } : {}) }
}

const fits = (e: SampleEpisode): boolean => JSON.stringify(e).length <= EPISODE_MAX_CHARS

/** One episode within EPISODE_MAX_CHARS: shorter text fields first, then fewer turns (from the end). */
export const sampleEpisode = (t: Trajectory): SampleEpisode => {
  const caps = [FIELD_MAX_CHARS, 1_000, 500, 250, 120]
  for (const cap of caps) {
    const e = build(t, cap, t.turns.length)
    if (fits(e)) return e
  }
  const cap = caps[caps.length - 1]!
  for (let k = t.turns.length - 1; k > 0; k--) {
    const e = build(t, cap, k)
    if (fits(e)) return e
  }
  return build(t, cap, 0)
}
