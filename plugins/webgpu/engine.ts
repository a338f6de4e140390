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
 * - Each chunk is one submission of plan.ts's dispatch list (fuse: epilogues 5 + 7·L, the default;
 *   none 5 + 10·L; all 5 + 5·L; one more with per-token outputs, the value head) through one bind group;
 *   per-dispatch parameters sit in 256-byte uniform slots written once per chunk, the chunk's
 *   ids (packed at their used sizes) in one upload. Every chunk's per-row results are copied
 *   into one readback buffer, mapped once per call. `stats` counts what a call moved.
 * - Failures are GpuFailure with a kind: device-lost, out-of-memory (from the error scope),
 *   validation, limits (the config or the device's limits do not fit).
 *
 * Layout of `a` (floats, cap = positions per chunk): RES (cap,C) residual stream, LN (cap,C),
 * QKV (cap,3C), ATTY (cap,C), PROJ (cap,C), FCH (cap,4C), HSEL (cap,C), LOGITS (cap,Vp),
 * LP, ENT, VAL (cap each: per scored position its log-prob, entropy, value), PAIR (cap,2);
 * PROJ is used by the unfused list only, LN by all but fuse: all. `ids`: plan.ts BatchPlan.load.
 */
import type { ModelConfig } from "../tinylm/index.ts"
import { packChunks, parameterLayout, type ScoreRow } from "./layout.ts"
import { activationLayout, BatchPlan, FUSE_DEFAULT, type Fuse, TILE_DEFAULT, type Tile, floatsPerPosition, fold, ID_REGIONS, type Recorder, Recorder as Rec, SLOT } from "./plan.ts"
import { Profiler } from "./profile.ts"
import { type KernelName, MAX_HEAD, SHADERS, TILE_OF, WG } from "./wgsl.ts"

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

/** Encode a recorded chunk: each dispatch with its uniform slot. */
const encode = (rec: Recorder, pass: GPUComputePassEncoder, pipes: Pipelines, group: GPUBindGroup): void => {
  rec.ops.forEach((op, i) => {
    pass.setPipeline(pipes.byName[op.k])
    pass.setBindGroup(0, group, [i * SLOT])
    if (op.x > 0 && op.y > 0) pass.dispatchWorkgroups(op.x, op.y)
  })
}

/** What the engine moved since it was made (benchmarks/webgpu-dispatches.ts). */
export interface EngineStats {
  submissions: number
  dispatches: number
  /** Host → device: ids and uniform slots per chunk, weights per new version. */
  uploadBytes: number
  /** Device → host: the mapped readback buffers. */
  readbackBytes: number
}

export interface EngineOptions {
  /** Positions per chunk (prefix and row blocks together); lowered to fit the device's limits. */
  readonly maxPositions?: number
  /** plan.ts's dispatch list (default epilogues; the others for parity and before/after counts). */
  readonly fuse?: Fuse
  /** plan.ts's matmul tile edge (default 64). */
  readonly tile?: Tile
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
  readonly stats: EngineStats = { submissions: 0, dispatches: 0, uploadBytes: 0, readbackBytes: 0 }
  private readonly plan: BatchPlan
  private readonly w: GPUBuffer
  private readonly a: GPUBuffer
  private readonly idsBuf: GPUBuffer
  private readonly uni: GPUBuffer
  private readonly group: GPUBindGroup
  private version: string | undefined
  private profiler: Profiler | undefined
  private lostReason: string | undefined
  private readonly lost: Promise<never>

  private constructor(
    readonly device: GPUDevice,
    readonly pipes: Pipelines,
    config: ModelConfig,
    cap: number,
    fuse: Fuse,
    tile: Tile
  ) {
    this.config = config
    this.cap = cap
    this.plan = new BatchPlan(config, cap, fuse, tile)
    const aFloats = activationLayout(config, cap).floats
    this.w = device.createBuffer({ label: "weights", size: parameterLayout(config).total * 4, usage: U.STORAGE | U.COPY_DST })
    this.a = device.createBuffer({ label: "activations", size: aFloats * 4, usage: U.STORAGE | U.COPY_SRC | U.COPY_DST })
    this.idsBuf = device.createBuffer({ label: "ids", size: ID_REGIONS * cap * 4, usage: U.STORAGE | U.COPY_DST })
    this.uni = device.createBuffer({ label: "params", size: this.plan.rec.slots.byteLength, usage: U.UNIFORM | U.COPY_DST })
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
    return floatsPerPosition(config)
  }

  static async create(device: GPUDevice, config: ModelConfig, options: EngineOptions = {}, pipes?: Pipelines): Promise<ForwardEngine> {
    const hs = config.d / config.heads
    if (hs > MAX_HEAD) throw new GpuFailure("limits", `webgpu: head size ${hs} exceeds the attention kernel's ${MAX_HEAD}`)
    const maxBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize)
    const cap = Math.min(options.maxPositions ?? 16384, Math.floor(maxBytes / 4 / floatsPerPosition(config)))
    if (cap < config.ctx) {
      throw new GpuFailure("limits", `webgpu: the device's storage-buffer limit (${maxBytes} bytes) holds ${cap} positions, fewer than one row needs (${config.ctx})`)
    }
    const p = pipes ?? (await Pipelines.create(device))
    return scoped(device, "allocating the activation buffers", () => new ForwardEngine(device, p, config, cap, options.fuse ?? FUSE_DEFAULT, options.tile ?? TILE_DEFAULT))
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
    this.stats.uploadBytes += src.byteLength
    this.version = version
    return true
  }

  get weightsVersion(): string | undefined {
    return this.version
  }

  /** Encode one chunk's forward and its copies out; returns the chunk's command buffer. */
  private chunk(rows: ReadonlyArray<ScoreRow>, c: Parameters<BatchPlan["load"]>[1], out: GPUBuffer, outAt: number, tok: { buf: GPUBuffer; at: number; total: number } | undefined): GPUCommandBuffer {
    const dev = this.device,
      plan = this.plan,
      A = plan.off
    const loaded = plan.load(rows, c)
    plan.record(loaded, tok !== undefined)
    dev.queue.writeBuffer(this.idsBuf, 0, plan.ids.buffer, plan.ids.byteOffset, loaded.idInts * 4)
    dev.queue.writeBuffer(this.uni, 0, plan.rec.slots.buffer, 0, plan.rec.used * SLOT)
    this.stats.uploadBytes += loaded.idInts * 4 + plan.rec.used * SLOT
    this.stats.dispatches += plan.rec.used
    this.stats.submissions++
    const enc = dev.createCommandEncoder()
    if (this.profiler) this.profiler.encode(plan.rec, enc, this.pipes, this.group)
    else {
      const pass = enc.beginComputePass()
      encode(plan.rec, pass, this.pipes, this.group)
      pass.end()
    }
    enc.copyBufferToBuffer(this.a, A.PAIR! * 4, out, outAt * 8, loaded.B * 8)
    const M = loaded.M
    if (tok && M > 0) {
      for (const [k, region] of [A.LP!, A.ENT!, A.VAL!].entries()) enc.copyBufferToBuffer(this.a, region * 4, tok.buf, (k * tok.total + tok.at) * 4, M * 4)
    }
    return enc.finish()
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
    const { out, tok } = await scoped(dev, "scoring", async () => {
      const out = dev.createBuffer({ label: "scores", size: R * 8, usage: U.COPY_DST | U.MAP_READ })
      // per token: log-probs, then entropies, then values, each totalM floats
      const tok = opts.tokenLogprobs ? dev.createBuffer({ label: "per-token outputs", size: Math.max(4, 3 * totalM * 4), usage: U.COPY_DST | U.MAP_READ }) : undefined
      let tokAt = 0
      for (const c of chunks) {
        const cmd = this.chunk(rows, c, out, order.length, tok ? { buf: tok, at: tokAt, total: totalM } : undefined)
        for (const i of c.rows) {
          tokStart[i] = tokAt
          tokAt += rows[i]!.scored
          order.push(i)
        }
        dev.queue.submit([cmd])
        await this.profiler?.collect(this.plan.rec.ops)
      }
      return { out, tok }
    })
    try {
      await Promise.race([Promise.all([out.mapAsync(MAP_READ_MODE), tok?.mapAsync(MAP_READ_MODE)]), this.lost])
    } catch (e) {
      this.alive()
      throw e instanceof GpuFailure ? e : new GpuFailure("device-lost", `webgpu: reading the scores back failed: ${(e as Error).message}`)
    }
    this.stats.readbackBytes += out.size + (tok?.size ?? 0)
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

  /**
   * Time each dispatch from now on (profile.ts; needs the timestamp-query feature): the per-kernel
   * nanoseconds, or undefined without the feature. Slows scoring down: for profiling runs only.
   */
  profile(): Profiler["byKernel"] | undefined {
    if (!Profiler.available(this.device)) return undefined
    this.profiler ??= new Profiler(this.device, this.plan.rec.slots.length / (SLOT / 4))
    return this.profiler.byKernel
  }

  destroy(): void {
    this.profiler?.destroy()
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
  const rec = new Rec(1)
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
    encode(rec, pass, pipes, group)
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
  k === "matmul" || k === "matmul32" ? [Math.ceil(n / TILE_OF[k]), Math.ceil(m / TILE_OF[k])] : k === "layernorm" || k === "head" ? fold(count) : fold(Math.ceil(count / WG))
