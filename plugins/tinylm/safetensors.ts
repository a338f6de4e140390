/**
 * The safetensors format (huggingface/safetensors README): 8-byte little-endian header length N,
 * N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {str: str}},
 * then the raw little-endian tensor bytes. We pad the header with spaces to 8-byte alignment.
 */
import { renameSync, writeFileSync } from "node:fs"
import { MiB, readRegularFileSync } from "../../core/host.ts"

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

const fail = (m: string): never => {
  throw new Error(m)
}

/**
 * Parse a safetensors file, checking what it claims against what it holds: the header is a JSON
 * object, every tensor is F32 with integer non-negative dims whose product matches its byte
 * range, every data_offsets pair is integer, non-negative, ordered and inside the data section,
 * and no two tensors overlap. Errors are one line naming the tensor.
 */
export const decodeSafetensors = (bytes: Uint8Array): SafetensorsFile => {
  if (bytes.length < 8) fail("file too short for a safetensors header")
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const hlen = Number(dv.getBigUint64(0, true))
  if (hlen > bytes.length - 8) fail(`header length ${hlen} exceeds the file size`)
  let header: Record<string, any>
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + hlen)))
  } catch {
    return fail("the header is not valid JSON (a torn or edited file)")
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) fail("the header is not a JSON object")
  const rawMeta = (header as Record<string, any>).__metadata__ ?? {}
  if (typeof rawMeta !== "object" || rawMeta === null || Array.isArray(rawMeta) || Object.values(rawMeta).some((v) => typeof v !== "string")) {
    fail("__metadata__ must be an object of strings")
  }
  const metadata = rawMeta as Record<string, string>
  const tensors = new Map<string, { shape: number[]; data: Float32Array }>()
  const base = 8 + hlen
  const dataBytes = bytes.length - base
  const ranges: Array<[number, number, string]> = []
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue
    if (typeof info !== "object" || info === null) fail(`tensor ${name}: entry is not an object`)
    if (info.dtype !== "F32") fail(`tensor ${name}: dtype ${String(info.dtype).slice(0, 20)} is not supported (F32 only)`)
    const off = info.data_offsets
    if (!Array.isArray(off) || off.length !== 2 || !off.every((x: unknown) => Number.isSafeInteger(x))) fail(`tensor ${name}: data_offsets must be two integers`)
    const [b, e] = off as [number, number]
    if (b < 0 || e < b || e > dataBytes) fail(`tensor ${name}: data_offsets [${b}, ${e}] are not inside the data section (0..${dataBytes})`)
    if ((e - b) % 4 !== 0) fail(`tensor ${name}: data_offsets [${b}, ${e}] do not span whole F32 values`)
    const shape = info.shape
    if (!Array.isArray(shape) || !shape.every((d: unknown) => Number.isSafeInteger(d) && (d as number) >= 0)) fail(`tensor ${name}: shape must be a list of non-negative integers`)
    const count = (shape as number[]).reduce((a, d) => a * d, 1)
    if (count * 4 !== e - b) fail(`tensor ${name}: shape [${(shape as number[]).join(", ")}] needs ${count * 4} bytes, data_offsets give ${e - b}`)
    ranges.push([b, e, name])
    const data = new Float32Array((e - b) / 4)
    const start = base + b
    for (let i = 0; i < data.length; i++) data[i] = dv.getFloat32(start + i * 4, true)
    tensors.set(name, { shape: shape as number[], data })
  }
  ranges.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  for (let i = 1; i < ranges.length; i++) {
    const [pb, pe, pn] = ranges[i - 1]!
    const [b, , n] = ranges[i]!
    if (b < pe && pe > pb) fail(`tensors ${pn} and ${n} overlap in the data section`)
  }
  return { metadata, tensors }
}

/** A metadata entry holding JSON, parsed; a missing or torn entry is a one-line error naming it. */
export const metadataJson = (file: SafetensorsFile, key: string): unknown => {
  const text = file.metadata[key]
  if (text === undefined) throw new Error(`metadata entry "${key}" is missing`)
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`metadata entry "${key}" is not valid JSON (a torn or edited file)`)
  }
}

/** The first tensor holding a NaN or an infinity, with the index, or undefined. */
export const firstNonFinite = (file: SafetensorsFile): { tensor: string; index: number; value: number } | undefined => {
  for (const [tensor, t] of file.tensors) {
    for (let i = 0; i < t.data.length; i++) if (!Number.isFinite(t.data[i]!)) return { tensor, index: i, value: t.data[i]! }
  }
  return undefined
}

/** Atomic write (temp file + rename). */
export const writeSafetensors = (path: string, tensors: ReadonlyArray<NamedTensor>, metadata: Record<string, string>): void => {
  const tmp = `${path}.tmp`
  writeFileSync(tmp, encodeSafetensors(tensors, metadata))
  renameSync(tmp, path)
}

/**
 * Read and check a weights file: a regular file of at most 4 GiB, well formed (decodeSafetensors)
 * and holding only finite values — NaN weights are reported as such (the run that saved them
 * diverged), not left to surface later as a loss that will not go down.
 */
export const readSafetensors = (path: string): SafetensorsFile => {
  const file = decodeSafetensors(readRegularFileSync(path, 4 * 1024 * MiB))
  const bad = firstNonFinite(file)
  if (bad) throw new Error(`tensor ${bad.tensor} holds ${bad.value} at index ${bad.index}: the run that saved this checkpoint diverged; resume from an earlier checkpoint`)
  return file
}
