/**
 * The tinylm forward pass on a GPUDevice (any runtime: Deno's or a browser's navigator.gpu, or
 * Dawn's through the `webgpu` npm package): rows of teacher-forced scoring in, per row the sum
 * and the per-token mean of the scored tokens' log-probs out. Works on a device it is handed;
 * acquiring one is adapter.ts's job. No Node or Bun API here (the browser page bundles it).
 *
 * - Weights go up once per version (setWeights skips a version it already holds).
 * - Rows that continue the same prompt share its activations, as in the CPU policy
 *   (tinylm/prefix.ts), but packed without padding (layout.ts packChunks): each distinct prefix
 *   once, then each row's own tokens, up to the engine's position capacity per chunk.
 * - Each chunk is one submission of 4 + 10·L dispatches (5 + 10·L with per-token outputs: the value
 *   head) (wgsl.ts) through one bind group;
 *   per-dispatch parameters sit in 256-byte uniform slots written once per chunk. Every
 *   chunk's per-row results are copied into one readback buffer, mapped once per call.
 * - Failures are GpuFailure with a kind: device-lost, out-of-memory (from the error scope),
 *   validation, limits (the config or the device's limits do not fit).
 *
 * Layout of `a` (floats, cap = positions per chunk): RES (cap,C) residual stream, LN (cap,C),
 * QKV (cap,3C), ATTY (cap,C), PROJ (cap,C), FCH (cap,4C), HSEL (cap,C), LOGITS (cap,Vp),
 * LP, ENT, VAL (cap each: per scored position its log-prob, entropy, value), PAIR (cap,2). Layout of `ids` (i32, cap each): tokens, segment of each position,
 * per segment its start, prefix start and prefix length; gather map, targets; per row its
 * first gathered index, scored count and continuation length.
 */
import { type ModelConfig, paddedVocab } from "../tinylm/config.ts"
import { type PackedChunk, packChunks, parameterLayout, type ScoreRow } from "./layout.ts"
import { FIELDS, type KernelName, MAX_HEAD, MM_TILE, SHADERS, WG } from "./wgsl.ts"

export type GpuFailureKind = "device-lost" | "out-of-memory" | "validation" | "limits"

/** A failure of the GPU path; the scorer turns it into a typed error and falls back to the CPU. */
export class GpuFailure extends Error {
  readonly kind: GpuFailureKind
  constructor(kind: GpuFailureKind, message: string) {
    super(message)
    this.name = "GpuFailure"
    this.kind = kind
  }
}

// WebGPU's usage and map-mode flags by value: Dawn under Bun does not define the globals.
const U = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 } as const
const MAP_READ_MODE = 0x1
/** Bytes per uniform slot (WebGPU's largest minUniformBufferOffsetAlignment). */
const SLOT = 256
const MAX_WG = 65535

/** The eight pipelines and their shared layout, compiled once per device. */
export class Pipelines {
  private constructor(
    readonly layout: GPUBindGroupLayout,
    readonly byName: Record<KernelName, GPUComputePipeline>
  ) {}

