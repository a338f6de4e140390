/**
 * Token + position embedding (llm.c encoder_forward/backward).
 * B rows, T positions per row (the batch's padded length), C channels. Row b's position t sits at
 * absolute position posOff[b] + t (rows that continue a shared prefix start after it; none: 0),
 * clamped to the table so that padding past a row's end stays finite.
 */

// out (B,T,C) = wte[inp[b,t]] + wpe[posOff[b] + t]; inp (B,T), wte (Vp,C), wpe (ctx,C)
export function encoderForward(out: Float32Array, inp: Int32Array, wte: Float32Array, wpe: Float32Array, B: number, T: number, C: number, posOff: Int32Array | null = null): void {
  const last = wpe.length / C - 1
  for (let b = 0; b < B; b++) {
    const off = posOff === null ? 0 : posOff[b]!
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C
      const w = inp[b * T + t]! * C
      const p = Math.min(off + t, last) * C
      for (let i = 0; i < C; i++) out[o + i] = wte[w + i]! + wpe[p + i]!
    }
  }
}

// dwte (Vp,C) += scatter of dout by token; dwpe (ctx,C) += dout summed over rows
export function encoderBackward(dwte: Float32Array, dwpe: Float32Array, dout: Float32Array, inp: Int32Array, B: number, T: number, C: number, posOff: Int32Array | null = null): void {
  const last = dwpe.length / C - 1
  for (let b = 0; b < B; b++) {
    const off = posOff === null ? 0 : posOff[b]!
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C
      const w = inp[b * T + t]! * C
      const p = Math.min(off + t, last) * C
      for (let i = 0; i < C; i++) {
        const d = dout[o + i]!
        dwte[w + i] = dwte[w + i]! + d
        dwpe[p + i] = dwpe[p + i]! + d
      }
    }
  }
}
