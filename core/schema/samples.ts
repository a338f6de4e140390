/**
 * samples.jsonl: a bounded sample of validation episodes per evaluation (docs/decisions.md#issue-17, "see the
 * collapse"), so a reader can watch reasoning turn into a template while the MI and fact-accuracy
 * curves fall. One line per evaluation. The writer (core/train/samples.ts) keeps every line within
 * these bounds; the reader (core/results/samples.ts) treats the file as someone else's and refuses
 * anything outside them, so a hostile file cannot grow the site or the reader without end.
 */
import { Schema } from "effect"

/** Each text field (prompt, reasoning, action, response) at most this many characters, marker included. */
export const FIELD_MAX_CHARS = 2_000
/** A fact at most this many characters, and at most MAX_FACTS of them per turn. */
export const FACT_MAX_CHARS = 200
export const MAX_FACTS = 64
/**
 * One episode's JSON at most this many characters: longer episodes get shorter text fields, then
 * lose turns from the end (counted in omittedTurns). 100 evaluations × 4 episodes ≤ 1.2 MB.
 */
export const EPISODE_MAX_CHARS = 3_000
/** Reader bounds beyond what the writer produces (generous: a file past them is not ours). */
export const MAX_TURNS = 1_000
export const MAX_EPISODES = 1_024

const Text = Schema.String.check(Schema.isMaxLength(FIELD_MAX_CHARS))
const Score = Schema.NullOr(Schema.Finite)

export const SampleTurn = Schema.Struct({
  /** The prompt the policy saw. */
  prompt: Text,
  /** Reasoning and action as the response parser read them (the action is "" when the response did not parse). */
  reasoning: Text,
  action: Text,
  /** The raw response, only when it did not parse. */
  response: Schema.optional(Text),
  /** Env reward plus this turn's penalty. */
  reward: Schema.Finite,
  /** The teacher's facts for the state the prompt showed; null when the teacher could not say. */
  facts: Schema.NullOr(Schema.Array(Schema.String.check(Schema.isMaxLength(FACT_MAX_CHARS))).check(Schema.isMaxLength(MAX_FACTS))),
  /** The teacher's grade of the policy's reasoning for that state; null when the response did not parse. */
  factAccuracy: Score,
  consistency: Score
})
export type SampleTurn = typeof SampleTurn.Type

export const SampleEpisode = Schema.Struct({
  /** The env seed the episode was reset with. */
  seed: Schema.Int,
  success: Schema.Boolean,
  return: Schema.Finite,
  turns: Schema.Array(SampleTurn).check(Schema.isMaxLength(MAX_TURNS)),
  /** Turns left out at the end to keep the episode within EPISODE_MAX_CHARS. */
  omittedTurns: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)))
})
export type SampleEpisode = typeof SampleEpisode.Type

/** One line of samples.jsonl: the episodes of one evaluation. */
export const SamplesLine = Schema.Struct({
  step: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /** The headline validation temperature the episodes were sampled at. */
  temperature: Schema.Finite,
  episodes: Schema.Array(SampleEpisode).check(Schema.isMaxLength(MAX_EPISODES))
})
export type SamplesLine = typeof SamplesLine.Type
