/**
 * `ragen-bench serve`: the embedded tinylm policy behind the subset of the OpenAI API the
 * remote policy uses, so that plugin is tested end to end against a real HTTP server.
 *   GET  /v1/models            id, root (what is served), max_model_len, prompt_style (wire.ts)
 *   POST /v1/completions       prompt (one string), max_tokens (0 allowed), temperature, top_p,
 *                              min_p, stop, logprobs, echo, seed, n = 1
 *   POST /v1/chat/completions  messages, the same sampling fields, logprobs (bool)
 * Semantics follow vLLM's: with echo the prompt's tokens come first in `logprobs` (the first
 * one null) and `text_offset` counts characters from the start of the prompt; a matched stop
 * string is cut from the text (its tokens stay in the log-probs) and named in `stop_reason`
 * (null for EOS). `top_logprobs` holds the chosen token only.
 * Seeds: a request's `seed` samples it with `new Rng(seed)`, which is what the remote policy
 * sends per prompt, so one prompt sampled in-process with `new Rng(seed)` gives the same
 * completion; without a seed the server's own Rng is used. Texts must fit the model's context
 * (a longer one is a 400: the server cannot tell where a prompt ends, so it does not truncate).
 * The HTTP layer (limits, web-page protection, the queue) is serve-http.ts.
 */
import { Schema } from "effect"
import { decodeSync, Rng } from "../../core/host.ts"
import { splitText, type Tokenizer } from "../tinylm/index.ts"
import type { TinyLMPolicy } from "../tinylm/plugin.ts"
import type { PromptStyle } from "./wire.ts"

export const DEFAULT_MAX_BODY = 1 << 20

export interface ServeOptions {
  readonly model: string
  /** What the model is, shown as /v1/models' `root` (e.g. "frozenlake-tiny@1d9d5391105c"). */
  readonly root?: string
  /** How the model's trainer rendered prompts (wire.ts PromptStyle), for clients' `--instructions auto`. */
  readonly promptStyle?: PromptStyle
  readonly maxBodyBytes?: number
  /** Seed of the server's Rng (requests without a seed). */
  readonly seed?: number
}

export interface Reply {
  readonly status: number
  readonly body: unknown
}

export const err = (status: number, message: string, type = "invalid_request_error"): Reply => ({ status, body: { error: { message, type, code: status } } })

const Stop = Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(Schema.String)])))
const Sampling = {
  model: Schema.optional(Schema.String),
  max_tokens: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))),
  temperature: Schema.optional(Schema.NullOr(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)))),
  top_p: Schema.optional(Schema.NullOr(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })))),
  min_p: Schema.optional(Schema.NullOr(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })))),
  stop: Stop,
  seed: Schema.optional(Schema.NullOr(Schema.Int)),
  n: Schema.optional(Schema.NullOr(Schema.Int)),
  stream: Schema.optional(Schema.NullOr(Schema.Boolean))
}
const CompletionRequest = Schema.Struct({
  ...Sampling,
  prompt: Schema.String,
  logprobs: Schema.optional(Schema.NullOr(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))),
  echo: Schema.optional(Schema.NullOr(Schema.Boolean))
})
const ChatRequest = Schema.Struct({
  ...Sampling,
  messages: Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.String })),
  logprobs: Schema.optional(Schema.NullOr(Schema.Boolean))
})

/**
 * The tokens of a text as strings with their character offsets, split exactly as the tinylm
 * tokenizer's encode splits it (digits one piece each; an unknown word whose characters are
 * all known falls back to its characters; else one <unk> piece for the word).
 */
export const pieces = (tok: Tokenizer, text: string): Array<{ piece: string; offset: number }> => {
  const out: Array<{ piece: string; offset: number }> = []
  const known = (w: string) => tok.id(w) !== tok.unk
  let cursor = 0
  for (const w of splitText(text)) {
    const at = text.indexOf(w, cursor)
    const start = at >= 0 ? at : cursor
    const chars = Array.from(w)
    if (/^[0-9]+$/.test(w) || (!known(w) && chars.length > 1 && chars.every(known))) {
      let off = start
      for (const ch of chars) out.push({ piece: ch, offset: off }), (off += ch.length)
    } else out.push({ piece: w, offset: start })
    cursor = start + w.length
  }
  return out
}

