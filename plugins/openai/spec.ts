/** The "openai" PolicySpec: a remote, frozen policy (evaluation and diagnostics; no training over HTTP). */
import type { PolicySpec } from "../../core/contracts/index.ts"
import { OpenAIOptions } from "./options.ts"
import { makeOpenAIPolicy } from "./policy.ts"

export const openaiSpec: PolicySpec<OpenAIOptions> = {
  id: "openai",
  description: "A model behind an OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, ragen-bench serve): sampling and, where the server returns prompt log-probs, scoring; not trainable",
  options: OpenAIOptions,
  trainable: false,
  make: async (options) => makeOpenAIPolicy(options)
}
