/**
 * Loads the embedded WASM SIMD kernels (module.generated.ts, built from the C sources here): one
 * instance per WebAssembly.Memory (a model's arena), run through the shared wrappers of ../fast.ts
 * (in place, byte offsets, JS fallback for views outside an attached memory, two-thread splits).
 */
import type { Attached, FastBackend, WasmExports } from "../fast.ts"
import { kernelsWasmBase64 } from "./module.generated.ts"
import { kernelPool } from "./pool.ts"

export type { WasmExports } from "../fast.ts"

let compiled: WebAssembly.Module | undefined

/** The module's bytes (decoded from the embedded base64). */
export const wasmBytes = (): Uint8Array => {
  const bin = atob(kernelsWasmBase64)
  const bytes = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  return bytes
}

/** The compiled module (throws when the runtime has no WebAssembly SIMD). */
export const wasmModule = (): WebAssembly.Module => (compiled ??= new WebAssembly.Module(wasmBytes() as Uint8Array<ArrayBuffer>))

const attached = new WeakMap<ArrayBufferLike, Attached>()

/** Instantiate the kernels on `memory` (idempotent). The memory must never grow afterwards. */
export const attachMemory = (memory: WebAssembly.Memory): WasmExports => {
  let at = attached.get(memory.buffer)
  if (!at) {
    at = { ex: new WebAssembly.Instance(wasmModule(), { env: { memory } }).exports as unknown as WasmExports, memory }
    attached.set(memory.buffer, at)
  }
  return at.ex
}

/**
 * A split costs a job round trip (≈ 10–40 µs): from 2^20 multiply-adds for the matmul-like kernels
 * (the sampler's 32-row decode steps ran slower on two threads below that), 2^16 elements for the
 * pointwise ones.
 */
export const wasmBackend: FastBackend = {
  attached,
  pool: () => kernelPool({ kind: "wasm", bytes: wasmBytes }),
  splitMatmul: 1 << 20,
  splitPointwise: 1 << 16
}
