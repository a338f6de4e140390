/**
 * The tinylm TrainablePolicy: tokenizer + GPT + AdamW + KV-cache sampler behind the
 * core/contracts/policy.ts interface. Rows (prompt + continuation) that share a prompt share its
 * activations (prefix.ts); items are processed in chunks that fit the model's arena; when a
 * minibatch spans several chunks, the loss sees all forwards at once and each chunk is then
 * recomputed for its backward (activations are only kept for one chunk).
 * Sequences longer than ctx lose prompt tokens from the left.
 */
import type {
  Completion,
  LossFn,
  LossOutput,
  Policy,
  SampleOptions,
  ScoreRequest,
  ScoreResult,
  ScoringExport,
  SftOptions,
  SftProgress,
  SftResult,
  TeacherTurn,
  TokenForward,
  TrainablePolicy,
  TrainItem
} from "../../core/contracts/index.ts"
import { ANSWER_CLOSE, Rng, UsageError } from "../../core/host.ts"
import { type AdamWConfig, adamwStep, globalNorm, type LrSchedule, lrFactor } from "./adamw.ts"
import { checkConfig, type ModelConfig } from "./config.ts"
import { kernels } from "./kernels/dispatch.ts"
import { GPT } from "./model.ts"
import { type Chunk, loadChunk, planChunks } from "./prefix.ts"
import { metadataJson, readSafetensors, writeSafetensors } from "./safetensors.ts"
import { sampleChunk, SamplerScratch } from "./sampler.ts"
import { runSft } from "./sft.ts"
import { Tokenizer, type TokenizerJson } from "./tokenizer.ts"

export interface TinyLMSettings {
  readonly config: ModelConfig
  readonly seed: number
  readonly adam: AdamWConfig
  readonly schedule: LrSchedule
  /** Rows per forward chunk (activation memory scales with it). */
  readonly microBatch: number
  /** Rows that continue the same prompt compute it once (prefix.ts; default true). */
  readonly sharePrefix?: boolean
  /** The value loss also trains the shared trunk (GPT.valueTrunkGrad; default false). */
  readonly valueTrunkGrad?: boolean
}

export const FORMAT = "ragen-bench-tinylm-1"

/** Tells two policies' weights apart in ScoringExport.version (a snapshot starts at weightsVersion 0 too). */
let instances = 0

/** A loaded chunk: Bp prefix rows of Tp positions, B rows of Tb, M scored positions. */
interface Shape {
  readonly Bp: number
  readonly Tp: number
  readonly B: number
  readonly Tb: number
  readonly M: number
}

interface Row {
  readonly tokens: Int32Array // prompt + continuation, ≤ ctx
  readonly promptLen: number
  /** Shared-prefix split (prefix.ts): the prompt but its last token, which predicts the first scored one. */
  readonly split: number
  /** Continuation tokens scored (the first `scored` of the continuation). */
  readonly scored: number
  readonly total: number // continuation length requested
}

export class TinyLMPolicy implements TrainablePolicy {
  readonly id = "tinylm"
  readonly model: GPT
  readonly tokenizer: Tokenizer
  readonly settings: TinyLMSettings
  /** Optimizer steps taken. */
  t = 0
  /** Counts every change of the weights (an optimizer step, a load): scorers that cache weights (WebGPU) re-upload on a change. */
  weightsVersion = 0
  private readonly scratch: SamplerScratch
  private readonly promptCache = new Map<string, Int32Array>()
  private readonly instance = ++instances

  constructor(tokenizer: Tokenizer, settings: TinyLMSettings, trainable = true) {
    const bad = checkConfig(settings.config)
    if (bad) throw new UsageError({ field: `policyOptions.${bad.field}`, message: `tinylm: ${bad.message}` })
    if (tokenizer.size > settings.config.vocab) {
      throw new UsageError({ field: "policyOptions.vocab", message: `tinylm: the tokenizer has ${tokenizer.size} words but vocab is ${settings.config.vocab}; raise vocab or leave it unset` })
    }
    this.tokenizer = tokenizer
    this.settings = settings
    this.model = new GPT(settings.config, settings.microBatch, trainable)
    this.model.valueTrunkGrad = settings.valueTrunkGrad ?? false
    this.model.init(new Rng(settings.seed).split("tinylm-init"))
    this.scratch = new SamplerScratch(settings.config.vocab)
  }

  get parameterCount(): number {
    return this.model.numParams
  }

