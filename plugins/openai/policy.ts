/**
 * The "openai" policy: sampling and teacher-forced scoring through an OpenAI-compatible server
 * (vLLM, SGLang, llama.cpp's server, Ollama, `ragen-bench serve`). Not trainable.
 *
 * Sampling: one request per prompt (n = 1), at most `concurrency` in flight; each prompt gets a
 * uint32 `seed` drawn from the caller's Rng in prompt order, so the same Rng state sends the
 * same seeds. Log-probs are what the server reports for each sampled token (vLLM and llama.cpp
 * report the model's distribution before temperature and truncation), so `logprobs` and
 * `rawLogprobs` hold the same values. Token ids are the server's when it sends them
 * (llama.cpp), else −1. Servers drop the stop string from the text; it is put back when the
 * server says it matched (vLLM's stop_reason), or, for the default "</answer>", when the text
 * ends inside an open <answer> and finish_reason is "stop".
 *
 * Scoring (the MI diagnostics): log p(continuation | prompt) per token via /v1/completions with
 * echo (or vLLM's prompt_logprobs) on `render(prompt) + scoreJoiner + continuation`, aligned
 * at the boundary by align.ts. Entropy is not available remotely: NaN.
 */
import type { Completion, Policy, SampleOptions, ScoreRequest, ScoreResult } from "../../core/contracts/index.ts"
import { ANSWER_CLOSE, ANSWER_OPEN, decodeSync, type Rng, UsageError } from "../../core/host.ts"
import { alignEcho, alignPromptLogprobs } from "./align.ts"
import { type JsonClient, makeClient } from "./http.ts"
import type { OpenAIOptions } from "./options.ts"
import { chatMessages, renderPrompt, stripThinkOpen } from "./template.ts"
import { type ChatChoice, ChatResponse, type CompletionChoice, CompletionResponse, type ContentLogprobs, isLegacy, type LegacyLogprobs, ModelsResponse, PromptStyle } from "./wire.ts"

const FIELD = "policyOptions.baseUrl"

type Choice = CompletionChoice | typeof ChatChoice.Type

/** Per-token log-probs and ids of a sampled choice, from either logprobs shape. */
const sampledLogprobs = (l: LegacyLogprobs | ContentLogprobs | null | undefined): { lp: number[]; ids: number[] } => {
  if (!l) return { lp: [], ids: [] }
  if (isLegacy(l)) return { lp: l.token_logprobs.map((x) => x ?? 0), ids: l.tokens.map(() => -1) }
  const c = l.content ?? []
  return { lp: c.map((x) => x.logprob), ids: c.map((x) => x.id ?? -1) }
}

const finishOf = (c: Choice): Completion["finishReason"] => (c.finish_reason === "length" ? "length" : c.finish_reason === "stop" && c.stop_reason === null ? "eos" : "stop")

/** Put back a stop string the server cut off (see the header). */
export const restoreStop = (text: string, c: Choice, stop: string): string => {
  if (c.finish_reason !== "stop" || stop.length === 0 || text.endsWith(stop)) return text
  if (c.stop_reason === stop) return text + stop
  if (c.stop_reason === undefined && stop === ANSWER_CLOSE && text.lastIndexOf(ANSWER_OPEN) > text.lastIndexOf(ANSWER_CLOSE)) return text + stop
  return text
}

export interface OpenAIPolicy extends Policy {
  /** Remote: runs cannot be re-run bit for bit. */
  readonly remote: true
  readonly server: string
  /**
   * Fails (UsageError) when the server does not list the model; silent when it has no /models.
   * Returns what the server says of the model: its context (max_model_len) and, from
   * `ragen-bench serve`, the prompt style its trainer used.
   */
  checkModel(): Promise<ServedModel>
  /** Fails (UsageError) when the server cannot return prompt log-probs as configured. */
  checkScoring(): Promise<void>
}

export interface ServedModel {
  readonly maxModelLen?: number
  readonly promptStyle?: PromptStyle
}

