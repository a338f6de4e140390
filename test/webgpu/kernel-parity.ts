/**
 * Each WGSL kernel against its CPU twin (plugins/tinylm/kernels/*.ts, the plain JS reference)
 * on random inputs with awkward sizes (not multiples of the tiles), reporting the max absolute
 * and relative error. Runs wherever a GPUDevice exists (Deno on lavapipe in the tests).
 * Relative error: |gpu − cpu| / max(|cpu|, 1e-3) (the floor keeps near-zero outputs from
 * dominating; the absolute error covers those).
 */
import { Rng } from "../../core/rng.ts"
import { attentionForward, attentionForwardPrefixed } from "../../plugins/tinylm/kernels/attention.ts"
import { encoderForward } from "../../plugins/tinylm/kernels/encoder.ts"
import { geluForward } from "../../plugins/tinylm/kernels/gelu.ts"
import { headForward } from "../../plugins/tinylm/kernels/head.ts"
import { layernormForward } from "../../plugins/tinylm/kernels/layernorm.ts"
import { matmulForward } from "../../plugins/tinylm/kernels/matmul.ts"
import { residualForward } from "../../plugins/tinylm/kernels/residual.ts"
import { valueForward } from "../../plugins/tinylm/kernels/value.ts"
import { groupsFor, type Pipelines, runKernel } from "../../plugins/webgpu/engine.ts"

export interface ErrorReport {
  readonly maxAbs: number
  readonly maxRel: number
  readonly n: number
}

export const compare = (gpu: ArrayLike<number>, cpu: ArrayLike<number>): ErrorReport => {
  let maxAbs = 0,
    maxRel = 0
  if (gpu.length !== cpu.length) throw new Error(`length ${gpu.length} vs ${cpu.length}`)
  for (let i = 0; i < cpu.length; i++) {
    const g = gpu[i]!,
      c = cpu[i]!
    const d = Math.abs(g - c)
    if (!Number.isFinite(g) || !(d <= Infinity)) return { maxAbs: Infinity, maxRel: Infinity, n: cpu.length }
    maxAbs = Math.max(maxAbs, d)
    maxRel = Math.max(maxRel, d / Math.max(Math.abs(c), 1e-3))
  }
  return { maxAbs, maxRel, n: cpu.length }
}

const randn = (n: number, rng: Rng, s = 1): Float32Array => {
  const x = new Float32Array(n)
  for (let i = 0; i < n; i++) x[i] = rng.normal() * s
  return x
}

/** Tolerances stated per kernel (float32 on the GPU against float64 sums on the CPU). */
/** The matmul's fusions off (plan.ts's unfused list). */
const PLAIN = { epi: 0, ln: 0, lnw: 0, lnb: 0 }

export const KERNEL_TOLERANCE = { abs: 1e-5, rel: 2e-3 } as const