  encodePrompt(prompt: string): Int32Array {
    let t = this.promptCache.get(prompt)
    if (!t) {
      if (this.promptCache.size > 20000) this.promptCache.clear()
      t = this.tokenizer.encode(prompt)
      if (t.length === 0) t = Int32Array.of(this.tokenizer.newline)
      this.promptCache.set(prompt, t)
    }
    return t
  }

  private row(prompt: string, cont: Int32Array): Row {
    const T = this.settings.config.ctx
    const p = this.encodePrompt(prompt)
    const scored = Math.min(cont.length, T - 1)
    const keep = Math.min(p.length, T - scored)
    const tokens = new Int32Array(keep + scored)
    tokens.set(p.subarray(p.length - keep), 0)
    tokens.set(cont.subarray(0, scored), keep)
    return { tokens, promptLen: keep, split: this.settings.sharePrefix === false ? 0 : keep - 1, scored, total: cont.length }
  }

  /** Load a chunk of rows into the model's input views (tokens, prefixes, gathered targets). */
  private loadRows(rows: ReadonlyArray<Row>, c: Chunk): Shape {
    const m = this.model
    const [Bp, Tp, B, Tb] = loadChunk(m, rows, c, this.tokenizer.pad)
    let M = 0
    for (let b = 0; b < B; b++) {
      const r = rows[c.rows[b]!]!
      // the position that predicts scored token i, within the row's own block
      const first = b * Tb + r.promptLen - 1 - (Bp > 0 ? r.split : 0)
      for (let i = 0; i < r.scored; i++) {
        m.gather[M] = first + i
        m.targets[M] = r.tokens[r.promptLen + i]!
        M++
      }
    }
    return { Bp, Tp, B, Tb, M }
  }

  /** Forward chunks over rows: grouped by shared prompt and as many as fit the arena (prefix.ts). */
  private rowChunks(rows: ReadonlyArray<Row>): Chunk[] {
    return planChunks(rows, this.model)
  }

  private chunks<T>(xs: ReadonlyArray<T>): T[][] {
    const out: T[][] = []
    for (let i = 0; i < xs.length; i += this.settings.microBatch) out.push(xs.slice(i, i + this.settings.microBatch))
    return out
  }

  private forwardRows(rows: ReadonlyArray<Row>, c: Chunk): { shape: Shape; fwd: TokenForward[] } {
    const shape = this.loadRows(rows, c)
    this.model.forward(shape.B, shape.Tb, shape.M, shape.Bp, shape.Tp)
    const fwd: TokenForward[] = []
    let off = 0
    for (const i of c.rows) {
      const r = rows[i]!
      const lp = new Float32Array(r.total),
        en = new Float32Array(r.total),
        va = new Float32Array(r.total)
      lp.set(this.model.logprob.subarray(off, off + r.scored))
      en.set(this.model.entropy.subarray(off, off + r.scored))
      va.set(this.model.values.subarray(off, off + r.scored))
      off += r.scored
      fwd.push({ logprobs: lp, entropy: en, values: va })
    }
    return { shape, fwd }
  }

  async sample(prompts: ReadonlyArray<string>, options: SampleOptions, rng: Rng): Promise<Completion[]> {
    const T = this.settings.config.ctx
    const maxTokens = Math.max(1, Math.min(options.maxTokens, T - 1))
    const o: SampleOptions = { ...options, maxTokens }
    const stop = options.stop ?? ANSWER_CLOSE
    const stopIds = this.tokenizer.encode(stop)
    const stopToken = stopIds.length === 1 ? stopIds[0]! : -1
    const out: Completion[] = []
    for (const chunk of this.chunks(prompts)) {
      // The prompt is kept whole when it fits (its tail when longer than ctx − 1) and generation
      // stops at the context's end: then scoring the completion (row()) sees exactly this prompt.
      // Cutting the prompt to ctx − maxTokens instead made a 68-token Sokoban prompt lose its top
      // grid row in sampling but not in scoring, so PPO/GRPO ratios were off from the first step.
      const encoded = chunk.map((p) => {
        const t = this.encodePrompt(p)
        return t.subarray(t.length - Math.min(t.length, T - 1))
      })
      for (const r of sampleChunk(this.model, encoded, o, rng, stopToken, this.tokenizer.eos, this.scratch, this.settings.sharePrefix !== false)) {
        let text = this.tokenizer.decode(r.tokens)
        let finish = r.finishReason
        // multi-token stop strings: cut after the first occurrence
        if (stopToken < 0 && stop.length > 0) {
          const k = text.indexOf(stop)
          if (k >= 0) {
            text = text.slice(0, k + stop.length)
            finish = "stop"
          }
        }
        out.push({ text, tokens: r.tokens, logprobs: r.logprobs, rawLogprobs: r.rawLogprobs, finishReason: finish })
      }
    }
    return out
  }

