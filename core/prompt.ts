/**
 * Prompt and response format shared by SFT, rollouts and diagnostics, so that the policy
 * sees the same text everywhere. docs/design.md §3/§6: each turn the policy writes
 * "<think> z </think> <answer> a </answer>"; X (the prompt) runs up to and including
 * "<think>", so the completion is "z </think> <answer> a </answer>".
 */

import { ANSWER_CLOSE, ANSWER_OPEN, THINK_CLOSE, THINK_OPEN } from "./contracts/tags.ts"

export { ANSWER_CLOSE, ANSWER_OPEN, THINK_CLOSE, THINK_OPEN }

export interface PromptParts {
  /** Task description (env instructions); omitted when undefined (short-context policies). */
  readonly instructions?: string
  /** Earlier turns, oldest first, already rendered (observation + response); [] in Markov mode. */
  readonly history?: ReadonlyArray<{ readonly observation: string; readonly response: string }>
  /** The current observation. */
  readonly observation: string
}

export const buildPrompt = (p: PromptParts): string => {
  const parts: string[] = []
  if (p.instructions) parts.push(p.instructions)
  for (const h of p.history ?? []) parts.push(h.observation, h.response)
  parts.push(p.observation, THINK_OPEN)
  return parts.join("\n")
}

/** The completion text for a reasoning and an action (what SFT trains on). */
export const formatCompletion = (reasoning: string, action: string): string => `${reasoning} ${THINK_CLOSE} ${ANSWER_OPEN} ${action} ${ANSWER_CLOSE}`

export interface ParsedResponse {
  /** Both tags present and in order. */
  readonly valid: boolean
  readonly reasoning: string
  readonly action: string
}

// The reference code's pattern: <think>(.*?)</think>\s*<answer>(.*?)</answer> (dot-all).
// Our completions start after "<think>", so the opening tag is optional here.
const responseRe = /^\s*(?:<think>)?([\s\S]*?)<\/think>\s*<answer>([\s\S]*?)<\/answer>/

export const parseResponse = (completion: string): ParsedResponse => {
  const m = responseRe.exec(completion)
  if (!m) return { valid: false, reasoning: completion.split(THINK_CLOSE)[0]!.trim(), action: "" }
  const reasoning = m[1]!.trim()
  const action = m[2]!.trim()
  const valid = !reasoning.includes(THINK_OPEN) && !action.includes(ANSWER_OPEN) && action.length > 0
  return { valid, reasoning, action }
}

/** The trainer's format penalty per bad turn (DESIGN.md §3; the `formatPenalty` train option's default). */
export const DEFAULT_FORMAT_PENALTY = -0.1

/** Prepended to the observation after a response that did not parse. */
export const FORMAT_NOTE = "invalid format: reply as <think> ... </think> <answer> ... </answer>"

/** The observation shown after a turn whose response did not parse: the same one, with the note in front (once). */
export const withFormatNote = (observation: string): string => (observation.startsWith(FORMAT_NOTE) ? observation : `${FORMAT_NOTE}\n${observation}`)

/**
 * What a turn costs beyond the env's reward: the format penalty when the response did not parse
 * or the env rejected its action (info.valid false), else 0 (core/train/rollout.ts).
 */
export const turnPenalty = (formatValid: boolean, actionValid: boolean, penalty: number): number => (formatValid && actionValid ? 0 : penalty)

/**
 * An agent's whole reply, as an env-server client sends it (envs/server): `parseResponse`, the
 * trainer's parse, with one difference that follows from who writes "<think>". The trainer's
 * prompt ends with "<think>", so its completions must close it; a client's prompt opens nothing,
 * so a reply without any think tag ("<answer>Up</answer>") reads as an empty reasoning and its
 * answer. A reply with a think tag is parsed exactly as the trainer parses a completion; a bare
 * action ("Up") is invalid in both.
 */
export const parseReply = (reply: string): ParsedResponse => (reply.includes(THINK_OPEN) || reply.includes(THINK_CLOSE) ? parseResponse(reply) : parseResponse(THINK_CLOSE + reply))
