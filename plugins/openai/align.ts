/**
 * Aligning a server's tokens with the prompt/continuation boundary of a scored text.
 *
 * The scored text is `prompt + continuation`, tokenized by the server as one string, so token
 * edges need not fall on the boundary. Rule: a token belongs to the continuation when its span
 * [start, end) ends after the boundary; a token that straddles it (start < boundary < end)
 * counts for the continuation. It carries the continuation's first characters, so dropping it
 * would leave them unscored; its log-prob is conditioned on the prompt before it, which is what
 * p(z | x) means. Tokens that start at or after the end of the text (a generated token when
 * max_tokens is 1) are left out.
 *
 * Spans come from `text_offset` (echo) when the server gives it: token i spans
 * [offset_i, offset_{i+1}), the last one [offset, offset + its text length). vLLM's
 * prompt_logprobs carry no offsets: spans are rebuilt from the decoded tokens, right to left
 * from the end of the text (the first prompt token has no entry), and each decoded token must
 * match the text it covers, else alignment is refused.
 */
import type { LegacyLogprobs, PromptLogprobs } from "./wire.ts"

export interface Aligned {
  readonly tokens: string[]
  readonly logprobs: number[]
  /** Tokens that straddle the boundary (0 or 1). */
  readonly straddling: number
}

export type AlignResult = { ok: true; value: Aligned } | { ok: false; message: string }

export const alignEcho = (lp: LegacyLogprobs, text: string, boundary: number): AlignResult => {
  const n = lp.tokens.length
  const off = lp.text_offset
  if (!off) return { ok: false, message: "the echo reply has no text_offset, so tokens cannot be aligned with the prompt/continuation boundary" }
  if (off.length !== n || lp.token_logprobs.length !== n) {
    return { ok: false, message: `the echo reply's logprobs arrays differ in length (tokens ${n}, token_logprobs ${lp.token_logprobs.length}, text_offset ${off.length})` }
  }
  const tokens: string[] = []
  const logprobs: number[] = []
  let straddling = 0
  for (let i = 0; i < n; i++) {
    const start = off[i]!
    if (i > 0 && start < off[i - 1]!) return { ok: false, message: `text_offset decreases at token ${i}` }
    if (start >= text.length) break
    const end = i + 1 < n ? Math.min(off[i + 1]!, text.length) : start + lp.tokens[i]!.length
    if (end <= boundary) continue
    const v = lp.token_logprobs[i]
    if (v === null || v === undefined) return { ok: false, message: `token ${i} (${JSON.stringify(lp.tokens[i])}) of the continuation has no log-prob` }
    if (start < boundary) straddling++
    tokens.push(lp.tokens[i]!)
    logprobs.push(v)
  }
  return { ok: true, value: { tokens, logprobs, straddling } }
}

/** The entry of one position: the single key, or the one whose decoded text matches `want`'s end. */
const pickEntry = (entry: Readonly<Record<string, { logprob: number; decoded_token?: string | null | undefined }>>, textBefore: string) => {
  const keys = Object.keys(entry)
  if (keys.length === 1) return entry[keys[0]!]!
  let best: { logprob: number; decoded_token?: string | null | undefined } | undefined
  for (const k of keys) {
    const e = entry[k]!
    const d = e.decoded_token
    if (typeof d === "string" && d.length > 0 && textBefore.endsWith(d) && (!best || d.length > (best.decoded_token ?? "").length)) best = e
  }
  return best
}

export const alignPromptLogprobs = (entries: PromptLogprobs, text: string, boundary: number): AlignResult => {
  const tokens: string[] = []
  const logprobs: number[] = []
  let straddling = 0
  let end = text.length
  for (let i = entries.length - 1; i >= 1 && end > boundary; i--) {
    const entry = entries[i]
    if (!entry) return { ok: false, message: `prompt_logprobs[${i}] is null; only the first entry may be` }
    const e = pickEntry(entry, text.slice(0, end))
    if (!e) return { ok: false, message: `prompt_logprobs[${i}] has several tokens and none matches the text; request prompt_logprobs 0` }
    const d = e.decoded_token
    if (typeof d !== "string") return { ok: false, message: `prompt_logprobs[${i}] has no decoded_token, so it cannot be aligned with the text` }
    const start = end - d.length
    if (start < 0 || text.slice(start, end) !== d) {
      return { ok: false, message: `prompt_logprobs[${i}] decodes to ${JSON.stringify(d)}, which is not the text at that place (${JSON.stringify(text.slice(Math.max(0, start), end))})` }
    }
    if (start < boundary) straddling++
    tokens.push(d)
    logprobs.push(e.logprob)
    end = start
  }
  if (end > boundary) return { ok: false, message: "prompt_logprobs cover less than the continuation (the first prompt token would have to be scored)" }
  return { ok: true, value: { tokens: tokens.reverse(), logprobs: logprobs.reverse(), straddling } }
}
