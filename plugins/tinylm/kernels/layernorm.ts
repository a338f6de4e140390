/**
 * LayerNorm over the last dimension (llm.c layernorm_forward/backward), eps 1e-5 as GPT-2.
 * N rows (B·T), C channels. Sums in float64 (JS numbers).
 */
const EPS = 1e-5

// out (N,C), mean (N), rstd (N); inp (N,C), weight (C), bias (C)
export function layernormForward(out: Float32Array, mean: Float32Array, rstd: Float32Array, inp: Float32Array, weight: Float32Array, bias: Float32Array, N: number, C: number): void {
  for (let n = 0; n < N; n++) {
    const x = n * C
    let m = 0
    for (let i = 0; i < C; i++) m += inp[x + i]!
    m /= C
    let v = 0
    for (let i = 0; i < C; i++) {
      const d = inp[x + i]! - m
      v += d * d
    }
    v /= C
    const s = 1 / Math.sqrt(v + EPS)
    for (let i = 0; i < C; i++) out[x + i] = (inp[x + i]! - m) * s * weight[i]! + bias[i]!
    mean[n] = m
    rstd[n] = s
  }
}

// dinp (N,C) +=, dweight (C) +=, dbias (C) +=
export function layernormBackward(
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
  for (let n = 0; n < N; n++) {
    const x = n * C
    const m = mean[n]!
    const s = rstd[n]!
    // the two reductions of the LayerNorm gradient
    let dnormMean = 0
    let dnormNormMean = 0
    for (let i = 0; i < C; i++) {
      const norm = (inp[x + i]! - m) * s
      const dnorm = weight[i]! * dout[x + i]!
      dnormMean += dnorm
      dnormNormMean += dnorm * norm
    }
    dnormMean /= C
    dnormNormMean /= C
    for (let i = 0; i < C; i++) {
      const norm = (inp[x + i]! - m) * s
      const d = dout[x + i]!
      const dnorm = weight[i]! * d
      dbias[i] = dbias[i]! + d
      dweight[i] = dweight[i]! + norm * d
      dinp[x + i] = dinp[x + i]! + (dnorm - dnormMean - norm * dnormNormMean) * s
    }
  }
}