/** A server's "prompt too long" reply (ours, or vLLM's wording), as prompt and context lengths. */
export const promptTooLong = (message: string): { prompt: number; context: number } | undefined => {
  const ours = /the prompt is (\d+) tokens; this model's context is (\d+)/.exec(message)
  if (ours) return { prompt: Number(ours[1]), context: Number(ours[2]) }
  const vllm = /maximum context length is (\d+) tokens[\s\S]*?\((\d+) in the (?:messages|prompt)/.exec(message)
  return vllm ? { prompt: Number(vllm[2]), context: Number(vllm[1]) } : undefined
}

export const makeOpenAIPolicy = (o: OpenAIOptions, env: Readonly<Record<string, string | undefined>> = process.env): OpenAIPolicy => {
  let url: URL
  try {
    url = new URL(o.baseUrl)
  } catch {
    throw new UsageError({ field: FIELD, message: `policyOptions.baseUrl "${o.baseUrl}" is not a URL; give the server root with /v1, e.g. http://127.0.0.1:8000/v1` })
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError({ field: FIELD, message: `policyOptions.baseUrl must be http:// or https://, got ${url.protocol}` })
  }
  if (url.username || url.password) {
    throw new UsageError({ field: FIELD, message: "policyOptions.baseUrl must not carry credentials; put the key in an environment variable and name it with apiKeyEnv" })
  }
  let apiKey: string | undefined
  if (o.apiKeyEnv !== undefined) {
    apiKey = env[o.apiKeyEnv]
    if (!apiKey) throw new UsageError({ field: "policyOptions.apiKeyEnv", message: `environment variable ${o.apiKeyEnv} (policyOptions.apiKeyEnv) is not set or empty; export it or drop apiKeyEnv` })
  }
  if (o.template === "custom" && (o.customTemplate === undefined || !o.customTemplate.includes("{user}"))) {
    throw new UsageError({ field: "policyOptions.customTemplate", message: 'template "custom" needs policyOptions.customTemplate with a {user} placeholder, e.g. "<s>[INST] {user} [/INST]"' })
  }
  const client: JsonClient = makeClient(o.baseUrl, apiKey, o)
  const tpl = { template: o.template, customTemplate: o.customTemplate, system: o.system }

  const decode = <T>(schema: Parameters<typeof decodeSync<T>>[0], json: unknown, path: string): T => {
    const r = decodeSync(schema, json, { strict: false })
    if (!r.ok) throw new UsageError({ field: FIELD, message: `${client.server}${path} sent a reply of the wrong shape: ${client.safe(r.message, 300)}` })
    return r.value
  }

  /** POST, with a "prompt too long" reply turned into one UsageError on field "prompt" (agent-flags adds the flag that helps). */
  const postSample = (path: string, body: unknown): Promise<unknown> =>
    client.post(path, body).catch((e: unknown) => {
      const long = e instanceof UsageError ? promptTooLong(e.message) : undefined
      if (!long) throw e
      throw new UsageError({ field: "prompt", message: `the prompt is ${long.prompt} tokens, over the context of ${o.model} (${long.context} tokens, max_model_len)` })
    })

  const sampleOne = async (prompt: string, s: SampleOptions, seed: number): Promise<Completion> => {
    const stop = s.stop ?? ANSWER_CLOSE
    const common: Record<string, unknown> = {
      model: o.model,
      max_tokens: s.maxTokens,
      temperature: s.temperature,
      top_p: s.topP,
      n: 1,
      ...(stop.length > 0 ? { stop: [stop] } : {}),
      ...(o.sendSeed ? { seed } : {})
    }
    if (s.minP > 0) {
      if (!o.sendMinP) throw new UsageError({ field: "minP", message: `min-p ${s.minP} was asked but policyOptions.sendMinP is false (the server does not accept min_p); set minP 0` })
      common.min_p = s.minP
    }
    let choice: Choice
    let text: string
    if (o.endpoint === "chat") {
      const r = decode(ChatResponse, await postSample("/chat/completions", { ...common, messages: chatMessages(prompt, o.system), logprobs: true }), "/chat/completions")
      if (r.choices.length !== 1) throw new UsageError({ field: FIELD, message: `${client.server}/chat/completions returned ${r.choices.length} choices for n = 1` })
      choice = r.choices[0]!
      text = stripThinkOpen(choice.message.content ?? "")
    } else {
      const r = decode(CompletionResponse, await postSample("/completions", { ...common, prompt: renderPrompt(prompt, tpl), logprobs: 1 }), "/completions")
      if (r.choices.length !== 1) throw new UsageError({ field: FIELD, message: `${client.server}/completions returned ${r.choices.length} choices for n = 1` })
      choice = r.choices[0]!
      text = choice.text
    }
    const { lp, ids } = sampledLogprobs(choice.logprobs)
    const logprobs = Float32Array.from(lp)
    return { text: restoreStop(text, choice, stop), tokens: Int32Array.from(ids), logprobs, rawLogprobs: Float32Array.from(logprobs), finishReason: finishOf(choice) }
  }

  const scoreOne = async (req: ScoreRequest): Promise<ScoreResult> => {
    if (typeof req.continuation !== "string") {
      throw new UsageError({
        field: "policy",
        message: "the openai policy scores text; it cannot score token ids of another policy (use it for evaluation and diagnostics, not as the trainer's reference)"
      })
    }
    if (req.continuation.length === 0) return { tokens: new Int32Array(0), logprobs: new Float32Array(0), entropy: new Float32Array(0) }
    if (o.scoring === "none")
      throw new UsageError({
        field: "policyOptions.scoring",
        message: "policyOptions.scoring is none, but scoring was asked (the MI diagnostics need prompt log-probs); use echo or prompt_logprobs with vLLM"
      })
    const head = renderPrompt(req.prompt, tpl) + o.scoreJoiner
    const text = head + req.continuation
    const boundary = head.length
    const body =
      o.scoring === "echo"
        ? { model: o.model, prompt: text, max_tokens: o.scoreMaxTokens, echo: true, logprobs: 1, temperature: 1 }
        : { model: o.model, prompt: text, max_tokens: 1, prompt_logprobs: 0, temperature: 1 }
    const r = decode(CompletionResponse, await client.post("/completions", body), "/completions")
    const c = r.choices[0]
    if (!c) throw new UsageError({ field: FIELD, message: `${client.server}/completions returned no choices for a scoring request` })
    let aligned
    if (o.scoring === "echo") {
      if (!c.logprobs || !isLegacy(c.logprobs)) {
        throw new UsageError({
          field: "policyOptions.scoring",
          message: `${client.server} cannot return prompt log-probs with echo (its reply has ${c.logprobs ? "only generated-token logprobs" : "no logprobs"}); llama.cpp's server and OpenAI's hosted models cannot, vLLM and SGLang can; try policyOptions.scoring prompt_logprobs (vLLM) or none`
        })
      }
      aligned = alignEcho(c.logprobs, text, boundary)
    } else {
      if (!c.prompt_logprobs)
        throw new UsageError({
          field: "policyOptions.scoring",
          message: `${client.server} returned no prompt_logprobs (a vLLM extension); use scoring echo, or none for servers without prompt log-probs`
        })
      aligned = alignPromptLogprobs(c.prompt_logprobs, text, boundary)
    }
    if (!aligned.ok) throw new UsageError({ field: "policyOptions.scoring", message: `${client.server}: ${client.safe(aligned.message, 300)}` })
    const n = aligned.value.logprobs.length
    return { tokens: new Int32Array(n).fill(-1), logprobs: Float32Array.from(aligned.value.logprobs), entropy: new Float32Array(n).fill(NaN) }
  }

  return {
    id: "openai",
    remote: true,
    server: client.server,
    sample: (prompts, s, rng: Rng) => {
      const seeds = prompts.map(() => rng.nextU32())
      return Promise.all(prompts.map((p, i) => sampleOne(p, s, seeds[i]!)))
    },
    score: (requests) => Promise.all(requests.map(scoreOne)),
    checkModel: async () => {
      let json: unknown
      try {
        json = await client.get("/models")
      } catch {
        return {} // servers without /models (or a transient failure): the first real request will say
      }
      const r = decodeSync(ModelsResponse, json, { strict: false })
      if (!r.ok) return {}
      const ids = r.value.data.map((m) => m.id)
      const card = r.value.data.find((m) => m.id === o.model)
      if (!card) {
        throw new UsageError({
          field: "policyOptions.model",
          message: `${client.server} serves ${client.safe(ids.map((x) => `"${x}"`).join(", ") || "no models", 300)}, not "${client.safe(o.model)}"; pass one of them as --model`
        })
      }
      const style = card.prompt_style === undefined || card.prompt_style === null ? undefined : decodeSync(PromptStyle, card.prompt_style, { strict: false })
      return { ...(typeof card.max_model_len === "number" ? { maxModelLen: card.max_model_len } : {}), ...(style?.ok ? { promptStyle: style.value } : {}) }
    },
    checkScoring: async () => {
      if (o.scoring === "none")
        throw new UsageError({ field: "policyOptions.scoring", message: "policyOptions.scoring is none; the MI diagnostics need prompt log-probs (echo or prompt_logprobs with vLLM)" })
      const [r] = await Promise.all([scoreOne({ prompt: "ragen-bench scoring probe\n<think>", continuation: "one two three" })])
      if (!r || r.logprobs.length === 0) {
        throw new UsageError({
          field: "policyOptions.scoring",
          message: `${client.server} returned no log-probs for the probe continuation; it cannot score prompts as configured (scoring ${o.scoring})`
        })
      }
    }
  }
}
