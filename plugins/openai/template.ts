/**
 * Prompt templates for /v1/completions (no Jinja: a few fixed formats and one placeholder
 * template). Our prompts end with "<think>" (core/prompt.ts); for a chat format the text before
 * it becomes the user message and "<think>" opens the assistant's turn, so the model continues
 * its reasoning exactly as the embedded policy does.
 * - raw: the prompt as is (base models, `ragen-bench serve`).
 * - qwen2.5: ChatML as Qwen2.5-Instruct's template renders it, with its default system message
 *   when none is given ("You are Qwen, created by Alibaba Cloud. You are a helpful assistant.").
 * - llama3: the Llama-3 header format. <|begin_of_text|> is left out because vLLM and
 *   llama.cpp add the BOS token themselves when they tokenize a completions prompt.
 * - custom: `customTemplate` with "{user}" and optionally "{system}"; "<think>" is appended.
 */
import { THINK_OPEN } from "../../core/host.ts"

export const TEMPLATE_NAMES = ["raw", "qwen2.5", "llama3", "custom"] as const
export type TemplateName = (typeof TEMPLATE_NAMES)[number]

export const QWEN25_DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."

export interface TemplateOptions {
  readonly template: TemplateName
  readonly customTemplate?: string | undefined
  readonly system?: string | undefined
}

/** The user message of a prompt: the text before the closing "<think>". */
export const userMessage = (prompt: string): string => {
  const p = prompt.endsWith(THINK_OPEN) ? prompt.slice(0, -THINK_OPEN.length) : prompt
  return p.replace(/\s+$/, "")
}

export const renderPrompt = (prompt: string, o: TemplateOptions): string => {
  if (o.template === "raw") return prompt
  const user = userMessage(prompt)
  switch (o.template) {
    case "qwen2.5":
      return `<|im_start|>system\n${o.system ?? QWEN25_DEFAULT_SYSTEM}<|im_end|>\n<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n${THINK_OPEN}`
    case "llama3": {
      const sys = o.system === undefined ? "" : `<|start_header_id|>system<|end_header_id|>\n\n${o.system}<|eot_id|>`
      return `${sys}<|start_header_id|>user<|end_header_id|>\n\n${user}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n${THINK_OPEN}`
    }
    case "custom": {
      const t = o.customTemplate ?? "{user}"
      // One pass, so that text inside the prompt that looks like a placeholder stays as it is.
      return t.replace(/\{(user|system)\}/g, (_, k: string) => (k === "user" ? user : (o.system ?? ""))) + THINK_OPEN
    }
  }
}

/** Chat messages for /v1/chat/completions. */
export const chatMessages = (prompt: string, system: string | undefined): Array<{ role: string; content: string }> => [
  ...(system === undefined ? [] : [{ role: "system", content: system }]),
  { role: "user", content: userMessage(prompt) }
]

/** A chat reply starts after "<think>" like a completion: drop a leading "<think>" the model wrote itself. */
export const stripThinkOpen = (text: string): string => {
  const t = text.replace(/^\s*/, "")
  return t.startsWith(THINK_OPEN) ? t.slice(THINK_OPEN.length) : text
}
