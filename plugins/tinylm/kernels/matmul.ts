/**
 * Matmul in llm.c layout: out (BT,OC) = inp (BT,C) · weight (OC,C)^T + bias (OC).
 * The plain JS reference (and fallback) of the WASM SIMD kernels in kernels/wasm/.
 *
 * Forward: 4 rows × 4 outputs per inner loop (16 accumulators), so loads are shared across the block;
 * each output is one sequential float64 sum over C, so the result does not depend on the
 * blocking or on BT (sampling one row gives the same numbers as scoring many).
 * Backward: axpy form (i-k-j) on blocks of 4 rows × 4 output channels.
 */

// wt / wtReady: a transposed-weight slot for the fast kernels (kernels/wasm/loader.ts); the reference ignores them
export function matmulForward(
  out: Float32Array,
  inp: Float32Array,
  weight: Float32Array,
  bias: Float32Array | null,
  BT: number,
  C: number,
  OC: number,
  _wt?: Float32Array | null,
  _wtReady?: boolean
): void {
  let i = 0
  const OC4 = OC - (OC % 4)
  for (; i + 4 <= BT; i += 4) {
    const i0 = i * C,
      i1 = i0 + C,
      i2 = i1 + C,
      i3 = i2 + C
    const o0 = i * OC,
      o1 = o0 + OC,
      o2 = o1 + OC,
      o3 = o2 + OC
    // 4 rows × 4 outputs: 16 float64 accumulators, each weight and input element loaded once per block
    let o = 0
    for (; o < OC4; o += 4) {
      const wa = o * C,
        wb = wa + C,
        wc = wb + C,
        wd = wc + C
      let s00 = 0,
        s01 = 0,
        s02 = 0,
        s03 = 0,
        s10 = 0,
        s11 = 0,
        s12 = 0,
        s13 = 0
      let s20 = 0,
        s21 = 0,
        s22 = 0,
        s23 = 0,
        s30 = 0,
        s31 = 0,
        s32 = 0,
        s33 = 0
      for (let k = 0; k < C; k++) {
        const a = weight[wa + k]!,
          b = weight[wb + k]!,
          c = weight[wc + k]!,
          d = weight[wd + k]!
        const x0 = inp[i0 + k]!,
          x1 = inp[i1 + k]!,
          x2 = inp[i2 + k]!,
          x3 = inp[i3 + k]!
        s00 += x0 * a
        s01 += x0 * b
        s02 += x0 * c
        s03 += x0 * d
        s10 += x1 * a
        s11 += x1 * b
        s12 += x1 * c
        s13 += x1 * d
        s20 += x2 * a
        s21 += x2 * b
        s22 += x2 * c
        s23 += x2 * d
        s30 += x3 * a
        s31 += x3 * b
        s32 += x3 * c
        s33 += x3 * d
      }
      const ba = bias === null ? 0 : bias[o]!,
        bb = bias === null ? 0 : bias[o + 1]!
      const bc = bias === null ? 0 : bias[o + 2]!,
        bd = bias === null ? 0 : bias[o + 3]!
      out[o0 + o] = s00 + ba
      out[o0 + o + 1] = s01 + bb
      out[o0 + o + 2] = s02 + bc
      out[o0 + o + 3] = s03 + bd
      out[o1 + o] = s10 + ba
      out[o1 + o + 1] = s11 + bb
      out[o1 + o + 2] = s12 + bc
      out[o1 + o + 3] = s13 + bd
      out[o2 + o] = s20 + ba
      out[o2 + o + 1] = s21 + bb
      out[o2 + o + 2] = s22 + bc
      out[o2 + o + 3] = s23 + bd
      out[o3 + o] = s30 + ba
      out[o3 + o + 1] = s31 + bb
      out[o3 + o + 2] = s32 + bc
      out[o3 + o + 3] = s33 + bd
    }
    for (; o < OC; o++) {
      const w = o * C
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0
      for (let k = 0; k < C; k++) {
        const wk = weight[w + k]!
        s0 += inp[i0 + k]! * wk
        s1 += inp[i1 + k]! * wk
        s2 += inp[i2 + k]! * wk
        s3 += inp[i3 + k]! * wk
      }
      const b = bias === null ? 0 : bias[o]!
      out[o0 + o] = s0 + b
      out[o1 + o] = s1 + b
      out[o2 + o] = s2 + b
      out[o3 + o] = s3 + b
    }
  }
  for (; i < BT; i++) {
    const i0 = i * C
    const o0 = i * OC
    for (let o = 0; o < OC; o++) {
      const w = o * C
      let s0 = 0
      for (let k = 0; k < C; k++) s0 += inp[i0 + k]! * weight[w + k]!
      out[o0 + o] = s0 + (bias === null ? 0 : bias[o]!)
    }
  }
}

