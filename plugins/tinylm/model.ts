/**
 * GPT forward/backward over a right-padded batch B×Tb with per-row lengths (llm.c gpt2_forward /
 * gpt2_backward): token + position embeddings, pre-LN blocks (causal attention, GELU MLP),
 * final LayerNorm, tied output head and a scalar value head, both evaluated only at the M
 * gathered positions whose next token is scored (completion tokens).
 * Callers fill `tokens` (B·Tb), `lens` (B), `gather` (M, flat position b·Tb+t) and `targets` (M).
 *
 * Shared prefixes (forward(B, Tb, M, Bp, Tp)): rows that continue the same prompt need the
 * prompt's activations once. Then `tokens` holds first Bp prefix rows of Tp positions (lengths in
 * `plens`), then the B rows of Tb positions that continue them; `pref` gives per row the first
 * position of its prefix in the prefix block and its length. Every layer runs over both blocks
 * at once, except attention: the prefix rows attend causally among themselves, the other rows
 * over their prefix and then themselves (kernels/attention.ts attentionForwardPrefixed). `gather`
 * indexes the second block. Each row's numbers equal those of the unshared row bit for bit; only
 * the backward's sums over the rows sharing a prefix run in another order.
 */
import { type Arena, type ArenaRequest, carveArena } from "./arena.ts"
import { type ModelConfig, numel, paddedVocab, parameterShapes } from "./config.ts"
import { kernels, prepareArena } from "./kernels/dispatch.ts"
import { encoderBackward, encoderForward } from "./kernels/encoder.ts"
import { valueBackward, valueForward } from "./kernels/value.ts"
import type { Rng } from "../../core/host.ts"

const PER_LAYER = ["ln1w", "ln1b", "qkvw", "qkvb", "attprojw", "attprojb", "ln2w", "ln2b", "fcw", "fcb", "fcprojw", "fcprojb"] as const
type LayerTensor = (typeof PER_LAYER)[number]

export interface TensorInfo {
  readonly name: string
  readonly shape: ReadonlyArray<number>
  readonly offset: number
  readonly size: number
}

export class GPT {
  readonly config: ModelConfig
  readonly Vp: number
  /** Rows of the KV cache (the sampler's batch); a forward holds any B rows with B·Tb ≤ maxB·ctx. */
  readonly maxB: number
  readonly trainable: boolean
  /**
   * Whether the value loss moves the shared trunk (false: the value head learns on the trunk's
   * features without changing them, like RAGEN's separate critic). With it on, Sokoban's value
   * loss (returns up to ≈ 10) swamped the policy gradient under clipping and PPO unlearned the
   * SFT policy (validation success 0.81 → 0.28 in 40 steps at lr 1e-4).
   */
  valueTrunkGrad = false
  readonly arena: Arena
  readonly tensors: ReadonlyArray<TensorInfo>
  readonly numParams: number
  // role buffers
  readonly params: Float32Array
  readonly grads: Float32Array
  readonly m: Float32Array
  readonly v: Float32Array
  // inputs
  readonly tokens: Int32Array
  readonly lens: Int32Array
  readonly plens: Int32Array
  readonly pref: Int32Array
  readonly posOff: Int32Array
  readonly gather: Int32Array
  readonly targets: Int32Array
  /** Per decode row: [KV-cache slot, position] (sampler.ts; kernels.attentionDecodeRows). */
  readonly decodeRows: Int32Array
  // outputs at gathered positions (M)
  readonly logits: Float32Array
  readonly probs: Float32Array
  readonly logprob: Float32Array
  readonly entropy: Float32Array
  readonly values: Float32Array
  readonly dlogprob: Float32Array
  readonly dentropy: Float32Array
  readonly dvalues: Float32Array
  // parameter and gradient views
  readonly p: Record<string, Float32Array> = {}
  readonly g: Record<string, Float32Array> = {}
  readonly pl: Record<LayerTensor, Float32Array[]>
  readonly gl: Record<LayerTensor, Float32Array[]>
  // activations
  readonly a: Record<string, Float32Array>
  readonly al: Record<string, Float32Array[]>
  /** Transposed-weight slot per matmul weight (kernels/wasm: rewritten by forward, reused by decode). */
  readonly wt: Record<"qkvw" | "attprojw" | "fcw" | "fcprojw", Float32Array[]> & { wte: Float32Array }
  /** KV cache (maxB, ctx, C) per layer, for the sampler. */
  readonly kcache: Float32Array[] = []
  readonly vcache: Float32Array[] = []
  /** The whole arena as floats: copies between its views by copyWithin allocate nothing (the sampler copies ~10^4 K/V rows per chunk). */
  readonly all: Float32Array