/** Generated tokens as strings with offsets into the decoded text (decode is incremental: digits glue). */
const generatedPieces = (policy: TinyLMPolicy, tokens: Int32Array): Array<{ piece: string; offset: number }> => {
  const out: Array<{ piece: string; offset: number }> = []
  let prev = ""
  for (let i = 0; i < tokens.length; i++) {
    const cur = policy.tokenizer.decode(tokens.subarray(0, i + 1))
    // a token decoded past <eos> adds nothing; its text is empty
    const piece = cur.startsWith(prev) ? cur.slice(prev.length) : cur
    const lead = piece.length - piece.trimStart().length
    out.push({ piece: piece.trimStart() || piece, offset: prev.length + (piece.trimStart() ? lead : 0) })
    prev = cur
  }
  return out
}

export class TinyLMServer {
  private readonly rng: Rng
  constructor(
    readonly policy: TinyLMPolicy,
    readonly options: ServeOptions
  ) {
    this.rng = new Rng(options.seed ?? 0)
  }

  private get ctx(): number {
    return this.policy.settings.config.ctx
  }

  /** Teacher-forced log-probs of every token of `text` but the first (null), as echo returns them. */
  private async echoLogprobs(text: string): Promise<{ tokens: string[]; offsets: number[]; logprobs: Array<number | null> } | Reply> {
    const ps = pieces(this.policy.tokenizer, text)
    if (ps.length > this.ctx) return err(400, `the text is ${ps.length} tokens; this model's context is ${this.ctx}`)
    if (ps.length === 0) return { tokens: [], offsets: [], logprobs: [] }
    const ids = this.policy.tokenizer.encode(text)
    if (ids.length !== ps.length) return err(500, `tokenizer pieces (${ps.length}) and ids (${ids.length}) disagree`, "server_error")
    const [r] = await this.policy.score([{ prompt: ps[0]!.piece, continuation: ids.subarray(1) }])
    return { tokens: ps.map((p) => p.piece), offsets: ps.map((p) => p.offset), logprobs: [null, ...Array.from(r!.logprobs, Number)] }
  }

  private async generate(prompt: string, b: typeof CompletionRequest.Type | typeof ChatRequest.Type, maxTokens: number) {
    const stop = b.stop === undefined || b.stop === null ? undefined : typeof b.stop === "string" ? b.stop : b.stop[0]
    const rng = b.seed === undefined || b.seed === null ? this.rng.split("request") : new Rng(b.seed)
    const [c] = await this.policy.sample(
      [prompt],
      {
        temperature: b.temperature ?? 1,
        topP: b.top_p ?? 1,
        minP: b.min_p ?? 0,
        maxTokens,
        stop: stop ?? ""
      },
      rng
    )
    let text = c!.text
    let stopReason: string | null = null
    const finish = c!.finishReason === "length" ? "length" : "stop"
    // OpenAI semantics: the stop string is not part of the text; vLLM names it in stop_reason.
    if (stop !== undefined && stop.length > 0 && c!.finishReason === "stop" && text.endsWith(stop)) {
      text = text.slice(0, text.length - stop.length)
      stopReason = stop
    }
    return { completion: c!, text, finish, stopReason }
  }

  private checks(b: { n?: number | null | undefined; stream?: boolean | null | undefined; model?: string | undefined }): Reply | undefined {
    if (b.n !== undefined && b.n !== null && b.n !== 1) return err(400, "n must be 1")
    if (b.stream) return err(400, "stream is not supported")
    if (b.model !== undefined && b.model !== this.options.model) return err(404, `model "${b.model}" is not served; GET /v1/models lists "${this.options.model}"`, "not_found_error")
    return undefined
  }

