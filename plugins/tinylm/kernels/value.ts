/** Scalar value head (PPO critic) on M gathered final hidden states: v = h · w + b. */

// values (M); inp (M,C), w (C), b (1)
export function valueForward(values: Float32Array, inp: Float32Array, w: Float32Array, b: Float32Array, M: number, C: number): void {
  for (let m = 0; m < M; m++) {
    const x = m * C
    let s = 0
    for (let i = 0; i < C; i++) s += inp[x + i]! * w[i]!
    values[m] = s + b[0]!
  }
}

// dinp (M,C) +=, dw (C) +=, db (1) +=
export function valueBackward(dinp: Float32Array, dw: Float32Array, db: Float32Array, dvalues: Float32Array, inp: Float32Array, w: Float32Array, M: number, C: number): void {
  for (let m = 0; m < M; m++) {
    const d = dvalues[m]!
    if (d === 0) continue
    const x = m * C
    for (let i = 0; i < C; i++) {
      dinp[x + i] = dinp[x + i]! + d * w[i]!
      dw[i] = dw[i]! + d * inp[x + i]!
    }
    db[0] = db[0]! + d
  }
}