  constructor(config: ModelConfig, maxB: number, trainable: boolean) {
    this.config = config
    this.maxB = maxB
    this.trainable = trainable
    const { ctx: T, d: C, layers: L, heads: NH } = config
    const Vp = (this.Vp = paddedVocab(config.vocab))
    const tensors: TensorInfo[] = []
    let off = 0
    for (const [name, shape] of parameterShapes(config)) {
      const size = numel(shape)
      tensors.push({ name, shape, offset: off, size })
      off += Math.ceil(size / 4) * 4 // keep every tensor 16-byte aligned
    }
    this.tensors = tensors
    this.numParams = tensors.reduce((s, t) => s + t.size, 0)
    const P = off
    const N = maxB * T
    const req: ArenaRequest[] = [
      { name: "params", size: P },
      { name: "grads", size: trainable ? P : 0 },
      { name: "m", size: trainable ? P : 0 },
      { name: "v", size: trainable ? P : 0 },
      { name: "tokens", size: N, kind: "i32" },
      { name: "lens", size: N, kind: "i32" }, // a forward may hold up to N one-token rows
      { name: "plens", size: N, kind: "i32" }, // prefix rows' lengths
      { name: "pref", size: 2 * N, kind: "i32" }, // per row: [first prefix position, prefix length]
      { name: "posOff", size: N, kind: "i32" }, // per row: absolute position of its first position
      { name: "gather", size: N, kind: "i32" },
      { name: "targets", size: N, kind: "i32" },
      { name: "decodeRows", size: 2 * maxB, kind: "i32" }, // the sampler's decode step: per row [cache slot, position]
      { name: "encoded", size: N * C }, // (B,T,C)
      { name: "lnf", size: N * C },
      { name: "lnfMean", size: N },
      { name: "lnfRstd", size: N },
      { name: "hsel", size: N * C }, // (M,C) gathered final hidden states
      { name: "logits", size: N * Vp }, // (M,Vp)
      { name: "probs", size: N * Vp },
      { name: "logprob", size: N },
      { name: "entropy", size: N },
      { name: "values", size: N },
      { name: "dlogprob", size: N },
      { name: "dentropy", size: N },
      { name: "dvalues", size: N },
      // attention backward: ≤ 2T floats (prefix + row) per kernel thread; the sampler's decode step: 4T
      { name: "scratch", size: 4 * T },
      // transposed copies of the matmul weights for the wasm forward (kernels/wasm/matmul.c matmul_forward_t):
      // rewritten by every model forward, reused by the sampler's decode steps
      { name: "wt", size: L * 12 * C * C + Vp * C }
    ]
    const layerActs: Array<[string, number]> = [
      ["ln1", N * C],
      ["ln1Mean", N],
      ["ln1Rstd", N],
      ["qkv", N * 3 * C],
      ["atty", N * C],
      ["att", maxB * NH * T * T],
      ["attproj", N * C],
      ["res2", N * C],
      ["ln2", N * C],
      ["ln2Mean", N],
      ["ln2Rstd", N],
      ["fch", N * 4 * C],
      ["fchGelu", N * 4 * C],
      ["fcproj", N * C],
      ["res3", N * C]
    ]
    for (let l = 0; l < L; l++) {
      for (const [n, s] of layerActs) req.push({ name: `${n}.${l}`, size: s })
      req.push({ name: `kcache.${l}`, size: maxB * T * C }, { name: `vcache.${l}`, size: maxB * T * C })
    }
    // backward scratch, shared by all layers
    if (trainable) {
      req.push(
        { name: "dres", size: N * C },
        { name: "dln", size: N * C },
        { name: "dqkv", size: N * 3 * C },
        { name: "datty", size: N * C },
        { name: "dfch", size: N * 4 * C },
        { name: "dfchGelu", size: N * 4 * C },
        { name: "dlnf", size: N * C },
        { name: "dhsel", size: N * C },
        { name: "dlogits", size: N * Vp }
      )
    }
    const arena = (this.arena = carveArena(req))
    prepareArena(arena.memory)
    this.all = new Float32Array(arena.memory.buffer)
    this.params = arena.f32.params!
    this.grads = arena.f32.grads!
    this.m = arena.f32.m!
    this.v = arena.f32.v!
    this.tokens = arena.i32.tokens!
    this.lens = arena.i32.lens!
    this.plens = arena.i32.plens!
    this.pref = arena.i32.pref!
    this.posOff = arena.i32.posOff!
    this.gather = arena.i32.gather!
    this.targets = arena.i32.targets!
    this.decodeRows = arena.i32.decodeRows!
    this.logits = arena.f32.logits!
    this.probs = arena.f32.probs!
    this.logprob = arena.f32.logprob!
    this.entropy = arena.f32.entropy!
    this.values = arena.f32.values!
    this.dlogprob = arena.f32.dlogprob!
    this.dentropy = arena.f32.dentropy!
    this.dvalues = arena.f32.dvalues!
    this.a = arena.f32
    const pl = {} as Record<LayerTensor, Float32Array[]>
    const gl = {} as Record<LayerTensor, Float32Array[]>
    for (const t of tensors) {
      this.p[t.name] = this.params.subarray(t.offset, t.offset + t.size)
      if (trainable) this.g[t.name] = this.grads.subarray(t.offset, t.offset + t.size)
      if ((PER_LAYER as ReadonlyArray<string>).includes(t.name)) {
        const per = t.size / L
        pl[t.name as LayerTensor] = Array.from({ length: L }, (_, l) => this.p[t.name]!.subarray(l * per, (l + 1) * per))
        gl[t.name as LayerTensor] = trainable ? Array.from({ length: L }, (_, l) => this.g[t.name]!.subarray(l * per, (l + 1) * per)) : []
      }
    }
    this.pl = pl
    this.gl = gl
    const al: Record<string, Float32Array[]> = {}
    for (const [n] of layerActs) al[n] = Array.from({ length: L }, (_, l) => arena.f32[`${n}.${l}`]!)
    this.al = al
    const wtAll = arena.f32.wt!
    let wo = 0
    const slot = (n: number) => wtAll.subarray(wo, (wo += n))
    const per = (n: number) => Array.from({ length: L }, () => slot(n))
    this.wt = { qkvw: per(3 * C * C), attprojw: per(C * C), fcw: per(4 * C * C), fcprojw: per(4 * C * C), wte: slot(Vp * C) }
    for (let l = 0; l < L; l++) {
      this.kcache.push(arena.f32[`kcache.${l}`]!)
      this.vcache.push(arena.f32[`vcache.${l}`]!)
    }
  }