  static async create(device: GPUDevice): Promise<Pipelines> {
    const layout = device.createBindGroupLayout({
      entries: [
        { binding: 0, visibility: 4 /* COMPUTE */, buffer: { type: "uniform", hasDynamicOffset: true, minBindingSize: 64 } },
        { binding: 1, visibility: 4, buffer: { type: "read-only-storage" } },
        { binding: 2, visibility: 4, buffer: { type: "storage" } },
        { binding: 3, visibility: 4, buffer: { type: "read-only-storage" } }
      ]
    })
    const pl = device.createPipelineLayout({ bindGroupLayouts: [layout] })
    const byName = {} as Record<KernelName, GPUComputePipeline>
    await Promise.all(
      (Object.keys(SHADERS) as KernelName[]).map(async (k) => {
        const module = device.createShaderModule({ label: k, code: SHADERS[k] })
        try {
          byName[k] = await device.createComputePipelineAsync({ label: k, layout: pl, compute: { module, entryPoint: "main" } })
        } catch (e) {
          const info = await module.getCompilationInfo?.().catch(() => undefined)
          const msgs = info?.messages.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`).join("; ") ?? ""
          throw new GpuFailure("validation", `webgpu: kernel ${k} does not compile: ${(e as Error).message} ${msgs}`)
        }
      })
    )
    return new Pipelines(layout, byName)
  }
}

/** Workgroup counts for `groups` workgroups, folded into y past the 65,535 per-dimension limit. */
const fold = (groups: number): [number, number] => (groups <= MAX_WG ? [groups, 1] : [MAX_WG, Math.ceil(groups / MAX_WG)])

/** Records a chunk's dispatches: each one's parameters into its uniform slot, then encodes them. */
class Recorder {
  readonly slots: Uint32Array
  private n = 0
  private readonly ops: Array<{ k: KernelName; x: number; y: number }> = []
  constructor(capacity: number) {
    this.slots = new Uint32Array((capacity * SLOT) / 4)
  }
  reset(): void {
    this.n = 0
    this.ops.length = 0
  }
  add(k: KernelName, params: Record<string, number>, x: number, y = 1): void {
    const base = (this.n * SLOT) / 4
    FIELDS[k].forEach((f, i) => {
      const v = params[f]
      if (v === undefined || !(v >= 0 && v <= 0xffffffff)) throw new Error(`webgpu: ${k}.${f} = ${v}`)
      this.slots[base + i] = v
    })
    this.ops.push({ k, x, y })
    this.n++
  }
  /** Element-wise kernels: one thread per element. */
  elements(k: KernelName, params: Record<string, number>, count: number): void {
    const [x, y] = fold(Math.ceil(count / WG))
    this.add(k, params, x, y)
  }
  /** Row kernels: one workgroup per row. */
  rows(k: KernelName, params: Record<string, number>, rows: number): void {
    const [x, y] = fold(rows)
    this.add(k, params, x, y)
  }
  get used(): number {
    return this.n
  }
  encode(pass: GPUComputePassEncoder, pipes: Pipelines, group: GPUBindGroup): void {
    this.ops.forEach((op, i) => {
      pass.setPipeline(pipes.byName[op.k])
      pass.setBindGroup(0, group, [i * SLOT])
      if (op.x > 0 && op.y > 0) pass.dispatchWorkgroups(op.x, op.y)
    })
  }
}

export interface EngineOptions {
  /** Positions per chunk (prefix and row blocks together); lowered to fit the device's limits. */
  readonly maxPositions?: number
}

export interface EngineScores {
  readonly sum: Float32Array
  readonly mean: Float32Array
  /** Per row, its scored tokens' log-probs, entropies and values (only when asked: teacher forcing, parity tests). */
  readonly tokens?: Float32Array[]
  readonly entropy?: Float32Array[]
  readonly values?: Float32Array[]
}

/** Wrap a device call in out-of-memory and validation error scopes; a caught error becomes a GpuFailure. */
export const scoped = async <T>(device: GPUDevice, what: string, f: () => T | Promise<T>): Promise<T> => {
  device.pushErrorScope("out-of-memory")
  device.pushErrorScope("validation")
  let out: T | undefined
  let error: { readonly e: unknown } | undefined
  try {
    out = await f()
  } catch (e) {
    error = { e }
  }
  // The scopes are popped whatever happened; a GPU error outranks the call's own.
  const v = await device.popErrorScope()
  const o = await device.popErrorScope()
  if (o) throw new GpuFailure("out-of-memory", `webgpu: out of memory in ${what}: ${o.message}`)
  if (v) throw new GpuFailure("validation", `webgpu: ${what}: ${v.message}`)
  if (error) throw error.e
  return out as T
}

export class ForwardEngine {
  readonly config: ModelConfig
  /** Positions per chunk. */
  readonly cap: number
  private readonly Vp: number
  private readonly off: Record<string, number>
  private readonly idOff: Record<string, number>
  private readonly w: GPUBuffer
  private readonly a: GPUBuffer
  private readonly idsBuf: GPUBuffer
  private readonly uni: GPUBuffer
  private readonly group: GPUBindGroup
  private readonly ids: Int32Array
  private readonly rec: Recorder
  private readonly slots: ReturnType<typeof parameterLayout>["slots"]
  private version: string | undefined
  private lostReason: string | undefined
  private readonly lost: Promise<never>

  private constructor(
    readonly device: GPUDevice,
    readonly pipes: Pipelines,
    config: ModelConfig,
    cap: number
  ) {
    this.config = config
    this.cap = cap
    const C = config.d
    const Vp = (this.Vp = paddedVocab(config.vocab))
    const N = cap
    let o = 0
    const take = (n: number) => ((o += n), o - n)
    this.off = {
      RES: take(N * C),
      LN: take(N * C),
      QKV: take(3 * N * C),
      ATTY: take(N * C),
      PROJ: take(N * C),
      FCH: take(4 * N * C),
      HSEL: take(N * C),
      LOGITS: take(N * Vp),
      LP: take(N),
      ENT: take(N),
      VAL: take(N),
      PAIR: take(2 * N)
    }
    const aFloats = o
    o = 0
    this.idOff = { TOK: take(N), SEG: take(N), SSTART: take(N), SP0: take(N), SP: take(N), GMAP: take(N), TGT: take(N), RSTART: take(N), RSCORED: take(N), RTOTAL: take(N) }
    this.ids = new Int32Array(o)
    const layout = parameterLayout(config)
    this.slots = layout.slots
    this.rec = new Recorder(4 + 10 * config.layers + 5)
    this.w = device.createBuffer({ label: "weights", size: layout.total * 4, usage: U.STORAGE | U.COPY_DST })
    this.a = device.createBuffer({ label: "activations", size: aFloats * 4, usage: U.STORAGE | U.COPY_SRC | U.COPY_DST })
    this.idsBuf = device.createBuffer({ label: "ids", size: this.ids.byteLength, usage: U.STORAGE | U.COPY_DST })
    this.uni = device.createBuffer({ label: "params", size: this.rec.slots.byteLength, usage: U.UNIFORM | U.COPY_DST })
    this.group = device.createBindGroup({
      layout: pipes.layout,
      entries: [
        { binding: 0, resource: { buffer: this.uni, offset: 0, size: 64 } },
        { binding: 1, resource: { buffer: this.w } },
        { binding: 2, resource: { buffer: this.a } },
        { binding: 3, resource: { buffer: this.idsBuf } }
      ]
    })
    this.lost = device.lost.then((info) => {
      this.lostReason = `${info.reason ?? "unknown"}: ${info.message}`
      throw new GpuFailure("device-lost", `webgpu: device lost (${this.lostReason})`)
    })
    this.lost.catch(() => {}) // observed by score(); never an unhandled rejection
  }

  /** Floats of activations per position (what bounds the chunk size). */
  static floatsPerPosition(config: ModelConfig): number {
    return 12 * config.d + paddedVocab(config.vocab) + 5
  }

  static async create(device: GPUDevice, config: ModelConfig, options: EngineOptions = {}, pipes?: Pipelines): Promise<ForwardEngine> {
    const hs = config.d / config.heads
    if (hs > MAX_HEAD) throw new GpuFailure("limits", `webgpu: head size ${hs} exceeds the attention kernel's ${MAX_HEAD}`)
    const maxBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize)
    const cap = Math.min(options.maxPositions ?? 16384, Math.floor(maxBytes / 4 / ForwardEngine.floatsPerPosition(config)))
    if (cap < config.ctx) {
      throw new GpuFailure("limits", `webgpu: the device's storage-buffer limit (${maxBytes} bytes) holds ${cap} positions, fewer than one row needs (${config.ctx})`)
    }
    const p = pipes ?? (await Pipelines.create(device))
    return scoped(device, "allocating the activation buffers", () => new ForwardEngine(device, p, config, cap))
  }

  private alive(): void {
    if (this.lostReason !== undefined) throw new GpuFailure("device-lost", `webgpu: device lost (${this.lostReason})`)
  }

  /** Upload the flat parameters (parameterLayout order) unless `version` is already on the device. */
  setWeights(params: Float32Array, version: string): boolean {
    this.alive()
    if (version === this.version) return false
    if (params.length !== this.w.size / 4) throw new Error(`webgpu: ${params.length} parameters for a buffer of ${this.w.size / 4}`)
    // the CPU model's parameters live in shared WebAssembly memory, which writeBuffer refuses in Deno
    const src = params.buffer instanceof ArrayBuffer ? params : params.slice()
    this.device.queue.writeBuffer(this.w, 0, src.buffer, src.byteOffset, src.byteLength)
    this.version = version
    return true
  }

  get weightsVersion(): string | undefined {
    return this.version
  }

  private t(name: string, l = 0, per = 0): number {
    return this.slots.get(name)!.offset + l * per
  }

  /** Fill ids for a packed chunk (layout.ts packChunks); returns its positions N, rows B, scored positions M. */
  private loadChunk(rows: ReadonlyArray<ScoreRow>, c: PackedChunk): { N: number; B: number; M: number } {
    const I = this.idOff,
      ids = this.ids
    let n = 0,
      seg = 0,
      M = 0
    const pStart: number[] = []
    const segment = (start: number, len: number, p0: number, P: number) => {
      ids.fill(seg, I.SEG! + start, I.SEG! + start + len)
      ids[I.SSTART! + seg] = start
      ids[I.SP0! + seg] = p0
      ids[I.SP! + seg] = P
      seg++
    }
    for (const p of c.prefixes) {
      const r = rows[p]!
      ids.set(r.tokens.subarray(0, r.split), I.TOK! + n)
      pStart.push(n)
      segment(n, r.split, 0, 0)
      n += r.split
    }
    c.rows.forEach((i, b) => {
      const r = rows[i]!
      const pi = c.prefixOf[b]!
      const P = pi >= 0 ? r.split : 0
      const own = r.tokens.length - P
      ids.set(r.tokens.subarray(P), I.TOK! + n)
      segment(n, own, pi >= 0 ? pStart[pi]! : 0, P)
      // the position that predicts scored token k: the prompt's last, then each scored token
      const first = n + r.promptLen - 1 - P
      ids[I.RSTART! + b] = M
      ids[I.RSCORED! + b] = r.scored
      ids[I.RTOTAL! + b] = r.total
      for (let k = 0; k < r.scored; k++) {
        ids[I.GMAP! + M] = first + k
        ids[I.TGT! + M] = r.tokens[r.promptLen + k]!
        M++
      }
      n += own
    })
    return { N: n, B: c.rows.length, M }
  }

  /** Record the forward of a loaded chunk (the dispatch list of the header). */
  private record(N: number, B: number, M: number, perToken: boolean): void {
    const { d: C, layers: L, heads: NH, vocab: V, ctx } = this.config
    const A = this.off,
      I = this.idOff,
      r = this.rec,
      t = (n: string, l = 0, per = 0) => this.t(n, l, per)
    r.reset()
    r.elements("encoder", { n: N, c: C, wte: t("wte"), wpe: t("wpe"), last: ctx - 1, out: A.RES!, tok: I.TOK!, seg: I.SEG!, sstart: I.SSTART!, sp: I.SP! }, N * C)
    const mm = (m: number, k: number, n: number, inp: number, out: number, wt: number, bias: number, hasbias: number) =>
      r.add("matmul", { m, k, n, inp, out, wt, bias, hasbias }, Math.ceil(n / MM_TILE), Math.ceil(m / MM_TILE))
    for (let l = 0; l < L; l++) {
      r.rows("layernorm", { rows: N, c: C, inp: A.RES!, out: A.LN!, wt: t("ln1w", l, C), bs: t("ln1b", l, C), map: 0, usemap: 0 }, N)
      mm(N, C, 3 * C, A.LN!, A.QKV!, t("qkvw", l, 3 * C * C), t("qkvb", l, 3 * C), 1)
      r.elements("attention", { total: N, c: C, nh: NH, qkv: A.QKV!, out: A.ATTY!, seg: I.SEG!, sstart: I.SSTART!, sp0: I.SP0!, sp: I.SP! }, N * NH)
      mm(N, C, C, A.ATTY!, A.PROJ!, t("attprojw", l, C * C), t("attprojb", l, C), 1)
      r.elements("residual", { n: N * C, out: A.RES!, x: A.RES!, y: A.PROJ! }, N * C)
      r.rows("layernorm", { rows: N, c: C, inp: A.RES!, out: A.LN!, wt: t("ln2w", l, C), bs: t("ln2b", l, C), map: 0, usemap: 0 }, N)
      mm(N, C, 4 * C, A.LN!, A.FCH!, t("fcw", l, 4 * C * C), t("fcb", l, 4 * C), 1)
      r.elements("gelu", { n: N * 4 * C, x: A.FCH! }, N * 4 * C)
      mm(N, 4 * C, C, A.FCH!, A.PROJ!, t("fcprojw", l, 4 * C * C), t("fcprojb", l, C), 1)
      r.elements("residual", { n: N * C, out: A.RES!, x: A.RES!, y: A.PROJ! }, N * C)
    }
    r.rows("layernorm", { rows: M, c: C, inp: A.RES!, out: A.HSEL!, wt: t("lnfw"), bs: t("lnfb"), map: I.GMAP!, usemap: 1 }, M)
    mm(M, C, this.Vp, A.HSEL!, A.LOGITS!, t("wte"), 0, 0)
    r.rows("head", { m: M, v: V, vp: this.Vp, logits: A.LOGITS!, lp: A.LP!, tgt: I.TGT!, ent: A.ENT! }, M)
    if (perToken) r.elements("value", { m: M, c: C, inp: A.HSEL!, wt: t("valuew"), bs: t("valueb"), out: A.VAL! }, M)
    r.elements("reduce", { rows: B, lp: A.LP!, start: I.RSTART!, scored: I.RSCORED!, total: I.RTOTAL!, out: A.PAIR! }, B)
  }

  /** Score rows (in one call, any number: chunked); weights must be set. */
  async score(rows: ReadonlyArray<ScoreRow>, opts: { readonly tokenLogprobs?: boolean } = {}): Promise<EngineScores> {
    this.alive()
    if (this.version === undefined) throw new Error("webgpu: score before setWeights")
    const R = rows.length
    const sum = new Float32Array(R),
      mean = new Float32Array(R)
    if (R === 0) return { sum, mean, ...(opts.tokenLogprobs ? { tokens: [], entropy: [], values: [] } : {}) }
    const chunks = packChunks(rows, this.cap)
    let totalM = 0
    for (const r of rows) totalM += r.scored
    const dev = this.device
    const order: number[] = []
    const tokStart = new Int32Array(R)
    const { out, tok } = await scoped(dev, "scoring", () => {
      const out = dev.createBuffer({ label: "scores", size: R * 8, usage: U.COPY_DST | U.MAP_READ })
      // per token: log-probs, then entropies, then values, each totalM floats
      const tok = opts.tokenLogprobs ? dev.createBuffer({ label: "per-token outputs", size: Math.max(4, 3 * totalM * 4), usage: U.COPY_DST | U.MAP_READ }) : undefined
      let tokAt = 0
      for (const c of chunks) {
        const { N, B, M } = this.loadChunk(rows, c)
        this.record(N, B, M, tok !== undefined)
        dev.queue.writeBuffer(this.idsBuf, 0, this.ids.buffer, this.ids.byteOffset, this.ids.byteLength)
        dev.queue.writeBuffer(this.uni, 0, this.rec.slots.buffer, 0, this.rec.used * SLOT)
        const enc = dev.createCommandEncoder()
        const pass = enc.beginComputePass()
        this.rec.encode(pass, this.pipes, this.group)
        pass.end()
        enc.copyBufferToBuffer(this.a, this.off.PAIR! * 4, out, order.length * 8, B * 8)
        if (tok && M > 0) {
          enc.copyBufferToBuffer(this.a, this.off.LP! * 4, tok, tokAt * 4, M * 4)
          enc.copyBufferToBuffer(this.a, this.off.ENT! * 4, tok, (totalM + tokAt) * 4, M * 4)
          enc.copyBufferToBuffer(this.a, this.off.VAL! * 4, tok, (2 * totalM + tokAt) * 4, M * 4)
        }
        for (const i of c.rows) {
          tokStart[i] = tokAt
          tokAt += rows[i]!.scored
          order.push(i)
        }
        dev.queue.submit([enc.finish()])
      }
      return { out, tok }
    })
    try {
      await Promise.race([Promise.all([out.mapAsync(MAP_READ_MODE), tok?.mapAsync(MAP_READ_MODE)]), this.lost])
    } catch (e) {
      this.alive()
      throw e instanceof GpuFailure ? e : new GpuFailure("device-lost", `webgpu: reading the scores back failed: ${(e as Error).message}`)
    }
    const f = new Float32Array(out.getMappedRange().slice(0))
    order.forEach((i, k) => {
      sum[i] = f[2 * k]!
      mean[i] = f[2 * k + 1]!
    })
    out.unmap()
    out.destroy()
    if (!tok) return { sum, mean }
    const all = new Float32Array(tok.getMappedRange().slice(0))
    const part = (k: number) => rows.map((r, i) => all.slice(k * totalM + tokStart[i]!, k * totalM + tokStart[i]! + r.scored))
    tok.unmap()
    tok.destroy()
    return { sum, mean, tokens: part(0), entropy: part(1), values: part(2) }
  }

  destroy(): void {
    for (const b of [this.w, this.a, this.idsBuf, this.uni]) b.destroy()
  }
}

/**
 * One dispatch of one kernel on caller-given buffers (the parity tests' harness): `a` and
 * `ids` are read back after the dispatch.
 */
export const runKernel = async (
  device: GPUDevice,
  pipes: Pipelines,
  k: KernelName,
  params: Record<string, number>,
  groups: [number, number],
  w: Float32Array,
  a: Float32Array,
  ids: Int32Array
): Promise<Float32Array> => {
  const buf = (x: ArrayBufferView, usage: number) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(x.byteLength / 4) * 4), usage: usage | U.COPY_DST })
    device.queue.writeBuffer(b, 0, x.buffer, x.byteOffset, x.byteLength)
    return b
  }
  const rec = new Recorder(1)
  rec.add(k, params, groups[0], groups[1])
  const wb = buf(w, U.STORAGE),
    ab = buf(a, U.STORAGE | U.COPY_SRC),
    ib = buf(ids, U.STORAGE),
    ub = buf(rec.slots, U.UNIFORM)
  const rb = device.createBuffer({ size: ab.size, usage: U.COPY_DST | U.MAP_READ })
  await scoped(device, `kernel ${k}`, () => {
    const group = device.createBindGroup({
      layout: pipes.layout,
      entries: [
        { binding: 0, resource: { buffer: ub, offset: 0, size: 64 } },
        { binding: 1, resource: { buffer: wb } },
        { binding: 2, resource: { buffer: ab } },
        { binding: 3, resource: { buffer: ib } }
      ]
    })
    const enc = device.createCommandEncoder()
    const pass = enc.beginComputePass()
    rec.encode(pass, pipes, group)
    pass.end()
    enc.copyBufferToBuffer(ab, 0, rb, 0, ab.size)
    device.queue.submit([enc.finish()])
  })
  await rb.mapAsync(MAP_READ_MODE)
  const out = new Float32Array(rb.getMappedRange().slice(0, a.byteLength))
  rb.unmap()
  for (const b of [wb, ab, ib, ub, rb]) b.destroy()
  return out
}

/** Workgroup counts of a kernel over `count` elements or rows (for runKernel callers). */
export const groupsFor = (k: KernelName, count: number, m = 0, n = 0): [number, number] =>
  k === "matmul" ? [Math.ceil(n / MM_TILE), Math.ceil(m / MM_TILE)] : k === "layernorm" || k === "head" ? fold(count) : fold(Math.ceil(count / WG))
