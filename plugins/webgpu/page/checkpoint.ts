/**
 * Reading a tinylm checkpoint in the browser: the safetensors layout (huggingface/safetensors
 * README: u64 little-endian header length, JSON header with dtype/shape/data_offsets and
 * __metadata__, then raw little-endian tensors). tinylm/safetensors.ts reads files through
 * Node's fs, which a browser bundle cannot carry, so the page decodes the bytes here (F32 only,
 * every offset checked).
 */
export interface CheckpointTensors {
  readonly metadata: Record<string, string>
  readonly tensors: Map<string, { shape: number[]; data: Float32Array }>
}

export const decodeCheckpoint = (bytes: Uint8Array): CheckpointTensors => {
  if (bytes.length < 8) throw new Error("checkpoint: too short for a safetensors header")
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const hlen = Number(dv.getBigUint64(0, true))
  if (hlen > bytes.length - 8) throw new Error(`checkpoint: header length ${hlen} exceeds the file`)
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + hlen))) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>
  const metadata = ((header as Record<string, unknown>).__metadata__ ?? {}) as Record<string, string>
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>()
  const base = 8 + hlen
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue
    if (info.dtype !== "F32") throw new Error(`checkpoint: tensor ${name} is ${info.dtype}, not F32`)
    const [b, e] = info.data_offsets
    if (!(Number.isInteger(b) && Number.isInteger(e) && 0 <= b && b <= e && base + e <= bytes.length && (e - b) % 4 === 0)) throw new Error(`checkpoint: tensor ${name} has bad data_offsets`)
    const data = new Float32Array((e - b) / 4)
    for (let i = 0; i < data.length; i++) data[i] = dv.getFloat32(base + b + 4 * i, true)
    tensors.set(name, { shape: info.shape, data })
  }
  return { metadata, tensors }
}
