/**
 * The fast kernels over one compiled backend (the WASM module, or the native library through FFI):
 * they run in place on a model's arena, every typed-array argument passed as its byte offset to an
 * export with the C signature (WasmExports). A call whose arrays are not all inside one attached
 * memory (scratch arrays in tests, say) falls back to the plain JS kernel, so a fast backend is
 * always safe to select. A call large enough to pay for it is split in two across the kernel
 * pool's worker (wasm/pool.ts): rows of the output (matmul, attention, LayerNorm forward, GELU),
 * and for the weight gradient rows of dweight. Splits fall on tile boundaries (multiples of 12
 * rows), so every output is computed exactly as in the one-thread call.
 */
import { adamwUpdate } from "../adamw.ts"
import { attentionBackward, attentionBackwardPrefixed, attentionDecode, attentionDecodeRows, attentionForward, attentionForwardPrefixed } from "./attention.ts"
import type { Kernels } from "./dispatch.ts"
import { geluBackward, geluForward } from "./gelu.ts"
import { headBackward, headForward } from "./head.ts"
import { layernormBackward, layernormForward } from "./layernorm.ts"
import { matmulBackward, matmulForward } from "./matmul.ts"
import { residualForward } from "./residual.ts"
import type { KernelPool } from "./wasm/pool.ts"

/** The C exports (all pointers are byte offsets into the memory). */
export interface WasmExports {
  matmul_forward(out: number, inp: number, weight: number, bias: number, hasBias: number, BT: number, C: number, OC: number): void
  matmul_forward_t(out: number, inp: number, weight: number, bias: number, hasBias: number, BT: number, C: number, OC: number, wt: number, wtReady: number): void
  matmul_backward_part(
    dinp: number,
    dweight: number,
    dbias: number,
    /** 1: there is a bias; 2: dinp is fresh (written, not added to) */
    flags: number,
    dout: number,
    inp: number,
    weight: number,
    BT: number,
    C: number,
    OC: number,
    r0: number,
    r1: number,
    o0: number,
    o1: number
  ): void
  attention_forward(out: number, att: number, qkv: number, lens: number, B: number, T: number, C: number, NH: number): void
  attention_backward(dqkv: number, scratch: number, dout: number, qkv: number, att: number, lens: number, B: number, T: number, C: number, NH: number): void
  attention_forward_prefixed(out: number, att: number, qkv: number, lens: number, B: number, T: number, C: number, NH: number, pqkv: number, pref: number, Tk: number): void
  attention_backward_prefixed(
    dqkv: number,
    dpqkv: number,
    scratch: number,
    dout: number,
    qkv: number,
    att: number,
    lens: number,
    B: number,
    T: number,
    C: number,
    NH: number,
    pqkv: number,
    pref: number,
    Tk: number
  ): void
  attention_decode(out: number, att: number, q: number, kc: number, vc: number, t: number, C: number, NH: number): void
  attention_decode_rows(out: number, att: number, qkv: number, kc: number, vc: number, rows: number, N: number, T: number, C: number, NH: number): void
  residual_forward(out: number, a: number, b: number, N: number): void
  adamw_update(p: number, g: number, m: number, v: number, n: number, lr: number, b1: number, b2: number, eps: number, wd: number, bc1: number, bc2: number, gs: number): void
  gelu_forward(out: number, inp: number, N: number): void
  gelu_backward(dinp: number, inp: number, dout: number, N: number, fresh: number): void
  layernorm_forward(out: number, mean: number, rstd: number, inp: number, weight: number, bias: number, N: number, C: number): void
  layernorm_backward(dinp: number, dweight: number, dbias: number, dout: number, inp: number, weight: number, mean: number, rstd: number, N: number, C: number): void
  head_forward(probs: number, logprob: number, entropy: number, logits: number, targets: number, M: number, V: number, Vp: number): void
  head_backward(dlogits: number, probs: number, logits: number, logprob: number, entropy: number, targets: number, dlogprob: number, dentropy: number, M: number, V: number, Vp: number): void
}

/** One memory's kernels: the exports bound to it, and the memory (the pool names it to its worker). */
export interface Attached {
  readonly ex: WasmExports
  readonly memory: WebAssembly.Memory
}

