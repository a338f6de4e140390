import { describe, expect, test } from "bun:test"
import { Rng } from "../../core/rng.ts"
import { attentionBackward, attentionForward } from "../../plugins/tinylm/kernels/attention.ts"
import { encoderBackward, encoderForward } from "../../plugins/tinylm/kernels/encoder.ts"
import { geluBackward, geluForward } from "../../plugins/tinylm/kernels/gelu.ts"
import { headBackward, headForward } from "../../plugins/tinylm/kernels/head.ts"
import { layernormBackward, layernormForward } from "../../plugins/tinylm/kernels/layernorm.ts"
import { matmulBackward, matmulForward } from "../../plugins/tinylm/kernels/matmul.ts"
import { residualBackward, residualForward } from "../../plugins/tinylm/kernels/residual.ts"
import { valueBackward, valueForward } from "../../plugins/tinylm/kernels/value.ts"
import { dot, fdMaxRelError, randn } from "./helpers.ts"

// Tolerance: central differences with h = 1e-2 on float32 kernels; float64 losses. Max rel error < 2e-2.
const TOL = 2e-2
const report = (name: string, e: number) => console.log(`fd ${name}: max rel error ${e.toExponential(2)}`)

describe("finite-difference checks of every backward kernel", () => {
  test("matmul (odd sizes exercise the unrolled and remainder paths)", () => {
    const rng = new Rng(1)
    const BT = 7,
      C = 6,
      OC = 6
    const inp = randn(BT * C, rng),
      w = randn(OC * C, rng),
      b = randn(OC, rng),
      proj = randn(BT * OC, rng)
    const out = new Float32Array(BT * OC)
    const loss = () => (matmulForward(out, inp, w, b, BT, C, OC), dot(out, proj))
    const dinp = new Float32Array(BT * C),
      dw = new Float32Array(OC * C),
      db = new Float32Array(OC)
    matmulBackward(dinp, dw, db, proj, inp, w, BT, C, OC)
    for (const [n, x, g] of [
      ["inp", inp, dinp],
      ["weight", w, dw],
      ["bias", b, db]
    ] as const) {
      const e = fdMaxRelError(x, g, loss)
      report(`matmul d${n}`, e)
      expect(e).toBeLessThan(TOL)
    }
    // blocking does not change a row's result: one row alone equals row 3 of the batch
    const one = new Float32Array(OC)
    matmulForward(out, inp, w, b, BT, C, OC)
    matmulForward(one, inp.subarray(3 * C, 4 * C), w, b, 1, C, OC)
    expect(Array.from(one)).toEqual(Array.from(out.subarray(3 * OC, 4 * OC)))
  })

  test("layernorm", () => {
    const rng = new Rng(2)
    const N = 5,
      C = 8
    const inp = randn(N * C, rng),
      w = randn(C, rng),
      b = randn(C, rng),
      proj = randn(N * C, rng)
    const out = new Float32Array(N * C),
      mean = new Float32Array(N),
      rstd = new Float32Array(N)
    const loss = () => (layernormForward(out, mean, rstd, inp, w, b, N, C), dot(out, proj))
    loss()
    const dinp = new Float32Array(N * C),
      dw = new Float32Array(C),
      db = new Float32Array(C)
    layernormBackward(dinp, dw, db, proj, inp, w, mean, rstd, N, C)
    for (const [n, x, g] of [
      ["inp", inp, dinp],
      ["weight", w, dw],
      ["bias", b, db]
    ] as const) {
      const e = fdMaxRelError(x, g, loss)
      report(`layernorm d${n}`, e)
      expect(e).toBeLessThan(TOL)
    }
  })

  test("attention with per-row lengths (padding masked)", () => {
    const rng = new Rng(3)
    const B = 2,
      T = 5,
      C = 8,
      NH = 2
    const lens = Int32Array.of(5, 3)
    const qkv = randn(B * T * 3 * C, rng),
      proj = randn(B * T * C, rng)
    const out = new Float32Array(B * T * C),
      att = new Float32Array(B * NH * T * T)
    const loss = () => (attentionForward(out, att, qkv, lens, B, T, C, NH), dot(out, proj))
    loss()
    const dqkv = new Float32Array(qkv.length)
    attentionBackward(dqkv, new Float32Array(T), proj, qkv, att, lens, B, T, C, NH)
    const e = fdMaxRelError(qkv, dqkv, loss, 1e-2, 240)
    report("attention dqkv", e)
    expect(e).toBeLessThan(TOL)
    // padded positions (row 1, t ≥ 3) neither produce output nor receive gradient
    for (let t = 3; t < T; t++) {
      for (let i = 0; i < 3 * C; i++) expect(dqkv[(1 * T + t) * 3 * C + i]).toBe(0)
      for (let i = 0; i < C; i++) expect(out[(1 * T + t) * C + i]).toBe(0)
    }
  })

  test("gelu", () => {
    const rng = new Rng(4)
    const N = 40
    const inp = randn(N, rng, 2),
      proj = randn(N, rng),
      out = new Float32Array(N)
    const loss = () => (geluForward(out, inp, N), dot(out, proj))
    const dinp = new Float32Array(N)
    geluBackward(dinp, inp, proj, N)
    const e = fdMaxRelError(inp, dinp, loss, 1e-3)
    report("gelu", e)
    expect(e).toBeLessThan(TOL)
  })

  test("encoder and residual", () => {
    const rng = new Rng(5)
    const B = 2,
      T = 3,
      C = 4,
      V = 5
    const inp = Int32Array.of(0, 1, 1, 4, 2, 0)
    const wte = randn(V * C, rng),
      wpe = randn(T * C, rng),
      proj = randn(B * T * C, rng),
      out = new Float32Array(B * T * C)
    const loss = () => (encoderForward(out, inp, wte, wpe, B, T, C), dot(out, proj))
    const dwte = new Float32Array(V * C),
      dwpe = new Float32Array(T * C)
    encoderBackward(dwte, dwpe, proj, inp, B, T, C)
    for (const [n, x, g] of [
      ["wte", wte, dwte],
      ["wpe", wpe, dwpe]
    ] as const) {
      const e = fdMaxRelError(x, g, loss)
      report(`encoder d${n}`, e)
      expect(e).toBeLessThan(TOL)
    }
    const a = randn(6, rng),
      b = randn(6, rng),
      p2 = randn(6, rng),
      o2 = new Float32Array(6)
    const da = new Float32Array(6),
      dbb = new Float32Array(6)
    residualBackward(da, dbb, p2, 6)
    const l2 = () => (residualForward(o2, a, b, 6), dot(o2, p2))
    expect(fdMaxRelError(a, da, l2)).toBeLessThan(TOL)
    expect(fdMaxRelError(b, dbb, l2)).toBeLessThan(TOL)
  })

  test("log-prob head and entropy term (padding columns ignored)", () => {
    const rng = new Rng(6)
    const M = 4,
      V = 6,
      Vp = 8
    const logits = randn(M * Vp, rng, 2),
      targets = Int32Array.of(0, 5, 2, 3)
    const probs = new Float32Array(M * Vp),
      lp = new Float32Array(M),
      ent = new Float32Array(M)
    const wl = randn(M, rng),
      we = randn(M, rng)
    for (const [name, a, b] of [
      ["logprob", wl, new Float32Array(M)],
      ["entropy", new Float32Array(M), we],
      ["both", wl, we]
    ] as const) {
      const loss = () => (headForward(probs, lp, ent, logits, targets, M, V, Vp), dot(lp, a) + dot(ent, b))
      loss()
      const dlogits = new Float32Array(M * Vp)
      headBackward(dlogits, probs, logits, lp, ent, targets, a, b, M, V, Vp)
      const e = fdMaxRelError(logits, dlogits, loss, 1e-2, 64)
      report(`head d(${name})`, e)
      expect(e).toBeLessThan(TOL)
    }
    headForward(probs, lp, ent, logits, targets, M, V, Vp)
    let s = 0
    for (let i = 0; i < V; i++) s += probs[i]!
    expect(s).toBeCloseTo(1, 6)
    expect(probs[V]).toBe(0)
  })

  test("value head", () => {
    const rng = new Rng(7)
    const M = 3,
      C = 5
    const inp = randn(M * C, rng),
      w = randn(C, rng),
      b = randn(1, rng),
      proj = randn(M, rng),
      out = new Float32Array(M)
    const loss = () => (valueForward(out, inp, w, b, M, C), dot(out, proj))
    const dinp = new Float32Array(M * C),
      dw = new Float32Array(C),
      db = new Float32Array(1)
    valueBackward(dinp, dw, db, proj, inp, w, M, C)
    for (const [n, x, g] of [
      ["inp", inp, dinp],
      ["w", w, dw],
      ["b", b, db]
    ] as const) {
      const e = fdMaxRelError(x, g, loss)
      report(`value d${n}`, e)
      expect(e).toBeLessThan(TOL)
    }
  })
})
