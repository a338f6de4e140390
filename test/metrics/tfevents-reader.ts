/**
 * An independent reader of TensorBoard event files for the tests: it shares no code with
 * plugins/sinks/ (a bitwise CRC32C instead of the writer's table, a generic protobuf field
 * decoder), so a mistake in the writer's framing or encoding cannot cancel out here.
 * Format: TensorFlow record_writer.cc (framing, masked CRC32C), event.proto and summary.proto.
 */

/** CRC32C one bit at a time (Castagnoli, reflected polynomial 0x82F63B78). */
export const crc32cBitwise = (data: Uint8Array): number => {
  let crc = 0xffffffff
  for (const byte of data) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0x82f63b78 & -(crc & 1))
  }
  return (crc ^ 0xffffffff) >>> 0
}

const masked = (crc: number): number => (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0

/** The records of a TFRecord file; throws on a bad CRC or a truncated record. */
export const readRecords = (file: Uint8Array): Uint8Array[] => {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const out: Uint8Array[] = []
  let o = 0
  while (o < file.length) {
    if (o + 12 > file.length) throw new Error(`truncated record header at byte ${o}`)
    const len = Number(view.getBigUint64(o, true))
    const lenCrc = view.getUint32(o + 8, true)
    if (lenCrc !== masked(crc32cBitwise(file.subarray(o, o + 8)))) throw new Error(`bad length CRC at byte ${o}`)
    const start = o + 12
    if (start + len + 4 > file.length) throw new Error(`truncated record at byte ${o}`)
    const data = file.subarray(start, start + len)
    if (view.getUint32(start + len, true) !== masked(crc32cBitwise(data))) throw new Error(`bad data CRC at byte ${o}`)
    out.push(data)
    o = start + len + 4
  }
  return out
}

type Field = { wire: 0; value: bigint } | { wire: 1; bytes: Uint8Array } | { wire: 2; bytes: Uint8Array } | { wire: 5; bytes: Uint8Array }

/** Protobuf fields by number, in order (https://protobuf.dev/programming-guides/encoding/). */
export const decodeFields = (buf: Uint8Array): Map<number, Field[]> => {
  const out = new Map<number, Field[]>()
  let o = 0
  const varint = (): bigint => {
    let x = 0n
    let shift = 0n
    for (;;) {
      const b = buf[o++]
      if (b === undefined) throw new Error("truncated varint")
      x |= BigInt(b & 0x7f) << shift
      if ((b & 0x80) === 0) return x
      shift += 7n
    }
  }
  while (o < buf.length) {
    const key = Number(varint())
    const field = key >>> 3
    const wire = key & 7
    let f: Field
    if (wire === 0) f = { wire, value: varint() }
    else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4
      f = { wire, bytes: buf.subarray(o, o + n) }
      o += n
    } else if (wire === 2) {
      const n = Number(varint())
      f = { wire, bytes: buf.subarray(o, o + n) }
      o += n
    } else throw new Error(`unsupported wire type ${wire}`)
    if (o > buf.length) throw new Error("truncated field")
    out.set(field, [...(out.get(field) ?? []), f])
  }
  return out
}

export interface DecodedEvent {
  wallTime?: number
  step: number
  fileVersion?: string
  sessionStatus?: number
  values?: Array<{ tag: string; value: number }>
}

const bytesOf = (f: Field | undefined): Uint8Array => {
  if (!f || f.wire === 0) throw new Error("expected a length-delimited or fixed field")
  return f.bytes
}

export const decodeEvent = (data: Uint8Array): DecodedEvent => {
  const f = decodeFields(data)
  const ev: DecodedEvent = { step: 0 }
  const wt = f.get(1)?.[0]
  if (wt) ev.wallTime = new DataView(bytesOf(wt).buffer, bytesOf(wt).byteOffset, 8).getFloat64(0, true)
  const step = f.get(2)?.[0]
  if (step && step.wire === 0) ev.step = Number(BigInt.asIntN(64, step.value))
  const fv = f.get(3)?.[0]
  if (fv) ev.fileVersion = new TextDecoder().decode(bytesOf(fv))
  const sl = f.get(7)?.[0]
  if (sl) {
    const status = decodeFields(bytesOf(sl)).get(1)?.[0]
    ev.sessionStatus = status && status.wire === 0 ? Number(status.value) : 0
  }
  const summary = f.get(5)?.[0]
  if (summary) {
    ev.values = (decodeFields(bytesOf(summary)).get(1) ?? []).map((v) => {
      const vf = decodeFields(bytesOf(v))
      const tag = new TextDecoder().decode(bytesOf(vf.get(1)?.[0]))
      const sv = bytesOf(vf.get(2)?.[0])
      return { tag, value: new DataView(sv.buffer, sv.byteOffset, 4).getFloat32(0, true) }
    })
  }
  return ev
}