// dinp (BT,C) += dout · weight; dweight (OC,C) += dout^T · inp; dbias (OC) += Σ_rows dout
export function matmulBackward(
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
  if (fresh) dinp.fill(0, 0, BT * C)
  const BT4 = BT - (BT % 4)
  const OC4 = OC - (OC % 4)
  // blocks of 4 rows × 4 output channels share every load; all-zero blocks (padding) are skipped
  for (let i = 0; i < BT4; i += 4) {
    const x0 = i * C,
      x1 = x0 + C,
      x2 = x1 + C,
      x3 = x2 + C
    const r0 = i * OC,
      r1 = r0 + OC,
      r2 = r1 + OC,
      r3 = r2 + OC
    for (let o = 0; o < OC4; o += 4) {
      const a0 = dout[r0 + o]!,
        b0 = dout[r0 + o + 1]!,
        c0 = dout[r0 + o + 2]!,
        e0 = dout[r0 + o + 3]!
      const a1 = dout[r1 + o]!,
        b1 = dout[r1 + o + 1]!,
        c1 = dout[r1 + o + 2]!,
        e1 = dout[r1 + o + 3]!
      const a2 = dout[r2 + o]!,
        b2 = dout[r2 + o + 1]!,
        c2 = dout[r2 + o + 2]!,
        e2 = dout[r2 + o + 3]!
      const a3 = dout[r3 + o]!,
        b3 = dout[r3 + o + 1]!,
        c3 = dout[r3 + o + 2]!,
        e3 = dout[r3 + o + 3]!
      if (a0 === 0 && b0 === 0 && c0 === 0 && e0 === 0 && a1 === 0 && b1 === 0 && c1 === 0 && e1 === 0 && a2 === 0 && b2 === 0 && c2 === 0 && e2 === 0 && a3 === 0 && b3 === 0 && c3 === 0 && e3 === 0)
        continue
      const wa = o * C,
        wb = wa + C,
        wc = wb + C,
        wd = wc + C
      for (let k = 0; k < C; k++) {
        const p = weight[wa + k]!,
          q = weight[wb + k]!,
          r = weight[wc + k]!,
          t = weight[wd + k]!
        const u0 = inp[x0 + k]!,
          u1 = inp[x1 + k]!,
          u2 = inp[x2 + k]!,
          u3 = inp[x3 + k]!
        dinp[x0 + k] = dinp[x0 + k]! + (a0 * p + b0 * q + c0 * r + e0 * t)
        dinp[x1 + k] = dinp[x1 + k]! + (a1 * p + b1 * q + c1 * r + e1 * t)
        dinp[x2 + k] = dinp[x2 + k]! + (a2 * p + b2 * q + c2 * r + e2 * t)
        dinp[x3 + k] = dinp[x3 + k]! + (a3 * p + b3 * q + c3 * r + e3 * t)
        dweight[wa + k] = dweight[wa + k]! + (a0 * u0 + a1 * u1 + a2 * u2 + a3 * u3)
        dweight[wb + k] = dweight[wb + k]! + (b0 * u0 + b1 * u1 + b2 * u2 + b3 * u3)
        dweight[wc + k] = dweight[wc + k]! + (c0 * u0 + c1 * u1 + c2 * u2 + c3 * u3)
        dweight[wd + k] = dweight[wd + k]! + (e0 * u0 + e1 * u1 + e2 * u2 + e3 * u3)
      }
    }
  }
  // remainders: rows ≥ BT4 with every channel, channels ≥ OC4 with rows < BT4
  for (let i = 0; i < BT; i++) {
    const x = i * C
    for (let o = i < BT4 ? OC4 : 0; o < OC; o++) {
      const d = dout[i * OC + o]!
      if (d === 0) continue
      const w = o * C
      for (let k = 0; k < C; k++) {
        dinp[x + k] = dinp[x + k]! + d * weight[w + k]!
        dweight[w + k] = dweight[w + k]! + d * inp[x + k]!
      }
    }
  }
  if (dbias !== null) {
    for (let i = 0; i < BT; i++) {
      const r = i * OC
      for (let o = 0; o < OC; o++) dbias[o] = dbias[o]! + dout[r + o]!
    }
  }
}
