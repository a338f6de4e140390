/**
 * The safetensors format (huggingface/safetensors README): 8-byte little-endian header length N,
 * N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {str: str}},
 * then the raw little-endian tensor bytes. We pad the header with spaces to 8-byte alignment.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs"

export interface NamedTensor {
  readonly name: string
  readonly shape: ReadonlyArray<number>
  readonly data: Float32Array
}

export interface SafetensorsFile {
  readonly metadata: Record<string, string>
  readonly tensors: Map<string, { shape: number[]; data: Float32Array }>
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

export const encodeSafetensors = (tensors: ReadonlyArray<NamedTensor>, metadata: Record<string, string>): Uint8Array => {
  const header: Record<string, unknown> = { __metadata__: metadata }
  let off = 0
  for (const t of tensors) {
    header[t.name] = { dtype: "F32", shape: t.shape, data_offsets: [off, off + t.data.length * 4] }
    off += t.data.length * 4
  }
  let json = JSON.stringify(header)
  while ((8 + json.length) % 8 !== 0) json += " "
  const hb = new TextEncoder().encode(json)
  // pad again in bytes (non-ASCII metadata makes bytes ≠ chars)
  const hlen = Math.ceil(hb.length / 8) * 8
  const out = new Uint8Array(8 + hlen + off)
  const dv = new DataView(out.buffer)
  dv.setBigUint64(0, BigInt(hlen), true)
  out.fill(0x20, 8, 8 + hlen)
  out.set(hb, 8)
  let p = 8 + hlen
  for (const t of tensors) {
    if (littleEndian) out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.length * 4), p)
    else for (let i = 0; i < t.data.length; i++) dv.setFloat32(p + i * 4, t.data[i]!, true)
    p += t.data.length * 4
  }
  return out
}

export const decodeSafetensors = (bytes: Uint8Array): SafetensorsFile => {
  if (bytes.length < 8) throw new Error("file too short for a safetensors header")
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const hlen = Number(dv.getBigUint64(0, true))
  if (hlen > bytes.length - 8) throw new Error(`header length ${hlen} exceeds the file size`)
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + hlen))) as Record<string, any>
  const metadata = (header.__metadata__ ?? {}) as Record<string, string>
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>()
  const base = 8 + hlen
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue
    if (info.dtype !== "F32") throw new Error(`tensor ${name}: dtype ${info.dtype} is not supported (F32 only)`)
    const [b, e] = info.data_offsets as [number, number]
    if (!(e >= b && base + e <= bytes.length)) throw new Error(`tensor ${name}: data_offsets out of range`)
    const data = new Float32Array((e - b) / 4)
    const start = base + b
    for (let i = 0; i < data.length; i++) data[i] = dv.getFloat32(start + i * 4, true)
    tensors.set(name, { shape: info.shape as number[], data })
  }
  return { metadata, tensors }
}

/** Atomic write (temp file + rename). */
export const writeSafetensors = (path: string, tensors: ReadonlyArray<NamedTensor>, metadata: Record<string, string>): void => {
  const tmp = `${path}.tmp`
  writeFileSync(tmp, encodeSafetensors(tensors, metadata))
  renameSync(tmp, path)
}

export const readSafetensors = (path: string): SafetensorsFile => decodeSafetensors(new Uint8Array(readFileSync(path)))
