/** GELU, tanh approximation (GPT-2; Hendrycks & Gimpel 2016, eq. for 0.044715). N elements. */
const S = Math.sqrt(2 / Math.PI)

// out (N) = gelu(inp)
export function geluForward(out: Float32Array, inp: Float32Array, N: number): void {
  for (let i = 0; i < N; i++) {
    const x = inp[i]!
    out[i] = 0.5 * x * (1 + Math.tanh(S * (x + 0.044715 * x * x * x)))
  }
}

// dinp (N) += gelu'(inp) · dout; fresh: dinp holds nothing yet (it is zeroed first, the fast kernels write it)
export function geluBackward(dinp: Float32Array, inp: Float32Array, dout: Float32Array, N: number, fresh = false): void {
  if (fresh) dinp.fill(0, 0, N)
  for (let i = 0; i < N; i++) {
    const d = dout[i]!
    if (d === 0) continue
    const x = inp[i]!
    const u = S * (x + 0.044715 * x * x * x)
    const th = Math.tanh(u)
    const sech2 = 1 - th * th
    dinp[i] = dinp[i]! + (0.5 * (1 + th) + 0.5 * x * sech2 * S * (1 + 3 * 0.044715 * x * x)) * d
  }
}
