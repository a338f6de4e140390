/**
 * Length-prefixed frames between the Bun side and the Deno WebGPU worker (child.ts, worker.ts):
 * [u32 header bytes][u32 payload bytes][header JSON][payload], little-endian. The payload is
 * raw typed-array bytes (weights, packed rows, scores): no base64, no JSON numbers.
 */
export interface Frame {
  readonly header: Record<string, unknown>
  /** A fresh, 4-byte-aligned copy (typed arrays can view it directly). */
  readonly payload: ArrayBuffer
}

export const encodeFrame = (header: Record<string, unknown>, payload?: ArrayBufferView): Uint8Array => {
  const h = new TextEncoder().encode(JSON.stringify(header))
  const n = payload?.byteLength ?? 0
  const out = new Uint8Array(8 + h.length + n)
  const dv = new DataView(out.buffer)
  dv.setUint32(0, h.length, true)
  dv.setUint32(4, n, true)
  out.set(h, 8)
  if (payload && n > 0) out.set(new Uint8Array(payload.buffer, payload.byteOffset, n), 8 + h.length)
  return out
}

/** Accumulates stream chunks and yields whole frames. */
export class FrameReader {
  private buf = new Uint8Array(0)
  push(chunk: Uint8Array): Frame[] {
    const next = new Uint8Array(this.buf.length + chunk.length)
    next.set(this.buf, 0)
    next.set(chunk, this.buf.length)
    this.buf = next
    const out: Frame[] = []
    for (;;) {
      if (this.buf.length < 8) break
      const dv = new DataView(this.buf.buffer, this.buf.byteOffset, 8)
      const hl = dv.getUint32(0, true),
        pl = dv.getUint32(4, true)
      if (this.buf.length < 8 + hl + pl) break
      const header = JSON.parse(new TextDecoder().decode(this.buf.subarray(8, 8 + hl))) as Record<string, unknown>
      const payload = this.buf.slice(8 + hl, 8 + hl + pl).buffer
      out.push({ header, payload })
      this.buf = this.buf.slice(8 + hl + pl)
    }
    return out
  }
}