  async score(requests: ReadonlyArray<ScoreRequest>): Promise<ScoreResult[]> {
    const conts = requests.map((r) => (typeof r.continuation === "string" ? this.tokenizer.encode(r.continuation) : r.continuation))
    const fwd = this.forwardAll(requests.map((r, i) => this.row(r.prompt, conts[i]!)))
    return requests.map((_, i) => ({ tokens: conts[i]!, logprobs: fwd[i]!.logprobs, entropy: fwd[i]!.entropy }))
  }

  async forward(items: ReadonlyArray<TrainItem>): Promise<TokenForward[]> {
    return this.forwardAll(items.map((it) => this.row(it.prompt, it.tokens)))
  }

  /** Forward of every row, in the rows' order. */
  private forwardAll(rows: ReadonlyArray<Row>): TokenForward[] {
    const out: TokenForward[] = new Array(rows.length)
    for (const c of this.rowChunks(rows)) {
      const { fwd } = this.forwardRows(rows, c)
      c.rows.forEach((i, k) => (out[i] = fwd[k]!))
    }
    return out
  }

  async accumulate(items: ReadonlyArray<TrainItem>, loss: LossFn): Promise<LossOutput> {
    const rows = items.map((it) => this.row(it.prompt, it.tokens))
    const chunks = this.rowChunks(rows)
    const forwards: TokenForward[] = new Array(rows.length)
    let last: Shape | undefined
    for (const c of chunks) {
      const r = this.forwardRows(rows, c)
      c.rows.forEach((i, k) => (forwards[i] = r.fwd[k]!))
      last = r.shape
    }
    const result = loss(forwards)
    if (result.grads.length !== items.length) throw new Error(`tinylm: the loss returned ${result.grads.length} gradients for ${items.length} items`)
    // the last chunk's activations are still in place: its backward first, then recompute the others
    for (let k = chunks.length - 1; k >= 0; k--) {
      const c = chunks[k]!
      let shape: Shape
      if (k === chunks.length - 1 && last) shape = last
      else {
        shape = this.loadRows(rows, c)
        this.model.forward(shape.B, shape.Tb, shape.M, shape.Bp, shape.Tp)
      }
      let off = 0
      for (const i of c.rows) {
        const g = result.grads[i]!,
          n = rows[i]!.scored
        this.model.dlogprob.set(g.dLogprobs.subarray(0, n), off)
        this.model.dentropy.set(g.dEntropy.subarray(0, n), off)
        this.model.dvalues.set(g.dValues.subarray(0, n), off)
        off += n
      }
      this.model.backward(shape.B, shape.Tb, shape.M, shape.Bp, shape.Tp)
    }
    return result
  }

  /** Share of continuation tokens whose argmax prediction is the token (teacher forcing). */
  tokenAccuracy(items: ReadonlyArray<TrainItem>): number {
    const V = this.settings.config.vocab,
      Vp = this.model.Vp
    let hit = 0,
      n = 0
    const rows = items.map((it) => this.row(it.prompt, it.tokens))
    for (const c of this.rowChunks(rows)) {
      const { Bp, Tp, B, Tb, M } = this.loadRows(rows, c)
      this.model.forward(B, Tb, M, Bp, Tp)
      const z = this.model.logits
      for (let m = 0; m < M; m++) {
        let arg = 0
        for (let i = 1; i < V; i++) if (z[m * Vp + i]! > z[m * Vp + arg]!) arg = i
        if (arg === this.model.targets[m]) hit++
        n++
      }
    }
    return n > 0 ? hit / n : 0
  }

  gradNorm(): number {
    return globalNorm(this.model.grads)
  }

  step(options: { readonly lr: number; readonly maxGradNorm: number }): number {
    const norm = this.gradNorm()
    const scale = options.maxGradNorm > 0 && Number.isFinite(norm) ? Math.min(1, options.maxGradNorm / (norm + 1e-6)) : 1
    this.t++
    this.weightsVersion++
    const m = this.model
    adamwStep(m.params, m.grads, m.m, m.v, m.tensors, options.lr * lrFactor(this.settings.schedule, this.t), this.t, scale, this.settings.adam, kernels.adamwUpdate)
    this.zeroGrad()
    return norm
  }

  zeroGrad(): void {
    this.model.grads.fill(0)
  }