  /** GPT-2 init: N(0, 0.02), residual projections scaled by 1/√(2L); LN 1/0; value head 0. */
  init(rng: Rng): void {
    const { layers: L } = this.config
    const std = 0.02
    for (const t of this.tensors) {
      const x = this.p[t.name]!
      if (t.name === "ln1w" || t.name === "ln2w" || t.name === "lnfw") x.fill(1)
      else if (t.name.endsWith("b") || t.name === "valuew") x.fill(0)
      else {
        const s = t.name === "attprojw" || t.name === "fcprojw" ? std / Math.sqrt(2 * L) : std
        const n = t.name === "wte" ? this.config.vocab * this.config.d : t.size // padding rows stay 0
        for (let i = 0; i < n; i++) x[i] = rng.normal() * s
      }
    }
  }

  /** The shape of the last forward (what its backward must be given). */
  lastShape = { B: 0, Tb: 0, M: 0, Bp: 0, Tp: 0 }

  /** Floats of one layer's attention weights that a forward of this shape needs (≤ attCapacity). */
  attFloats(B: number, Tb: number, Bp = 0, Tp = 0): number {
    const NH = this.config.heads
    return Bp * NH * Tp * Tp + B * NH * Tb * (Bp > 0 ? Tp + Tb : Tb)
  }

