/**
 * The host side of a batch, without a GPU: the activation layout, each chunk's ids (packed, only
 * the used part uploaded) and its dispatch list with parameters. engine.ts runs it; planStats
 * counts it (dispatches, submissions, bytes moved) for benchmarks/webgpu-dispatches.ts.
 *
 * Three dispatch lists (`Fuse`, docs/decisions.md#issue-29's "fewer dispatches" lever), the same numbers within
 * float32 rounding (test/webgpu/parity.test.ts runs each):
 *   none       5 + 10·L: per layer LN, QKV, attention, proj, residual, LN, FC, GELU, FC-proj, residual;
 *   epilogues  5 + 7·L:  per layer LN, QKV, attention, proj (+ residual in its epilogue), LN,
 *              FC (+ GELU), FC-proj (+ residual): no intermediate written and read back, no
 *              work repeated (the default); and for a head size ≤ 16 the attention kernel with
 *              16-float per-thread arrays instead of 64 (as `all`; `none` keeps the old kernels);
 *   all        5 + 5·L:  as epilogues, and each LayerNorm in the next matmul's prologue: fewer
 *              dispatches, but every column tile of that matmul recomputes its rows' statistics.
 * Each starts with the embedding and ends with the final LayerNorm at the gathered positions, the tied-head matmul, log-softmax +
 * gather (+ entropy), the per-row reduce, and with per-token outputs the value head.
 */
import { type ModelConfig, paddedVocab } from "../tinylm/index.ts"
import { type PackedChunk, packChunks, parameterLayout, type ScoreRow, type TensorSlot } from "./layout.ts"
import { FIELDS, type KernelName, TILE_OF, WG } from "./wgsl.ts"

/** Which separate kernels are folded into the matmuls (see the header). */
export type Fuse = "none" | "epilogues" | "all"
export const FUSE_DEFAULT: Fuse = "epilogues"
/** The matmul's output tile edge (docs/decisions.md#issue-29's tile-size lever): 64 (16×16 threads, the default) or 32 (8×8). */
export type Tile = 32 | 64
export const TILE_DEFAULT: Tile = 64

/** Bytes per uniform slot (WebGPU's largest minUniformBufferOffsetAlignment). */
export const SLOT = 256
const MAX_WG = 65535

/** Workgroup counts for `groups` workgroups, folded into y past the 65,535 per-dimension limit. */
export const fold = (groups: number): [number, number] => (groups <= MAX_WG ? [groups, 1] : [MAX_WG, Math.ceil(groups / MAX_WG)])

export interface Op {
  readonly k: KernelName
  readonly x: number
  readonly y: number
  readonly params: Readonly<Record<string, number>>
}

/** Records a chunk's dispatches: each one's parameters into its uniform slot. */
export class Recorder {
  readonly slots: Uint32Array
  readonly ops: Op[] = []
  constructor(capacity: number) {
    this.slots = new Uint32Array((capacity * SLOT) / 4)
  }
  reset(): void {
    this.ops.length = 0
  }
  add(k: KernelName, params: Record<string, number>, x: number, y = 1): void {
    const base = (this.ops.length * SLOT) / 4
    FIELDS[k].forEach((f, i) => {
      const v = params[f]
      if (v === undefined || !(v >= 0 && v <= 0xffffffff)) throw new Error(`webgpu: ${k}.${f} = ${v}`)
      this.slots[base + i] = v
    })
    this.ops.push({ k, x, y, params })
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
    return this.ops.length
  }
}

/** Activation regions (floats, `cap` positions): see engine.ts's header. */
export const activationLayout = (config: ModelConfig, cap: number): { off: Record<string, number>; floats: number } => {
  const C = config.d,
    N = cap
  let o = 0
  const take = (n: number) => ((o += n), o - n)
  const off = {
    RES: take(N * C),
    LN: take(N * C),
    QKV: take(3 * N * C),
    ATTY: take(N * C),
    PROJ: take(N * C),
    FCH: take(4 * N * C),
    HSEL: take(N * C),
    LOGITS: take(N * paddedVocab(config.vocab)),
    LP: take(N),
    ENT: take(N),
    VAL: take(N),
    PAIR: take(2 * N)
  }
  return { off, floats: o }
}