/** A compiled backend: the memories it is attached to, its pool, and when a call is worth splitting. */
export interface FastBackend {
  /** Keyed by the memory's buffer: that is what a typed-array view can tell about itself. */
  readonly attached: WeakMap<ArrayBufferLike, Attached>
  /** The process's pool for this backend (undefined on one thread). */
  readonly pool: () => KernelPool | undefined
  /** Work (multiply-adds; elements for the pointwise kernels) from which a call is split in two (read per call). */
  splitMatmul: number
  splitPointwise: number
}

export const fastKernels = (backend: FastBackend): Kernels => {
  const attached = backend.attached
  type View = Float32Array | Int32Array

  /** The instance owning every given view, or undefined (→ JS fallback). Fixed arity: no rest-array allocation per call. */
  const owner = (a: View, b: View, c: View | null = null, d: View | null = null, e: View | null = null, f: View | null = null): Attached | undefined => {
    const buf = a.buffer
    if (b.buffer !== buf || (c !== null && c.buffer !== buf) || (d !== null && d.buffer !== buf) || (e !== null && e.buffer !== buf) || (f !== null && f.buffer !== buf)) return undefined
    return attached.get(buf)
  }

  /** The pool when a call of this much work should be split, else undefined. */
  const splitter = (work: number, threshold: number): KernelPool | undefined => (work >= threshold ? backend.pool() : undefined)

  /** A multiple of every build's matmul row tile (matmul.c TR: 3 wasm/SSE2, 6 AVX2, 4 AVX-512; 4 in the dot form). */
  const TILE_ROWS = 12
  /** A split point near n/2 that is a multiple of `tile`. */
  const half = (n: number, tile: number): number => Math.floor(n / 2 / tile) * tile

  /**
   * An elementwise kernel over float views (byte offsets `views`) of N elements, then an optional
   * flag: split in two at an element boundary (every element is computed alone, so the split
   * changes no bit) once N reaches the pointwise threshold.
   */
  const elementwise = (at: Attached, op: "residual_forward" | "gelu_forward" | "gelu_backward", views: number[], N: number, flag?: number): void => {
    const run = at.ex[op] as (...args: number[]) => void
    const tail = flag === undefined ? [] : [flag]
    const pool = splitter(N, backend.splitPointwise)
    if (pool === undefined) return run(...views, N, ...tail)
    const h = half(N, 4)
    pool.start(at.memory, op, [...views.map((v) => v + 4 * h), N - h, ...tail])
    run(...views, h, ...tail)
    pool.join()
  }

  /**
   * With `wt` (a slot of ≥ C·OC floats in the same memory) the broadcast-form kernel runs: it writes
   * the transposed weight there first, unless `wtReady` says the slot already holds it (the
   * sampler's decode steps reuse what the prefill forward wrote). Without `wt`, the dot form.
   */
  function fastMatmulForward(
    out: Float32Array,
    inp: Float32Array,
    weight: Float32Array,
    bias: Float32Array | null,
    BT: number,
    C: number,
    OC: number,
    wt?: Float32Array | null,
    wtReady = false
  ): void {
    const at = owner(out, inp, weight, bias, wt ?? null)
    if (at === undefined) return matmulForward(out, inp, weight, bias, BT, C, OC)
    const ex = at.ex
    const o = out.byteOffset,
      x = inp.byteOffset,
      w = weight.byteOffset,
      b = bias === null ? 0 : bias.byteOffset,
      hasBias = bias === null ? 0 : 1
    const transposed = wt != null && wt.length >= C * OC
    const pool = BT >= 8 ? splitter(BT * C * OC, backend.splitMatmul) : undefined
    if (pool === undefined) {
      if (transposed) ex.matmul_forward_t(o, x, w, b, hasBias, BT, C, OC, wt.byteOffset, wtReady ? 1 : 0)
      else ex.matmul_forward(o, x, w, b, hasBias, BT, C, OC)
      return
    }
    // rows [h, BT) on the worker: the row tiles (3, 4 or 6 rows, by form and build) stay whole
    const h = half(BT, TILE_ROWS)
    if (transposed) {
      const t = wt.byteOffset
      if (!wtReady) ex.matmul_forward_t(o, x, w, b, hasBias, 0, C, OC, t, 0) // BT = 0: only write the transpose
      pool.start(at.memory, "matmul_forward_t", [o + 4 * h * OC, x + 4 * h * C, w, b, hasBias, BT - h, C, OC, t, 1])
      ex.matmul_forward_t(o, x, w, b, hasBias, h, C, OC, t, 1)
    } else {
      pool.start(at.memory, "matmul_forward", [o + 4 * h * OC, x + 4 * h * C, w, b, hasBias, BT - h, C, OC])
      ex.matmul_forward(o, x, w, b, hasBias, h, C, OC)
    }
    pool.join()
  }

  function fastMatmulBackward(
    dinp: Float32Array,
    dweight: Float32Array,
    dbias: Float32Array | null,
    dout: Float32Array,
    inp: Float32Array,
    weight: Float32Array,
    BT: number,
    C: number,
    OC: number,
    fresh = false
  ): void {
    const at = owner(dinp, dweight, dbias, dout, inp, weight)
    if (at === undefined) return matmulBackward(dinp, dweight, dbias, dout, inp, weight, BT, C, OC, fresh)
    const ex = at.ex
    const di = dinp.byteOffset,
      dw = dweight.byteOffset,
      db = dbias === null ? 0 : dbias.byteOffset,
      f = fresh ? 2 : 0,
      flags = (dbias === null ? 0 : 1) | f
    const g = dout.byteOffset,
      x = inp.byteOffset,
      w = weight.byteOffset
    const pool = BT >= 6 && OC >= 6 ? splitter(BT * C * OC, backend.splitMatmul) : undefined
    if (pool === undefined) return ex.matmul_backward_part(di, dw, db, flags, g, x, w, BT, C, OC, 0, BT, 0, OC)
    // worker: dinp rows [h, BT) and dweight rows [oh, OC); caller: the rest and the bias
    const h = half(BT, TILE_ROWS),
      oh = half(OC, TILE_ROWS)
    pool.start(at.memory, "matmul_backward_part", [di, dw, 0, f, g, x, w, BT, C, OC, h, BT, oh, OC])
    ex.matmul_backward_part(di, dw, db, flags, g, x, w, BT, C, OC, 0, h, 0, oh)
    pool.join()
  }

  function fastAttentionForward(out: Float32Array, att: Float32Array, qkv: Float32Array, lens: Int32Array, B: number, T: number, C: number, NH: number): void {
    const at = owner(out, att, qkv, lens)
    if (at === undefined) return attentionForward(out, att, qkv, lens, B, T, C, NH)
    const o = out.byteOffset,
      a = att.byteOffset,
      q = qkv.byteOffset,
      l = lens.byteOffset
    const pool = B >= 2 ? splitter(B * T * T * C, backend.splitMatmul) : undefined
    if (pool === undefined) return at.ex.attention_forward(o, a, q, l, B, T, C, NH)
    // rows of the batch are independent: [h, B) on the worker
    const h = B >> 1
    pool.start(at.memory, "attention_forward", [o + 4 * h * T * C, a + 4 * h * NH * T * T, q + 4 * h * T * 3 * C, l + 4 * h, B - h, T, C, NH])
    at.ex.attention_forward(o, a, q, l, h, T, C, NH)
    pool.join()
  }

  function fastAttentionBackward(
    dqkv: Float32Array,
    scratch: Float32Array,
    dout: Float32Array,
    qkv: Float32Array,
    att: Float32Array,
    lens: Int32Array,
    B: number,
    T: number,
    C: number,
    NH: number
  ): void {
    const at = owner(dqkv, scratch, dout, qkv, att, lens)
    if (at === undefined) return attentionBackward(dqkv, scratch, dout, qkv, att, lens, B, T, C, NH)
    const dq = dqkv.byteOffset,
      s = scratch.byteOffset,
      g = dout.byteOffset,
      q = qkv.byteOffset,
      a = att.byteOffset,
      l = lens.byteOffset
    // the worker needs its own T floats of scratch: the second half of a 2T scratch
    const pool = B >= 2 && scratch.length >= 2 * T ? splitter(B * T * T * C, backend.splitMatmul) : undefined
    if (pool === undefined) return at.ex.attention_backward(dq, s, g, q, a, l, B, T, C, NH)
    const h = B >> 1
    pool.start(at.memory, "attention_backward", [dq + 4 * h * T * 3 * C, s + 4 * T, g + 4 * h * T * C, q + 4 * h * T * 3 * C, a + 4 * h * NH * T * T, l + 4 * h, B - h, T, C, NH])
    at.ex.attention_backward(dq, s, g, q, a, l, h, T, C, NH)
    pool.join()
  }

  function fastAttentionForwardPrefixed(
    out: Float32Array,
    att: Float32Array,
    qkv: Float32Array,
    lens: Int32Array,
    B: number,
    T: number,
    C: number,
    NH: number,
    pqkv: Float32Array,
    pref: Int32Array,
    Tk: number
  ): void {
    const at = pref.buffer === out.buffer ? owner(out, att, qkv, lens, pqkv) : undefined
    if (at === undefined) return attentionForwardPrefixed(out, att, qkv, lens, B, T, C, NH, pqkv, pref, Tk)
    const o = out.byteOffset,
      a = att.byteOffset,
      q = qkv.byteOffset,
      l = lens.byteOffset,
      pq = pqkv.byteOffset,
      pr = pref.byteOffset
    const pool = B >= 2 ? splitter(B * T * Tk * C, backend.splitMatmul) : undefined
    if (pool === undefined) return at.ex.attention_forward_prefixed(o, a, q, l, B, T, C, NH, pq, pr, Tk)
    // rows are independent (the prefix is only read): [h, B) on the worker
    const h = B >> 1
    pool.start(at.memory, "attention_forward_prefixed", [o + 4 * h * T * C, a + 4 * h * NH * T * Tk, q + 4 * h * T * 3 * C, l + 4 * h, B - h, T, C, NH, pq, pr + 8 * h, Tk])
    at.ex.attention_forward_prefixed(o, a, q, l, h, T, C, NH, pq, pr, Tk)
    pool.join()
  }

  /** A split row near B/2 where the prefix changes (rows are grouped by prefix), or 0 when there is none. */
  const prefixBoundary = (pref: Int32Array, B: number): number => {
    const mid = B >> 1
    for (let d = 0; d < mid; d++) {
      for (const h of [mid - d, mid + d]) if (h > 0 && h < B && pref[2 * h] !== pref[2 * h - 2]) return h
    }
    return 0
  }

  function fastAttentionBackwardPrefixed(
    dqkv: Float32Array,
    dpqkv: Float32Array,
    scratch: Float32Array,
    dout: Float32Array,
    qkv: Float32Array,
    att: Float32Array,
    lens: Int32Array,
    B: number,
    T: number,
    C: number,
    NH: number,
    pqkv: Float32Array,
    pref: Int32Array,
    Tk: number
  ): void {
    const at = pqkv.buffer === dqkv.buffer && pref.buffer === dqkv.buffer && lens.buffer === dqkv.buffer ? owner(dqkv, dpqkv, scratch, dout, qkv, att) : undefined
    if (at === undefined) return attentionBackwardPrefixed(dqkv, dpqkv, scratch, dout, qkv, att, lens, B, T, C, NH, pqkv, pref, Tk)
    const dq = dqkv.byteOffset,
      dp = dpqkv.byteOffset,
      s = scratch.byteOffset,
      g = dout.byteOffset,
      q = qkv.byteOffset,
      a = att.byteOffset
    const l = lens.byteOffset,
      pq = pqkv.byteOffset,
      pr = pref.byteOffset
    // Both threads add into the prefix gradients: split only between rows of different prefixes,
    // so each prefix's sum keeps its one-thread order. The worker's scratch is the second half.
    const h = scratch.length >= 2 * Tk && B >= 2 ? prefixBoundary(pref, B) : 0
    const pool = h > 0 ? splitter(B * T * Tk * C, backend.splitMatmul) : undefined
    if (pool === undefined) return at.ex.attention_backward_prefixed(dq, dp, s, g, q, a, l, B, T, C, NH, pq, pr, Tk)
    pool.start(at.memory, "attention_backward_prefixed", [
      dq + 4 * h * T * 3 * C,
      dp,
      s + 4 * Tk,
      g + 4 * h * T * C,
      q + 4 * h * T * 3 * C,
      a + 4 * h * NH * T * Tk,
      l + 4 * h,
      B - h,
      T,
      C,
      NH,
      pq,
      pr + 8 * h,
      Tk
    ])
    at.ex.attention_backward_prefixed(dq, dp, s, g, q, a, l, h, T, C, NH, pq, pr, Tk)
    pool.join()
  }

  function fastAttentionDecode(
    out: Float32Array,
    outOff: number,
    att: Float32Array,
    q: Float32Array,
    qOff: number,
    kc: Float32Array,
    vc: Float32Array,
    kvOff: number,
    t: number,
    C: number,
    NH: number
  ): void {
    const at = owner(out, att, q, kc, vc)
    if (at === undefined) return attentionDecode(out, outOff, att, q, qOff, kc, vc, kvOff, t, C, NH)
    at.ex.attention_decode(out.byteOffset + 4 * outOff, att.byteOffset, q.byteOffset + 4 * qOff, kc.byteOffset + 4 * kvOff, vc.byteOffset + 4 * kvOff, t, C, NH)
  }

  /**
   * One call for all of a decode step's rows (the cache writes included); att needs 4T floats. On one
   * thread, as the decode matmuls: split in two, the step's rollout ran 1.7× slower on a loaded machine.
   */
  function fastAttentionDecodeRows(out: Float32Array, att: Float32Array, qkv: Float32Array, kc: Float32Array, vc: Float32Array, rows: Int32Array, N: number, T: number, C: number, NH: number): void {
    const at = att.length >= 4 * T ? owner(out, att, qkv, kc, vc, rows) : undefined
    if (at === undefined) return attentionDecodeRows(out, att, qkv, kc, vc, rows, N, T, C, NH)
    at.ex.attention_decode_rows(out.byteOffset, att.byteOffset, qkv.byteOffset, kc.byteOffset, vc.byteOffset, rows.byteOffset, N, T, C, NH)
  }

  function fastAdamwUpdate(
    params: Float32Array,
    grads: Float32Array,
    m: Float32Array,
    v: Float32Array,
    lr: number,
    beta1: number,
    beta2: number,
    eps: number,
    wd: number,
    bc1: number,
    bc2: number,
    gradScale: number
  ): void {
    const at = owner(params, grads, m, v)
    if (at === undefined) return adamwUpdate(params, grads, m, v, lr, beta1, beta2, eps, wd, bc1, bc2, gradScale)
    at.ex.adamw_update(params.byteOffset, grads.byteOffset, m.byteOffset, v.byteOffset, params.length, lr, beta1, beta2, eps, wd, bc1, bc2, gradScale)
  }

  function fastResidualForward(out: Float32Array, a: Float32Array, b: Float32Array, N: number): void {
    const at = owner(out, a, b)
    if (at === undefined) return residualForward(out, a, b, N)
    elementwise(at, "residual_forward", [out.byteOffset, a.byteOffset, b.byteOffset], N)
  }

  function fastGeluForward(out: Float32Array, inp: Float32Array, N: number): void {
    const at = owner(out, inp)
    if (at === undefined) return geluForward(out, inp, N)
    elementwise(at, "gelu_forward", [out.byteOffset, inp.byteOffset], N)
  }

  function fastGeluBackward(dinp: Float32Array, inp: Float32Array, dout: Float32Array, N: number, fresh = false): void {
    const at = owner(dinp, inp, dout)
    if (at === undefined) return geluBackward(dinp, inp, dout, N, fresh)
    elementwise(at, "gelu_backward", [dinp.byteOffset, inp.byteOffset, dout.byteOffset], N, fresh ? 1 : 0)
  }

  function fastLayernormForward(out: Float32Array, mean: Float32Array, rstd: Float32Array, inp: Float32Array, weight: Float32Array, bias: Float32Array, N: number, C: number): void {
    const at = owner(out, mean, rstd, inp, weight, bias)
    if (at === undefined) return layernormForward(out, mean, rstd, inp, weight, bias, N, C)
    const o = out.byteOffset,
      mu = mean.byteOffset,
      rs = rstd.byteOffset,
      x = inp.byteOffset,
      w = weight.byteOffset,
      b = bias.byteOffset
    const pool = splitter(N * C, backend.splitPointwise)
    if (pool === undefined) return at.ex.layernorm_forward(o, mu, rs, x, w, b, N, C)
    // rows are independent (the backward sums dweight over rows, so it stays on one thread)
    const h = N >> 1
    pool.start(at.memory, "layernorm_forward", [o + 4 * h * C, mu + 4 * h, rs + 4 * h, x + 4 * h * C, w, b, N - h, C])
    at.ex.layernorm_forward(o, mu, rs, x, w, b, h, C)
    pool.join()
  }

  function fastLayernormBackward(
    dinp: Float32Array,
    dweight: Float32Array,
    dbias: Float32Array,
    dout: Float32Array,
    inp: Float32Array,
    weight: Float32Array,
    mean: Float32Array,
    rstd: Float32Array,
    N: number,
    C: number
  ): void {
    // eight arrays: the two not covered by owner's six are checked here
    const at = mean.buffer === dinp.buffer && rstd.buffer === dinp.buffer ? owner(dinp, dweight, dbias, dout, inp, weight) : undefined
    if (at === undefined) return layernormBackward(dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C)
    at.ex.layernorm_backward(dinp.byteOffset, dweight.byteOffset, dbias.byteOffset, dout.byteOffset, inp.byteOffset, weight.byteOffset, mean.byteOffset, rstd.byteOffset, N, C)
  }

  function fastHeadForward(probs: Float32Array, logprob: Float32Array, entropy: Float32Array, logits: Float32Array, targets: Int32Array, M: number, V: number, Vp: number): void {
    const at = owner(probs, logprob, entropy, logits, targets)
    if (at === undefined) return headForward(probs, logprob, entropy, logits, targets, M, V, Vp)
    const p = probs.byteOffset,
      lp = logprob.byteOffset,
      en = entropy.byteOffset,
      z = logits.byteOffset,
      y = targets.byteOffset
    const pool = M >= 2 ? splitter(M * V, backend.splitPointwise) : undefined
    if (pool === undefined) return at.ex.head_forward(p, lp, en, z, y, M, V, Vp)
    const h = M >> 1 // rows are independent
    pool.start(at.memory, "head_forward", [p + 4 * h * Vp, lp + 4 * h, en + 4 * h, z + 4 * h * Vp, y + 4 * h, M - h, V, Vp])
    at.ex.head_forward(p, lp, en, z, y, h, V, Vp)
    pool.join()
  }

  function fastHeadBackward(
    dlogits: Float32Array,
    probs: Float32Array,
    logits: Float32Array,
    logprob: Float32Array,
    entropy: Float32Array,
    targets: Int32Array,
    dlogprob: Float32Array,
    dentropy: Float32Array,
    M: number,
    V: number,
    Vp: number
  ): void {
    // eight arrays: the two not covered by owner's six are checked here
    const at = dlogprob.buffer === dlogits.buffer && dentropy.buffer === dlogits.buffer ? owner(dlogits, probs, logits, logprob, entropy, targets) : undefined
    if (at === undefined) return headBackward(dlogits, probs, logits, logprob, entropy, targets, dlogprob, dentropy, M, V, Vp)
    const d = dlogits.byteOffset,
      p = probs.byteOffset,
      z = logits.byteOffset,
      lp = logprob.byteOffset,
      en = entropy.byteOffset
    const y = targets.byteOffset,
      gl = dlogprob.byteOffset,
      ge = dentropy.byteOffset
    const pool = M >= 2 ? splitter(M * V, backend.splitPointwise) : undefined
    if (pool === undefined) return at.ex.head_backward(d, p, z, lp, en, y, gl, ge, M, V, Vp)
    const h = M >> 1
    const r = (o: number, w: number) => o + 4 * h * w
    pool.start(at.memory, "head_backward", [r(d, Vp), r(p, Vp), r(z, Vp), r(lp, 1), r(en, 1), r(y, 1), r(gl, 1), r(ge, 1), M - h, V, Vp])
    at.ex.head_backward(d, p, z, lp, en, y, gl, ge, h, V, Vp)
    pool.join()
  }

  return {
    matmulForward: fastMatmulForward,
    matmulBackward: fastMatmulBackward,
    attentionForward: fastAttentionForward,
    attentionBackward: fastAttentionBackward,
    attentionForwardPrefixed: fastAttentionForwardPrefixed,
    attentionBackwardPrefixed: fastAttentionBackwardPrefixed,
    attentionDecode: fastAttentionDecode,
    attentionDecodeRows: fastAttentionDecodeRows,
    residualForward: fastResidualForward,
    adamwUpdate: fastAdamwUpdate,
    geluForward: fastGeluForward,
    geluBackward: fastGeluBackward,
    layernormForward: fastLayernormForward,
    layernormBackward: fastLayernormBackward,
    headForward: fastHeadForward,
    headBackward: fastHeadBackward
  }
}