  sft(turns: ReadonlyArray<TeacherTurn>, options: SftOptions, onProgress?: (p: SftProgress) => void): Promise<SftResult> {
    return runSft(this, turns, options, onProgress)
  }

  resetOptimizer(): void {
    this.model.m.fill(0)
    this.model.v.fill(0)
    this.t = 0
  }

  /** The GPT's weights by name (views of model.params), its config and the tokenizer (the WebGPU scorer). */
  exportForScoring(): ScoringExport {
    const tok = this.tokenizer
    return {
      architecture: "gpt2",
      config: { ...this.settings.config },
      weights: new Map(this.model.tensors.map((t) => [t.name, this.model.p[t.name]!])),
      sharePrefix: this.settings.sharePrefix !== false,
      encodePrompt: (s) => this.encodePrompt(s),
      encode: (s) => tok.encode(s),
      decode: (t) => tok.decode(t),
      version: () => `${this.instance}.${this.weightsVersion}`
    }
  }

  async snapshot(): Promise<Policy> {
    const copy = new TinyLMPolicy(this.tokenizer, this.settings, false)
    copy.model.params.set(this.model.params)
    return { id: "tinylm-snapshot", sample: (p, o, r) => copy.sample(p, o, r), score: (r) => copy.score(r), exportForScoring: () => copy.exportForScoring() }
  }

  async save(path: string, options: { readonly optimizer?: boolean } = {}): Promise<void> {
    const m = this.model
    const tensors = []
    for (const t of m.tensors) tensors.push({ name: t.name, shape: t.shape, data: m.p[t.name]! })
    if (m.trainable && options.optimizer !== false) {
      for (const t of m.tensors) tensors.push({ name: `adam_m.${t.name}`, shape: t.shape, data: m.m.subarray(t.offset, t.offset + t.size) })
      for (const t of m.tensors) tensors.push({ name: `adam_v.${t.name}`, shape: t.shape, data: m.v.subarray(t.offset, t.offset + t.size) })
    }
    writeSafetensors(path, tensors, {
      format: FORMAT,
      config: JSON.stringify(this.settings.config),
      tokenizer: JSON.stringify(this.tokenizer.toJson()),
      step: String(this.t)
    })
  }

  async load(path: string): Promise<void> {
    this.weightsVersion++
    const f = readCheckpoint(path)
    const mine = this.settings.config
    for (const k of ["vocab", "ctx", "d", "layers", "heads"] as const) {
      if (f.config[k] !== mine[k]) {
        throw new UsageError({
          field: `checkpoint.config.${k}`,
          message: `checkpoint ${path} has ${k} = ${f.config[k]} but this policy has ${k} = ${mine[k]}; use matching policyOptions (preset/${k}) or another checkpoint`
        })
      }
    }
    const words = f.tokenizer.words
    if (words.length !== this.tokenizer.size || words.some((w, i) => w !== this.tokenizer.words[i])) {
      throw new UsageError({ field: "checkpoint.tokenizer", message: `checkpoint ${path} was trained with another vocabulary (another env?); run sft for this env or pick its checkpoint` })
    }
    const m = this.model
    // Every tensor is checked (names, shapes, the Adam moments) before any weight is replaced.
    const bad = checkpointTensorsProblem(f.file.tensors, m.tensors)
    if (bad) throw new UsageError({ field: `checkpoint.${bad.tensor}`, message: `checkpoint ${path}: ${bad.message}` })
    for (const t of m.tensors) {
      const x = f.file.tensors.get(t.name)!
      m.p[t.name]!.set(x.data)
      if (m.trainable) {
        const mm = f.file.tensors.get(`adam_m.${t.name}`),
          vv = f.file.tensors.get(`adam_v.${t.name}`)
        m.m.fill(0, t.offset, t.offset + t.size)
        m.v.fill(0, t.offset, t.offset + t.size)
        if (mm && vv) {
          m.m.set(mm.data, t.offset)
          m.v.set(vv.data, t.offset)
        }
      }
    }
    this.t = f.step
    this.zeroGrad()
  }
}

export interface Checkpoint {
  readonly config: ModelConfig
  readonly tokenizer: TokenizerJson
  readonly step: number
  readonly file: ReturnType<typeof readSafetensors>
}

const sameShape = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): boolean => a.length === b.length && a.every((d, i) => d === b[i])
const fmtShape = (s: ReadonlyArray<number>): string => `[${s.join(", ")}]`

/**
 * Why a checkpoint's tensors cannot be loaded into a model of `expected` tensors (undefined when
 * they can): a tensor missing, of another shape (a reversed [d, vocab] too: its size alone agrees),
 * Adam moments of another shape or one without the other, or a tensor the model does not have.
 */