export const kernelParity = async (device: GPUDevice, pipes: Pipelines): Promise<Record<string, ErrorReport>> => {
  const rng = new Rng(7)
  const out: Record<string, ErrorReport> = {}

  // matmul: m=100, k=72, n=200 with bias, and the head's shape without bias
  for (const [m, k, n, bias] of [
    [100, 72, 200, true],
    [37, 64, 80, false]
  ] as const) {
    const inp = randn(m * k, rng),
      W = randn(n * k, rng, 0.2),
      b = randn(n, rng)
    const ref = new Float32Array(m * n)
    matmulForward(ref, inp, W, bias ? b : null, m, k, n)
    const w = new Float32Array(n * k + n)
    w.set(W, 0)
    w.set(b, n * k)
    const a = new Float32Array(m * k + m * n)
    a.set(inp, 0)
    const got = await runKernel(device, pipes, "matmul", { m, k, n, inp: 0, out: m * k, wt: 0, bias: n * k, hasbias: bias ? 1 : 0, ...PLAIN }, groupsFor("matmul", 0, m, n), w, a, new Int32Array(4))
    out[`matmul ${m}x${k}x${n}${bias ? " +bias" : ""}`] = compare(got.subarray(m * k), ref)
  }

  // the fused matmuls (plan.ts): LayerNorm prologue + GELU epilogue, and the residual epilogue,
  // against the CPU kernels they replace run one after the other
  {
    const m = 70,
      k = 64,
      n = 200
    const x = randn(m * k, rng, 2),
      W = randn(n * k, rng, 0.2),
      b = randn(n, rng),
      lw = randn(k, rng),
      lb = randn(k, rng),
      res = randn(m * n, rng)
    const ln = new Float32Array(m * k)
    layernormForward(ln, new Float32Array(m), new Float32Array(m), x, lw, lb, m, k)
    const mmOut = new Float32Array(m * n)
    matmulForward(mmOut, ln, W, b, m, k, n)
    const refGelu = new Float32Array(m * n)
    geluForward(refGelu, mmOut, m * n)
    const w = new Float32Array(n * k + n + 2 * k)
    w.set(W, 0)
    w.set(b, n * k)
    w.set(lw, n * k + n)
    w.set(lb, n * k + n + k)
    const a = new Float32Array(m * k + m * n)
    a.set(x, 0)
    const fused = { m, k, n, inp: 0, out: m * k, wt: 0, bias: n * k, hasbias: 1, epi: 1, ln: 1, lnw: n * k + n, lnb: n * k + n + k }
    for (const mk of ["matmul", "matmul32"] as const) {
      const got = await runKernel(device, pipes, mk, fused, groupsFor(mk, 0, m, n), w, a, new Int32Array(4))
      out[`${mk} ${m}x${k}x${n} LayerNorm prologue + GELU epilogue`] = compare(got.subarray(m * k), refGelu)
      const plain = await runKernel(device, pipes, mk, { ...fused, ...PLAIN }, groupsFor(mk, 0, m, n), w, a, new Int32Array(4))
      const refPlain = new Float32Array(m * n)
      matmulForward(refPlain, x, W, b, m, k, n)
      if (mk === "matmul32") out[`matmul32 ${m}x${k}x${n} +bias`] = compare(plain.subarray(m * k), refPlain)
    }
    // residual: out += x · W^T + b (out holds the residual stream)
    const mm2 = new Float32Array(m * n)
    matmulForward(mm2, x, W, b, m, k, n)
    const refRes = new Float32Array(m * n)
    residualForward(refRes, res, mm2, m * n)
    a.set(res, m * k)
    for (const mk of ["matmul", "matmul32"] as const) {
      const got2 = await runKernel(device, pipes, mk, { ...fused, epi: 2, ln: 0 }, groupsFor(mk, 0, m, n), w, a, new Int32Array(4))
      out[`${mk} ${m}x${k}x${n} residual epilogue`] = compare(got2.subarray(m * k), refRes)
    }
  }

  // layernorm: plain, and gathered rows (usemap)
  {
    const N = 45,
      C = 72
    const inp = randn(N * C, rng, 3),
      wt = randn(C, rng),
      bs = randn(C, rng)
    const ref = new Float32Array(N * C)
    layernormForward(ref, new Float32Array(N), new Float32Array(N), inp, wt, bs, N, C)
    const w = new Float32Array(2 * C)
    w.set(wt, 0)
    w.set(bs, C)
    const a = new Float32Array(2 * N * C)
    a.set(inp, 0)
    const got = await runKernel(device, pipes, "layernorm", { rows: N, c: C, inp: 0, out: N * C, wt: 0, bs: C, map: 0, usemap: 0 }, groupsFor("layernorm", N), w, a, new Int32Array(4))
    out[`layernorm ${N}x${C}`] = compare(got.subarray(N * C), ref)
    const map = Int32Array.from([44, 3, 3, 17, 0])
    const refMap = new Float32Array(map.length * C)
    map.forEach((r, i) => refMap.set(ref.subarray(r * C, (r + 1) * C), i * C))
    const got2 = await runKernel(device, pipes, "layernorm", { rows: map.length, c: C, inp: 0, out: N * C, wt: 0, bs: C, map: 0, usemap: 1 }, groupsFor("layernorm", map.length), w, a, map)
    out[`layernorm gathered ${map.length}x${C}`] = compare(got2.subarray(N * C, N * C + map.length * C), refMap)
  }

  // encoder: 2 prefix rows of 5, then 3 rows of 4 continuing at position offsets (packed:
  // segments back to back; the CPU twin's prefix block and row block hold the same positions)
  {
    const C = 12,
      V = 20,
      ctx = 16,
      Bp = 2,
      Tp = 5,
      B = 3,
      Tb = 4
    const Np = Bp * Tp,
      N = Np + B * Tb
    const wte = randn(V * C, rng),
      wpe = randn(ctx * C, rng)
    const tok = Int32Array.from({ length: N }, () => rng.int(V))
    const posOff = Int32Array.from([5, 3, 14]) // the last one runs past ctx: clamped
    const ref = new Float32Array(N * C)
    encoderForward(ref, tok, wte, wpe, Bp, Tp, C)
    encoderForward(ref.subarray(Np * C), tok.subarray(Np), wte, wpe, B, Tb, C, posOff)
    const w = new Float32Array(V * C + ctx * C)
    w.set(wte, 0)
    w.set(wpe, V * C)
    const starts = [0, 5, 10, 14, 18],
      sp = [0, 0, ...posOff]
    const seg = Int32Array.from({ length: N }, (_, n) => starts.filter((st) => st <= n).length - 1)
    const ids = Int32Array.from([...tok, ...seg, ...starts, ...sp])
    const got = await runKernel(
      device,
      pipes,
      "encoder",
      { n: N, c: C, wte: 0, wpe: V * C, last: ctx - 1, out: 0, tok: 0, seg: N, sstart: 2 * N, sp: 2 * N + 5 },
      groupsFor("encoder", N * C),
      w,
      new Float32Array(N * C),
      ids
    )
    out[`encoder ${Bp}x${Tp}+${B}x${Tb}x${C}`] = compare(got, ref)
  }

  // attention: 2 prefixes (lengths 6, 4), 4 rows (5, 3, 5, 2 positions; the last without a
  // prefix). CPU: padded blocks (Tp = 6, Tb = 5); GPU: the valid positions packed
  {
    const C = 32,
      NH = 4,
      Bp = 2,
      Tp = 6,
      B = 4,
      Tb = 5
    const Np = Bp * Tp,
      N = Np + B * Tb
    const qkv = randn(N * 3 * C, rng)
    const plens = Int32Array.from([6, 4]),
      lens = Int32Array.from([5, 3, 5, 2])
    const pref = Int32Array.from([0, 6, 6, 4, 0, 6, 0, 0])
    const ref = new Float32Array(N * C)
    const att = new Float32Array(Math.max(Bp * NH * Tp * Tp, B * NH * Tb * (Tp + Tb)))
    attentionForward(ref, att, qkv.subarray(0, Np * 3 * C), plens, Bp, Tp, C, NH)
    attentionForwardPrefixed(ref.subarray(Np * C), att, qkv.subarray(Np * 3 * C), lens, B, Tb, C, NH, qkv.subarray(0, Np * 3 * C), pref, Tp + Tb)
    // packed: each segment's valid positions; padded index of each packed position
    const src: number[] = [],
      seg: number[] = [],
      starts: number[] = [],
      sp0: number[] = [],
      sp: number[] = []
    const pStart: number[] = []
    const add = (first: number, len: number, p0: number, P: number) => {
      starts.push(src.length)
      sp0.push(p0)
      sp.push(P)
      for (let t = 0; t < len; t++) src.push(first + t), seg.push(starts.length - 1)
    }
    for (let p = 0; p < Bp; p++) pStart.push(src.length), add(p * Tp, plens[p]!, 0, 0)
    for (let b = 0; b < B; b++) {
      const P = pref[2 * b + 1]!
      add(Np + b * Tb, lens[b]!, P > 0 ? pStart[pref[2 * b]! / Tp]! : 0, P)
    }
    const Nk = src.length
    const a = new Float32Array(Nk * 3 * C + Nk * C)
    src.forEach((n, k) => a.set(qkv.subarray(n * 3 * C, (n + 1) * 3 * C), k * 3 * C))
    const want = new Float32Array(Nk * C)
    src.forEach((n, k) => want.set(ref.subarray(n * C, (n + 1) * C), k * C))
    const ids = Int32Array.from([...seg, ...starts, ...sp0, ...sp])
    const S = starts.length
    // the generic kernel and the one for head sizes ≤ 16 (hs = 8 here)
    for (const k of ["attention", "attention16"] as const) {
      const params = { total: Nk, c: C, nh: NH, qkv: 0, out: Nk * 3 * C, seg: 0, sstart: Nk, sp0: Nk + S, sp: Nk + 2 * S }
      const got = await runKernel(device, pipes, k, params, groupsFor(k, Nk * NH), new Float32Array(4), a, ids)
      out[`${k} prefixed ${Bp} prefixes + ${B} rows, C${C} NH${NH}`] = compare(got.subarray(Nk * 3 * C), want)
    }
  }

  // gelu (in place) over a wide range, residual
  {
    const n = 1000
    const x = randn(n, rng, 4)
    x[0] = 30
    x[1] = -30
    const ref = new Float32Array(n)
    geluForward(ref, x, n)
    const got = await runKernel(device, pipes, "gelu", { n, x: 0 }, groupsFor("gelu", n), new Float32Array(4), x.slice(), new Int32Array(4))
    out[`gelu ${n}`] = compare(got, ref)
    const y = randn(n, rng)
    const refR = new Float32Array(n)
    residualForward(refR, x, y, n)
    const a = new Float32Array(3 * n)
    a.set(x, 0)
    a.set(y, n)
    const gotR = await runKernel(device, pipes, "residual", { n, out: 2 * n, x: 0, y: n }, groupsFor("residual", n), new Float32Array(4), a, new Int32Array(4))
    out[`residual ${n}`] = compare(gotR.subarray(2 * n), refR)
  }

  // head: log-softmax over V real entries of Vp, gather of the target, entropy
  {
    const M = 9,
      V = 300,
      Vp = 304
    const logits = randn(M * Vp, rng, 3)
    const tgt = Int32Array.from({ length: M }, () => rng.int(V))
    const lp = new Float32Array(M),
      ent = new Float32Array(M)
    headForward(new Float32Array(M * Vp), lp, ent, logits, tgt, M, V, Vp)
    const a = new Float32Array(M * Vp + 2 * M)
    a.set(logits, 0)
    const got = await runKernel(device, pipes, "head", { m: M, v: V, vp: Vp, logits: 0, lp: M * Vp, tgt: 0, ent: M * Vp + M }, groupsFor("head", M), new Float32Array(4), a, tgt)
    out[`head log-softmax+gather ${M}x${V}`] = compare(got.subarray(M * Vp, M * Vp + M), lp)
    out[`head entropy ${M}x${V}`] = compare(got.subarray(M * Vp + M), ent)
  }

  // value head: v = h · w + b on gathered rows
  {
    const M = 300,
      C = 72
    const h = randn(M * C, rng),
      wv = randn(C, rng, 0.3),
      b = randn(1, rng)
    const ref = new Float32Array(M)
    valueForward(ref, h, wv, b, M, C)
    const w = new Float32Array(C + 1)
    w.set(wv, 0)
    w.set(b, C)
    const a = new Float32Array(M * C + M)
    a.set(h, 0)
    const got = await runKernel(device, pipes, "value", { m: M, c: C, inp: 0, wt: 0, bs: C, out: M * C }, groupsFor("value", M), w, a, new Int32Array(4))
    out[`value ${M}x${C}`] = compare(got.subarray(M * C), ref)
  }

  // reduce: per-row sum and per-token mean (over the whole continuation; 0 for an empty one)
  {
    const lp = randn(20, rng)
    const start = [0, 5, 12, 12],
      scored = [5, 7, 0, 8],
      total = [5, 9, 0, 8]
    const ref: number[] = []
    for (let r = 0; r < 4; r++) {
      let s = 0
      for (let j = 0; j < scored[r]!; j++) s += lp[start[r]! + j]!
      ref.push(s, total[r]! > 0 ? s / total[r]! : 0)
    }
    const a = new Float32Array(20 + 8)
    a.set(lp, 0)
    const got = await runKernel(
      device,
      pipes,
      "reduce",
      { rows: 4, lp: 0, start: 0, scored: 4, total: 8, out: 20 },
      groupsFor("reduce", 4),
      new Float32Array(4),
      a,
      Int32Array.from([...start, ...scored, ...total])
    )
    out["reduce sum+mean 4 rows"] = compare(got.subarray(20), ref)
  }
  return out
}
