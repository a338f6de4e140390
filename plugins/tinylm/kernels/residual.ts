/**
 * Residual add. The model accumulates the residual-stream gradient in place (LayerNorm backward
 * adds into it), which is what residualBackward computes; the kernel is kept as the spec.
 */

// out (N) = a + b
export function residualForward(out: Float32Array, a: Float32Array, b: Float32Array, N: number): void {
  for (let i = 0; i < N; i++) out[i] = a[i]! + b[i]!
}

// da (N) += dout, db (N) += dout
export function residualBackward(da: Float32Array, db: Float32Array, dout: Float32Array, N: number): void {
  for (let i = 0; i < N; i++) {
    const d = dout[i]!
    da[i] = da[i]! + d
    db[i] = db[i]! + d
  }
}