  get attCapacity(): number {
    return this.al.att![0]?.length ?? 0
  }

  /** Positions of the arena's activation buffers (prefix and row blocks together). */
  get positionCapacity(): number {
    return this.maxB * this.config.ctx
  }

  /** The attention of layer l's two blocks (see the header); `qkv`/`atty`/`att` are that layer's. */
  private attentionForward(l: number, B: number, Tb: number, Bp: number, Tp: number): void {
    const { d: C, heads: NH } = this.config
    const qkv = this.al.qkv![l]!,
      atty = this.al.atty![l]!,
      att = this.al.att![l]!
    if (Bp === 0) return kernels.attentionForward(atty, att, qkv, this.lens, B, Tb, C, NH)
    const Np = Bp * Tp
    const pqkv = qkv.subarray(0, Np * 3 * C)
    kernels.attentionForward(atty.subarray(0, Np * C), att, pqkv, this.plens, Bp, Tp, C, NH)
    kernels.attentionForwardPrefixed(atty.subarray(Np * C), att.subarray(Bp * NH * Tp * Tp), qkv.subarray(Np * 3 * C), this.lens, B, Tb, C, NH, pqkv, this.pref, Tp + Tb)
  }

  /**
   * Forward over B rows of Tb positions (after Bp prefix rows of Tp positions when Bp > 0, see
   * the header); fills logprob/entropy/values at the M gathered positions.
   */
  forward(B: number, Tb: number, M: number, Bp = 0, Tp = 0): void {
    const { d: C, layers: L, vocab: V } = this.config
    const Np = Bp * Tp
    const N = Np + B * Tb
    if (N > this.positionCapacity || this.attFloats(B, Tb, Bp, Tp) > this.attCapacity) throw new Error(`tinylm: a forward of ${Bp}×${Tp} + ${B}×${Tb} positions exceeds the arena`)
    this.lastShape = { B, Tb, M, Bp, Tp }
    const a = this.a,
      al = this.al,
      pl = this.pl,
      p = this.p
    const mm = kernels.matmulForward,
      wt = this.wt
    if (Bp > 0) {
      for (let b = 0; b < B; b++) this.posOff[b] = this.pref[2 * b + 1]!
      encoderForward(a.encoded!, this.tokens, p.wte!, p.wpe!, Bp, Tp, C)
      encoderForward(a.encoded!.subarray(Np * C), this.tokens.subarray(Np), p.wte!, p.wpe!, B, Tb, C, this.posOff)
    } else encoderForward(a.encoded!, this.tokens, p.wte!, p.wpe!, B, Tb, C)
    let res = a.encoded!
    for (let l = 0; l < L; l++) {
      kernels.layernormForward(al.ln1![l]!, al.ln1Mean![l]!, al.ln1Rstd![l]!, res, pl.ln1w[l]!, pl.ln1b[l]!, N, C)
      mm(al.qkv![l]!, al.ln1![l]!, pl.qkvw[l]!, pl.qkvb[l]!, N, C, 3 * C, wt.qkvw[l]!)
      this.attentionForward(l, B, Tb, Bp, Tp)
      mm(al.attproj![l]!, al.atty![l]!, pl.attprojw[l]!, pl.attprojb[l]!, N, C, C, wt.attprojw[l]!)
      kernels.residualForward(al.res2![l]!, res, al.attproj![l]!, N * C)
      kernels.layernormForward(al.ln2![l]!, al.ln2Mean![l]!, al.ln2Rstd![l]!, al.res2![l]!, pl.ln2w[l]!, pl.ln2b[l]!, N, C)
      mm(al.fch![l]!, al.ln2![l]!, pl.fcw[l]!, pl.fcb[l]!, N, C, 4 * C, wt.fcw[l]!)
      kernels.geluForward(al.fchGelu![l]!, al.fch![l]!, N * 4 * C)
      mm(al.fcproj![l]!, al.fchGelu![l]!, pl.fcprojw[l]!, pl.fcprojb[l]!, N, 4 * C, C, wt.fcprojw[l]!)
      kernels.residualForward(al.res3![l]!, al.res2![l]!, al.fcproj![l]!, N * C)
      res = al.res3![l]!
    }
    kernels.layernormForward(a.lnf!, a.lnfMean!, a.lnfRstd!, res, p.lnfw!, p.lnfb!, N, C)
    const all = this.all,
      hsel = a.hsel!,
      h0 = a.hsel!.byteOffset >> 2,
      f0 = a.lnf!.byteOffset >> 2
    // gathered positions come in runs of consecutive ones (a row's scored tokens): one copy per run
    for (let m = 0, e = 0; m < M; m = e) {
      e = this.gatherRun(m, M)
      const src = f0 + (Np + this.gather[m]!) * C
      all.copyWithin(h0 + m * C, src, src + (e - m) * C)
    }
    mm(this.logits, hsel, p.wte!, null, M, C, this.Vp, wt.wte)
    kernels.headForward(this.probs, this.logprob, this.entropy, this.logits, this.targets, M, V, this.Vp)
    valueForward(this.values, hsel, p.valuew!, p.valueb!, M, C)
  }