  async completions(json: unknown): Promise<Reply> {
    const d = decodeSync(CompletionRequest, json, { strict: false })
    if (!d.ok) return err(400, d.message)
    const b = d.value
    const bad = this.checks(b)
    if (bad) return bad
    const maxTokens = b.max_tokens ?? 16
    if (maxTokens > this.ctx - 1) return err(400, `max_tokens ${maxTokens} is over this model's context (${this.ctx} tokens)`)
    const promptTokens = pieces(this.policy.tokenizer, b.prompt).length
    if (promptTokens > this.ctx - (maxTokens > 0 ? 1 : 0)) return err(400, `the prompt is ${promptTokens} tokens; this model's context is ${this.ctx} (max_model_len)`)
    const want = b.logprobs !== undefined && b.logprobs !== null
    let tokens: string[] = [],
      offsets: number[] = [],
      lps: Array<number | null> = []
    let text = ""
    if (b.echo) {
      const e = await this.echoLogprobs(b.prompt)
      if ("status" in e) return e
      tokens = e.tokens
      offsets = e.offsets
      lps = e.logprobs
      text = b.prompt
    }
    let finish: string = "length"
    let stopReason: string | null = null
    let generated = 0
    if (maxTokens > 0) {
      const g = await this.generate(b.prompt, b, maxTokens)
      const base = text.length
      for (const p of generatedPieces(this.policy, g.completion.tokens)) {
        tokens.push(p.piece)
        offsets.push(base + p.offset)
      }
      for (const x of g.completion.rawLogprobs) lps.push(x)
      generated = g.completion.tokens.length
      text += g.text
      finish = g.finish
      stopReason = g.stopReason
    }
    return {
      status: 200,
      body: {
        id: "cmpl-ragen-bench",
        object: "text_completion",
        model: this.options.model,
        choices: [
          {
            index: 0,
            text,
            finish_reason: finish,
            stop_reason: stopReason,
            logprobs: want ? { tokens, token_logprobs: lps, text_offset: offsets, top_logprobs: tokens.map((t, i) => (lps[i] === null ? null : { [t]: lps[i]! })) } : null
          }
        ],
        usage: { prompt_tokens: promptTokens, completion_tokens: generated, total_tokens: promptTokens + generated }
      }
    }
  }

  async chat(json: unknown): Promise<Reply> {
    const d = decodeSync(ChatRequest, json, { strict: false })
    if (!d.ok) return err(400, d.message)
    const b = d.value
    const bad = this.checks(b)
    if (bad) return bad
    // The embedded model has no chat format: system and user texts, then "<think>" as our prompts end.
    const prompt = [...b.messages.filter((m) => m.role === "system" || m.role === "user").map((m) => m.content), "<think>"].join("\n")
    const maxTokens = b.max_tokens ?? 16
    if (maxTokens < 1 || maxTokens > this.ctx - 1) return err(400, `max_tokens must be in 1..${this.ctx - 1}`)
    const promptTokens = pieces(this.policy.tokenizer, prompt).length
    if (promptTokens > this.ctx - 1) return err(400, `the prompt is ${promptTokens} tokens; this model's context is ${this.ctx} (max_model_len)`)
    const g = await this.generate(prompt, b, maxTokens)
    const ps = generatedPieces(this.policy, g.completion.tokens)
    return {
      status: 200,
      body: {
        id: "chatcmpl-ragen-bench",
        object: "chat.completion",
        model: this.options.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: g.text },
            finish_reason: g.finish,
            stop_reason: g.stopReason,
            logprobs: b.logprobs ? { content: ps.map((p, i) => ({ token: p.piece, logprob: g.completion.rawLogprobs[i]!, id: g.completion.tokens[i]!, bytes: null, top_logprobs: [] })) } : null
          }
        ],
        usage: { prompt_tokens: promptTokens, completion_tokens: g.completion.tokens.length, total_tokens: promptTokens + g.completion.tokens.length }
      }
    }
  }

  models(): Reply {
    const o = this.options
    const card = { id: o.model, object: "model", owned_by: "ragen-bench", root: o.root ?? o.model, max_model_len: this.ctx, ...(o.promptStyle ? { prompt_style: o.promptStyle } : {}) }
    return { status: 200, body: { object: "list", data: [card] } }
  }
}