/** Floats of activations per position (what bounds the chunk size). */
export const floatsPerPosition = (config: ModelConfig): number => 12 * config.d + paddedVocab(config.vocab) + 5

/** Ints of ids per position at most (each region is at most `cap` long). */
export const ID_REGIONS = 10

export interface LoadedChunk {
  readonly N: number
  readonly B: number
  readonly M: number
  /** Ints of `ids` in use (the upload). */
  readonly idInts: number
}

/** A batch's host-side state: the ids of the current chunk and its recorded dispatches. */
export class BatchPlan {
  readonly ids: Int32Array
  readonly rec: Recorder
  readonly off: Record<string, number>
  private readonly slots: Map<string, TensorSlot>
  private idOff: Record<string, number> = {}

  constructor(
    readonly config: ModelConfig,
    readonly cap: number,
    readonly fuse: Fuse,
    readonly tile: Tile = TILE_DEFAULT
  ) {
    this.off = activationLayout(config, cap).off
    this.ids = new Int32Array(ID_REGIONS * cap)
    this.slots = parameterLayout(config).slots
    this.rec = new Recorder(4 + 10 * config.layers + 5)
  }

  private t(name: string, l = 0, per = 0): number {
    return this.slots.get(name)!.offset + l * per
  }

  /**
   * Fill ids for a packed chunk (layout.ts packChunks). The regions sit back to back at their
   * used sizes (tokens and segment of each position N, per segment S its start, prefix start and
   * prefix length, per scored position M the gather map and target, per row B its first scored
   * index, scored count and continuation length), so one upload of idInts covers them.
   */
  load(rows: ReadonlyArray<ScoreRow>, c: PackedChunk): LoadedChunk {
    const segs = c.prefixes.length + c.rows.length
    let N = 0,
      M = 0
    for (const p of c.prefixes) N += rows[p]!.split
    c.rows.forEach((i, b) => {
      const r = rows[i]!
      N += r.tokens.length - (c.prefixOf[b]! >= 0 ? r.split : 0)
      M += r.scored
    })
    const B = c.rows.length
    let o = 0
    const take = (n: number) => ((o += n), o - n)
    const I = (this.idOff = { TOK: take(N), SEG: take(N), SSTART: take(segs), SP0: take(segs), SP: take(segs), GMAP: take(M), TGT: take(M), RSTART: take(B), RSCORED: take(B), RTOTAL: take(B) })
    const ids = this.ids
    let n = 0,
      seg = 0,
      m = 0
    const pStart: number[] = []
    const segment = (start: number, len: number, p0: number, P: number) => {
      ids.fill(seg, I.SEG + start, I.SEG + start + len)
      ids[I.SSTART + seg] = start
      ids[I.SP0 + seg] = p0
      ids[I.SP + seg] = P
      seg++
    }
    for (const p of c.prefixes) {
      const r = rows[p]!
      ids.set(r.tokens.subarray(0, r.split), I.TOK + n)
      pStart.push(n)
      segment(n, r.split, 0, 0)
      n += r.split
    }
    c.rows.forEach((i, b) => {
      const r = rows[i]!
      const pi = c.prefixOf[b]!
      const P = pi >= 0 ? r.split : 0
      const own = r.tokens.length - P
      ids.set(r.tokens.subarray(P), I.TOK + n)
      segment(n, own, pi >= 0 ? pStart[pi]! : 0, P)
      // the position that predicts scored token k: the prompt's last, then each scored token
      const first = n + r.promptLen - 1 - P
      ids[I.RSTART + b] = m
      ids[I.RSCORED + b] = r.scored
      ids[I.RTOTAL + b] = r.total
      for (let k = 0; k < r.scored; k++) {
        ids[I.GMAP + m] = first + k
        ids[I.TGT + m] = r.tokens[r.promptLen + k]!
        m++
      }
      n += own
    })
    return { N, B, M, idInts: Math.max(1, o) }
  }

