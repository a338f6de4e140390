/**
 * TFRecord framing, the container of TensorBoard event files. Each record is
 *   uint64 length (little-endian) | uint32 masked CRC32C of those 8 bytes | data | uint32 masked CRC32C of data
 * (TensorFlow tensorflow/core/lib/io/record_writer.cc, RecordWriter::WriteRecord; the mask is
 * tensorflow/core/lib/hash/crc32c.h Mask: rotate right by 15 bits and add 0xa282ead8, so that a
 * CRC of data that itself holds CRCs is not degenerate). CRC32C is the Castagnoli CRC
 * (reflected polynomial 0x82F63B78, initial and final XOR 0xFFFFFFFF; RFC 3720 §B.4).
 */

const CASTAGNOLI_REFLECTED = 0x82f63b78
const MASK_DELTA = 0xa282ead8

/** Byte-at-a-time table: TensorBoard files are small, so no slicing-by-8. */
const TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CASTAGNOLI_REFLECTED : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

export const crc32c = (data: Uint8Array): number => {
  let c = 0xffffffff
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

export const maskCrc = (crc: number): number => ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0

/** One framed record (length header, its CRC, the data, the data's CRC) as a single buffer. */
export const frameRecord = (data: Uint8Array): Uint8Array => {
  const out = new Uint8Array(8 + 4 + data.length + 4)
  const view = new DataView(out.buffer)
  view.setBigUint64(0, BigInt(data.length), true)
  view.setUint32(8, maskCrc(crc32c(out.subarray(0, 8))), true)
  out.set(data, 12)
  view.setUint32(12 + data.length, maskCrc(crc32c(data)), true)
  return out
}