  /** The end of the run of consecutive gathered positions that starts at m (< M). */
  private gatherRun(m: number, M: number): number {
    const g = this.gather,
      first = g[m]!
    let e = m + 1
    while (e < M && g[e] === first + (e - m)) e++
    return e
  }

  /** Backward of the last forward given dlogprob/dentropy/dvalues (M); gradients accumulate (+=). */
  backward(B: number, Tb: number, M: number, Bp = 0, Tp = 0): void {
    if (!this.trainable) throw new Error("tinylm: backward on a frozen model")
    const { d: C, layers: L, heads: NH, vocab: V } = this.config
    const Np = Bp * Tp
    const N = Np + B * Tb
    const a = this.a,
      al = this.al,
      pl = this.pl,
      gl = this.gl,
      p = this.p,
      g = this.g
    const mb = kernels.matmulBackward
    const dlogits = a.dlogits!,
      dhsel = a.dhsel!,
      dlnf = a.dlnf!,
      dres = a.dres!,
      dln = a.dln!
    const dqkv = a.dqkv!,
      datty = a.datty!,
      dfch = a.dfch!,
      dfchGelu = a.dfchGelu!
    dlogits.fill(0, 0, M * this.Vp)
    kernels.headBackward(dlogits, this.probs, this.logits, this.logprob, this.entropy, this.targets, this.dlogprob, this.dentropy, M, V, this.Vp)
    // fresh (the last argument): the kernel writes dinp rather than adding to it, the bits of adding to zeros without zeroing first
    mb(dhsel, g.wte!, null, dlogits, a.hsel!, p.wte!, M, C, this.Vp, true)
    // detached: the trunk's share goes to dres, which is zeroed below before it is used
    valueBackward(this.valueTrunkGrad ? dhsel : dres, g.valuew!, g.valueb!, this.dvalues, a.hsel!, p.valuew!, M, C)
    dlnf.fill(0, 0, N * C)
    // dlnf += the gathered rows' gradients, a run of consecutive positions per call (adds in m order)
    for (let m = 0, e = 0; m < M; m = e) {
      e = this.gatherRun(m, M)
      const dst = dlnf.subarray((Np + this.gather[m]!) * C, (Np + this.gather[e - 1]!) * C + C)
      kernels.residualForward(dst, dst, dhsel.subarray(m * C, e * C), (e - m) * C)
    }
    dres.fill(0, 0, N * C)
    const last = L > 0 ? al.res3![L - 1]! : a.encoded!
    kernels.layernormBackward(dres, g.lnfw!, g.lnfb!, dlnf, last, p.lnfw!, a.lnfMean!, a.lnfRstd!, N, C)
    for (let l = L - 1; l >= 0; l--) {
      const resIn = l === 0 ? a.encoded! : al.res3![l - 1]!
      // MLP: res3 = res2 + fcproj(gelu(fc(ln2(res2))))
      mb(dfchGelu, gl.fcprojw[l]!, gl.fcprojb[l]!, dres, al.fchGelu![l]!, pl.fcprojw[l]!, N, 4 * C, C, true)
      kernels.geluBackward(dfch, al.fch![l]!, dfchGelu, N * 4 * C, true)
      mb(dln, gl.fcw[l]!, gl.fcb[l]!, dfch, al.ln2![l]!, pl.fcw[l]!, N, C, 4 * C, true)
      kernels.layernormBackward(dres, gl.ln2w[l]!, gl.ln2b[l]!, dln, al.res2![l]!, pl.ln2w[l]!, al.ln2Mean![l]!, al.ln2Rstd![l]!, N, C)
      // attention: res2 = resIn + attproj(attn(qkv(ln1(resIn))))
      mb(datty, gl.attprojw[l]!, gl.attprojb[l]!, dres, al.atty![l]!, pl.attprojw[l]!, N, C, C, true)
      dqkv.fill(0, 0, N * 3 * C)
      if (Bp === 0) kernels.attentionBackward(dqkv, a.scratch!, datty, al.qkv![l]!, al.att![l]!, this.lens, B, Tb, C, NH)
      else {
        // the rows first (they add into their prefixes' k and v gradients), then the prefixes
        const qkv = al.qkv![l]!,
          att = al.att![l]!,
          pqkv = qkv.subarray(0, Np * 3 * C),
          dpqkv = dqkv.subarray(0, Np * 3 * C)
        kernels.attentionBackwardPrefixed(
          dqkv.subarray(Np * 3 * C),
          dpqkv,
          a.scratch!,
          datty.subarray(Np * C),
          qkv.subarray(Np * 3 * C),
          att.subarray(Bp * NH * Tp * Tp),
          this.lens,
          B,
          Tb,
          C,
          NH,
          pqkv,
          this.pref,
          Tp + Tb
        )
        kernels.attentionBackward(dpqkv, a.scratch!, datty, pqkv, att, this.plens, Bp, Tp, C, NH)
      }
      mb(dln, gl.qkvw[l]!, gl.qkvb[l]!, dqkv, al.ln1![l]!, pl.qkvw[l]!, N, C, 3 * C, true)
      kernels.layernormBackward(dres, gl.ln1w[l]!, gl.ln1b[l]!, dln, resIn, pl.ln1w[l]!, al.ln1Mean![l]!, al.ln1Rstd![l]!, N, C)
    }
    if (Bp > 0) {
      encoderBackward(g.wte!, g.wpe!, dres, this.tokens, Bp, Tp, C)
      encoderBackward(g.wte!, g.wpe!, dres.subarray(Np * C), this.tokens.subarray(Np), B, Tb, C, this.posOff)
    } else encoderBackward(g.wte!, g.wpe!, dres, this.tokens, B, Tb, C)
  }
}
