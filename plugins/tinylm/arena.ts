/**
 * One WebAssembly.Memory of fixed size, carved into named, 16-byte-aligned Float32Array views
 * (llm.c's one-buffer-per-role layout). A WebAssembly.Memory so that WASM SIMD kernels can work
 * on the same views, shared so that the kernel pool's worker (kernels/wasm/pool.ts) can too; it
 * is never grown after carving (growing would detach every view).
 */

export interface ArenaRequest {
  readonly name: string
  /** Number of float32 (or int32) elements. */
  readonly size: number
  readonly kind?: "f32" | "i32"
}

export interface Arena {
  readonly memory: WebAssembly.Memory
  readonly bytes: number
  readonly f32: Readonly<Record<string, Float32Array>>
  readonly i32: Readonly<Record<string, Int32Array>>
  /** Byte offset of each view in `memory` (for WASM kernels). */
  readonly offsets: Readonly<Record<string, number>>
}

const PAGE = 65536
const align16 = (n: number): number => Math.ceil(n / 16) * 16

/** Lay out the requests in order and allocate the memory once. */
export const carveArena = (requests: ReadonlyArray<ArenaRequest>): Arena => {
  const offsets: Record<string, number> = {}
  let bytes = 0
  for (const r of requests) {
    if (r.name in offsets) throw new Error(`arena: duplicate view ${r.name}`)
    offsets[r.name] = bytes
    bytes += align16(Math.max(0, r.size) * 4)
  }
  const pages = Math.max(1, Math.ceil(bytes / PAGE))
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true })
  const f32: Record<string, Float32Array> = {}
  const i32: Record<string, Int32Array> = {}
  for (const r of requests) {
    if (r.kind === "i32") i32[r.name] = new Int32Array(memory.buffer, offsets[r.name]!, r.size)
    else f32[r.name] = new Float32Array(memory.buffer, offsets[r.name]!, r.size)
  }
  return { memory, bytes: pages * PAGE, f32, i32, offsets }
}