  /** Record the forward of the loaded chunk (the module header's dispatch list). */
  record({ N, B, M }: LoadedChunk, perToken: boolean): void {
    const { d: C, layers: L, heads: NH, vocab: V, ctx } = this.config
    const A = this.off,
      I = this.idOff,
      r = this.rec,
      Vp = paddedVocab(V),
      t = (n: string, l = 0, per = 0) => this.t(n, l, per)
    r.reset()
    const mmKernel = this.tile === 32 ? "matmul32" : "matmul"
    r.elements("encoder", { n: N, c: C, wte: t("wte"), wpe: t("wpe"), last: ctx - 1, out: A.RES!, tok: I.TOK!, seg: I.SEG!, sstart: I.SSTART!, sp: I.SP! }, N * C)
    /** out (m,n) = [LN(inp)] (m,k) · W^T + bias, then epi: 0 store, 1 GELU, 2 add to out (residual). */
    const mm = (m: number, k: number, n: number, inp: number, out: number, wt: number, bias: number, hasbias: number, epi = 0, ln?: { w: number; b: number }) =>
      r.add(mmKernel, { m, k, n, inp, out, wt, bias, hasbias, epi, ln: ln ? 1 : 0, lnw: ln?.w ?? 0, lnb: ln?.b ?? 0 }, Math.ceil(n / TILE_OF[mmKernel]), Math.ceil(m / TILE_OF[mmKernel]))
    const lnr = (inp: number, out: number, w: number, b: number) => r.rows("layernorm", { rows: N, c: C, inp, out, wt: w, bs: b, map: 0, usemap: 0 }, N)
    // head size ≤ 16: the kernel with 16-float registers (not in the "none" list: that is the old list as it was)
    const attK = C / NH <= 16 && this.fuse !== "none" ? "attention16" : "attention"
    const attention = () => r.elements(attK, { total: N, c: C, nh: NH, qkv: A.QKV!, out: A.ATTY!, seg: I.SEG!, sstart: I.SSTART!, sp0: I.SP0!, sp: I.SP! }, N * NH)
    for (let l = 0; l < L; l++) {
      const ln1 = { w: t("ln1w", l, C), b: t("ln1b", l, C) },
        ln2 = { w: t("ln2w", l, C), b: t("ln2b", l, C) }
      if (this.fuse !== "none") {
        const all = this.fuse === "all"
        if (!all) lnr(A.RES!, A.LN!, ln1.w, ln1.b)
        mm(N, C, 3 * C, all ? A.RES! : A.LN!, A.QKV!, t("qkvw", l, 3 * C * C), t("qkvb", l, 3 * C), 1, 0, all ? ln1 : undefined)
        attention()
        mm(N, C, C, A.ATTY!, A.RES!, t("attprojw", l, C * C), t("attprojb", l, C), 1, 2)
        if (!all) lnr(A.RES!, A.LN!, ln2.w, ln2.b)
        mm(N, C, 4 * C, all ? A.RES! : A.LN!, A.FCH!, t("fcw", l, 4 * C * C), t("fcb", l, 4 * C), 1, 1, all ? ln2 : undefined)
        mm(N, 4 * C, C, A.FCH!, A.RES!, t("fcprojw", l, 4 * C * C), t("fcprojb", l, C), 1, 2)
        continue
      }
      lnr(A.RES!, A.LN!, ln1.w, ln1.b)
      mm(N, C, 3 * C, A.LN!, A.QKV!, t("qkvw", l, 3 * C * C), t("qkvb", l, 3 * C), 1)
      attention()
      mm(N, C, C, A.ATTY!, A.PROJ!, t("attprojw", l, C * C), t("attprojb", l, C), 1)
      r.elements("residual", { n: N * C, out: A.RES!, x: A.RES!, y: A.PROJ! }, N * C)
      lnr(A.RES!, A.LN!, ln2.w, ln2.b)
      mm(N, C, 4 * C, A.LN!, A.FCH!, t("fcw", l, 4 * C * C), t("fcb", l, 4 * C), 1)
      r.elements("gelu", { n: N * 4 * C, x: A.FCH! }, N * 4 * C)
      mm(N, 4 * C, C, A.FCH!, A.PROJ!, t("fcprojw", l, 4 * C * C), t("fcprojb", l, C), 1)
      r.elements("residual", { n: N * C, out: A.RES!, x: A.RES!, y: A.PROJ! }, N * C)
    }
    r.rows("layernorm", { rows: M, c: C, inp: A.RES!, out: A.HSEL!, wt: t("lnfw"), bs: t("lnfb"), map: I.GMAP!, usemap: 1 }, M)
    mm(M, C, Vp, A.HSEL!, A.LOGITS!, t("wte"), 0, 0)
    r.rows("head", { m: M, v: V, vp: Vp, logits: A.LOGITS!, lp: A.LP!, tgt: I.TGT!, ent: A.ENT! }, M)
    if (perToken) r.elements("value", { m: M, c: C, inp: A.HSEL!, wt: t("valuew"), bs: t("valueb"), out: A.VAL! }, M)
    r.elements("reduce", { rows: B, lp: A.LP!, start: I.RSTART!, scored: I.RSCORED!, total: I.RTOTAL!, out: A.PAIR!, scoredTotal: M }, B)
  }
}

