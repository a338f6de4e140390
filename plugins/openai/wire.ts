/**
 * The response shapes the remote policy reads, as Schemas (the remote is untrusted input:
 * every reply is decoded, never cast). Extra fields are ignored (servers add their own);
 * missing or mistyped fields are errors naming the field.
 *
 * Shapes, and the documentation each follows:
 * - Completions, legacy `logprobs` object {tokens, token_logprobs, top_logprobs, text_offset}:
 *   the OpenAI API reference for POST /v1/completions (choices[].logprobs), which vLLM's
 *   OpenAI-compatible server implements (docs.vllm.ai, "OpenAI-Compatible Server"); with
 *   `echo: true` the prompt's tokens come first and the first token's log-prob is null.
 * - vLLM's `prompt_logprobs` extra parameter: choices[].prompt_logprobs is a list with one
 *   entry per prompt token, null for the first, else {"<token id>": {logprob, rank,
 *   decoded_token}} (vllm/logprobs.py: PromptLogprobs = list[dict[int, Logprob] | None]).
 * - llama.cpp's server (tools/server/README.md, server-task.cpp to_json_oaicompat): its
 *   /v1/completions returns `logprobs: {content: [{id, token, bytes, logprob, top_logprobs}]}`,
 *   the chat shape, for generated tokens only (no echo, no prompt log-probs).
 * - Chat completions: choices[].message.content and choices[].logprobs.content[] {token,
 *   logprob, bytes, top_logprobs} (OpenAI API reference, POST /v1/chat/completions).
 */
import { Schema } from "effect"

const Num = Schema.Finite

export const LegacyLogprobs = Schema.Struct({
  tokens: Schema.Array(Schema.String),
  token_logprobs: Schema.Array(Schema.NullOr(Num)),
  text_offset: Schema.optional(Schema.Array(Schema.Int)),
  top_logprobs: Schema.optional(Schema.NullOr(Schema.Array(Schema.NullOr(Schema.Record(Schema.String, Num)))))
})
export type LegacyLogprobs = typeof LegacyLogprobs.Type

export const ContentLogprob = Schema.Struct({
  token: Schema.String,
  logprob: Num,
  id: Schema.optional(Schema.Int),
  bytes: Schema.optional(Schema.NullOr(Schema.Array(Schema.Int)))
})
export const ContentLogprobs = Schema.Struct({ content: Schema.NullOr(Schema.Array(ContentLogprob)) })
export type ContentLogprobs = typeof ContentLogprobs.Type

export const PromptLogprob = Schema.Struct({
  logprob: Num,
  rank: Schema.optional(Schema.NullOr(Schema.Int)),
  decoded_token: Schema.optional(Schema.NullOr(Schema.String))
})
export const PromptLogprobs = Schema.Array(Schema.NullOr(Schema.Record(Schema.String, PromptLogprob)))
export type PromptLogprobs = typeof PromptLogprobs.Type

export const CompletionChoice = Schema.Struct({
  text: Schema.String,
  index: Schema.optional(Schema.Int),
  finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
  /** vLLM: the stop string (or token id) that ended the sample; null for EOS or length. */
  stop_reason: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Int]))),
  logprobs: Schema.optional(Schema.NullOr(Schema.Union([LegacyLogprobs, ContentLogprobs]))),
  prompt_logprobs: Schema.optional(Schema.NullOr(PromptLogprobs))
})
export type CompletionChoice = typeof CompletionChoice.Type

export const CompletionResponse = Schema.Struct({
  choices: Schema.Array(CompletionChoice),
  model: Schema.optional(Schema.String)
})
export type CompletionResponse = typeof CompletionResponse.Type

export const ChatChoice = Schema.Struct({
  message: Schema.Struct({ content: Schema.NullOr(Schema.String) }),
  index: Schema.optional(Schema.Int),
  finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
  stop_reason: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Int]))),
  logprobs: Schema.optional(Schema.NullOr(ContentLogprobs))
})
export const ChatResponse = Schema.Struct({ choices: Schema.Array(ChatChoice), model: Schema.optional(Schema.String) })
export type ChatResponse = typeof ChatResponse.Type

/**
 * How the embedded policy's trainer rendered prompts (`ragen-bench serve` sends it in /v1/models):
 * the trainer options context, historyTurns and instructions, resolved per env as the trainer does.
 */
export const PromptStyle = Schema.Struct({
  context: Schema.Literals(["auto", "markov", "last-k", "full"]),
  historyTurns: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  instructions: Schema.Literals(["auto", "always", "never"])
})
export type PromptStyle = typeof PromptStyle.Type

export const ModelsResponse = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      /** vLLM's name for the context length in tokens. */
      max_model_len: Schema.optional(Schema.NullOr(Schema.Int)),
      /** ragen-bench serve's PromptStyle (decoded on its own: another server's field of that name is ignored). */
      prompt_style: Schema.optional(Schema.Unknown)
    })
  )
})

export const isLegacy = (l: LegacyLogprobs | ContentLogprobs): l is LegacyLogprobs => "tokens" in l
