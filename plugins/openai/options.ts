/** Options of the "openai" policy (decoded strictly: a misspelt key is an error with a hint). */
import { Schema } from "effect"
import { TEMPLATE_NAMES } from "./template.ts"
import { withDefault as dflt } from "../../core/host.ts"

const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const OpenAIOptions = Schema.Struct({
  /** Server root including /v1, e.g. http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:8080/v1 (llama.cpp). */
  baseUrl: Schema.String,
  /** Model name as the server lists it under /v1/models. */
  model: Schema.String,
  /** Name of the environment variable that holds the API key (the key itself is never an option). */
  apiKeyEnv: Schema.optional(Schema.String),
  /** completions: our prompt through `template`; chat: /v1/chat/completions with the server's own template. */
  endpoint: dflt(Schema.Literals(["completions", "chat"]), "completions"),
  /** Prompt format for /v1/completions and scoring (template.ts). */
  template: dflt(Schema.Literals(TEMPLATE_NAMES), "raw"),
  /** For template "custom": a string with "{user}" and optionally "{system}". */
  customTemplate: Schema.optional(Schema.String),
  /** System message (chat endpoint, qwen2.5, llama3 and custom templates). */
  system: Schema.optional(Schema.String),
  /** How prompt log-probs are read: echo (vLLM, SGLang), prompt_logprobs (vLLM), none (no MI diagnostics). */
  scoring: dflt(Schema.Literals(["echo", "prompt_logprobs", "none"]), "echo"),
  /** max_tokens of an echo scoring request: 0 (vLLM) or 1 (servers that reject 0). */
  scoreMaxTokens: dflt(Schema.Literals([0, 1]), 1),
  /** Put between a prompt and the continuation scored after it (the prompt's side of the boundary). */
  scoreJoiner: dflt(Schema.String, " "),
  /** Send min_p when it is above 0 (vLLM, SGLang and llama.cpp accept it; OpenAI does not). */
  sendMinP: dflt(Schema.Boolean, true),
  /** Send a per-prompt `seed` drawn from the run's Rng (servers that honour it sample reproducibly). */
  sendSeed: dflt(Schema.Boolean, true),
  /** Requests in flight at once. */
  concurrency: dflt(PosInt, 8),
  /** Per attempt. */
  timeoutMs: dflt(PosInt, 120_000),
  /** Retries after the first attempt on 429, 5xx, timeouts and connection failures. */
  retries: dflt(NonNegInt, 4),
  /** First backoff (doubles each retry; a Retry-After header wins), capped by maxBackoffMs. */
  backoffMs: dflt(NonNegInt, 500),
  maxBackoffMs: dflt(NonNegInt, 30_000),
  /** Replies larger than this are refused. */
  maxResponseBytes: dflt(PosInt, 16 * 1024 * 1024)
})
export type OpenAIOptions = typeof OpenAIOptions.Type