/**
 * Global-memory bytes a dispatch moves in a simple model: every operand read once and every
 * output written once per dispatch (caches and the matmul's re-reads of its tiles left out),
 * weights included. A model for comparing dispatch lists, not a measurement.
 */
export const opBytes = (op: Op): number => {
  const p = op.params as Record<string, number>
  const f = 4
  switch (op.k) {
    case "encoder":
      return f * p.n! * (3 * p.c! + 4)
    case "layernorm":
      return f * (2 * p.rows! * p.c! + 2 * p.c! + (p.usemap ? p.rows! : 0))
    case "matmul":
    case "matmul32":
      return f * (p.m! * p.k! + p.n! * p.k! + (p.hasbias ? p.n! : 0) + p.m! * p.n! * (p.epi === 2 ? 2 : 1) + (p.ln ? 2 * p.k! : 0))
    case "attention":
    case "attention16":
      return f * p.total! * (4 * p.c! + 4)
    case "gelu":
      return f * 2 * p.n!
    case "residual":
      return f * 3 * p.n!
    case "head":
      return f * p.m! * (p.v! + 3)
    case "value":
      return f * (p.m! * (p.c! + 1) + p.c! + 1)
    case "reduce":
      return f * (5 * p.rows! + (p.scoredTotal ?? 0))
  }
}

export interface PlanStats {
  /** Chunks: one submission each. */
  readonly submissions: number
  readonly dispatches: number
  /** Host → device per batch: each chunk's ids (used part, or the whole ID_REGIONS·cap array with fullIds) and uniform slots. */
  readonly uploadBytes: number
  /** Device → host per batch: per row sum and mean (+ per-token log-prob, entropy, value). */
  readonly readbackBytes: number
  /** opBytes summed over the batch's dispatches. */
  readonly kernelBytes: number
}

/** What scoring `rows` moves, counted on the host (no GPU): the engine's plan, chunk by chunk. */
export const planStats = (config: ModelConfig, cap: number, rows: ReadonlyArray<ScoreRow>, o: { fuse: Fuse; tile?: Tile; perToken?: boolean; fullIds?: boolean }): PlanStats => {
  const plan = new BatchPlan(config, cap, o.fuse, o.tile)
  let submissions = 0,
    dispatches = 0,
    uploadBytes = 0,
    kernelBytes = 0,
    scored = 0
  for (const c of packChunks(rows, cap)) {
    const loaded = plan.load(rows, c)
    plan.record(loaded, o.perToken === true)
    submissions++
    dispatches += plan.rec.used
    uploadBytes += (o.fullIds ? ID_REGIONS * cap : loaded.idInts) * 4 + plan.rec.used * SLOT
    for (const op of plan.rec.ops) kernelBytes += opBytes(op)
    scored += loaded.M
  }
  return { submissions, dispatches, uploadBytes, readbackBytes: rows.length * 8 + (o.perToken ? 12 * scored : 0), kernelBytes }
}
