/**
 * Token + position embedding (llm.c encoder_forward/backward).
 * B rows, T positions per row (the batch's padded length), C channels.
 */

// out (B,T,C) = wte[inp[b,t]] + wpe[t]; inp (B,T), wte (Vp,C), wpe (ctx,C)
export function encoderForward(out: Float32Array, inp: Int32Array, wte: Float32Array, wpe: Float32Array, B: number, T: number, C: number): void {
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C
      const w = inp[b * T + t]! * C
      const p = t * C
      for (let i = 0; i < C; i++) out[o + i] = wte[w + i]! + wpe[p + i]!
    }
  }
}

// dwte (Vp,C) += scatter of dout by token; dwpe (ctx,C) += dout summed over rows
export function encoderBackward(dwte: Float32Array, dwpe: Float32Array, dout: Float32Array, inp: Int32Array, B: number, T: number, C: number): void {
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C
      const w = inp[b * T + t]! * C
      const p = t * C
      for (let i = 0; i < C; i++) {
        const d = dout[o + i]!
        dwte[w + i] = dwte[w + i]! + (d)
        dwpe[p + i] = dwpe[p + i]! + (d)
      }
    }
  }
}