export const checkpointTensorsProblem = (
  tensors: ReadonlyMap<string, { readonly shape: ReadonlyArray<number> }>,
  expected: ReadonlyArray<{ readonly name: string; readonly shape: ReadonlyArray<number> }>
): { tensor: string; message: string } | undefined => {
  const known = new Set<string>()
  for (const t of expected) {
    for (const name of [t.name, `adam_m.${t.name}`, `adam_v.${t.name}`]) {
      known.add(name)
      const x = tensors.get(name)
      if (!x) {
        if (name === t.name) return { tensor: name, message: `tensor ${name} is missing (this model has it, shape ${fmtShape(t.shape)})` }
        continue
      }
      if (!sameShape(x.shape, t.shape)) return { tensor: name, message: `tensor ${name} has shape ${fmtShape(x.shape)}, this model's is ${fmtShape(t.shape)}` }
    }
    if (tensors.has(`adam_m.${t.name}`) !== tensors.has(`adam_v.${t.name}`)) {
      const [has, lacks] = tensors.has(`adam_m.${t.name}`) ? ["adam_m", "adam_v"] : ["adam_v", "adam_m"]
      return { tensor: `${lacks}.${t.name}`, message: `tensor ${has}.${t.name} has no ${lacks}.${t.name} (the optimizer state is torn)` }
    }
  }
  for (const name of [...tensors.keys()].sort()) {
    if (!known.has(name)) return { tensor: name, message: `tensor ${name.slice(0, 80)} is not one of this model's (another model, or an edited file)` }
  }
  return undefined
}

const posInt = (v: unknown): boolean => typeof v === "number" && Number.isSafeInteger(v) && v > 0

/** Why the checkpoint's config, tokenizer or step metadata is not what a tinylm checkpoint holds (undefined when it is). */
const metadataProblem = (config: unknown, tokenizer: unknown, step: string | undefined): { field: string; message: string } | undefined => {
  if (config === null || typeof config !== "object" || Array.isArray(config)) return { field: "config", message: 'metadata entry "config" is not an object' }
  for (const k of ["vocab", "ctx", "d", "layers", "heads"] as const) {
    const v = (config as Record<string, unknown>)[k]
    if (!posInt(v)) return { field: `config.${k}`, message: `metadata entry "config": ${k} is ${JSON.stringify(v)?.slice(0, 40) ?? "missing"}, not a positive integer` }
  }
  const words = (tokenizer as { words?: unknown } | null)?.words
  if (tokenizer === null || typeof tokenizer !== "object" || !Array.isArray(words) || !words.every((w) => typeof w === "string")) {
    return { field: "tokenizer", message: 'metadata entry "tokenizer" is not { words: [strings] }' }
  }
  if (step !== undefined && !/^\d{1,15}$/.test(step)) return { field: "step", message: `metadata entry "step" is ${JSON.stringify(step.slice(0, 40))}, not a step number` }
  return undefined
}

export const readCheckpoint = (path: string): Checkpoint => {
  let file
  try {
    file = readSafetensors(path)
  } catch (e) {
    throw new UsageError({ field: "checkpoint", message: `cannot read checkpoint ${path}: ${(e as Error).message}` })
  }
  const md = file.metadata
  if (md.format !== FORMAT) throw new UsageError({ field: "checkpoint", message: `${path} is not a tinylm checkpoint (metadata format ${md.format ?? "missing"}, expected ${FORMAT})` })
  let config: unknown
  let tokenizer: unknown
  try {
    config = metadataJson(file, "config")
    tokenizer = metadataJson(file, "tokenizer")
  } catch (e) {
    throw new UsageError({ field: "checkpoint", message: `cannot read checkpoint ${path}: ${(e as Error).message}` })
  }
  const bad = metadataProblem(config, tokenizer, md.step)
  if (bad) throw new UsageError({ field: `checkpoint.${bad.field}`, message: `cannot read checkpoint ${path}: ${bad.message}` })
  return { config: config as ModelConfig, tokenizer: tokenizer as TokenizerJson, step: Number(md.step ?? 0), file }
}

/** A policy with the checkpoint's own config and tokenizer, loaded. */
export const policyFromCheckpoint = async (path: string, rest: Omit<TinyLMSettings, "config">): Promise<TinyLMPolicy> => {
  const c = readCheckpoint(path)
  const p = new TinyLMPolicy(Tokenizer.fromJson(c.tokenizer), { ...rest, config: c.config })
  await p.load(path)
  return p
}
