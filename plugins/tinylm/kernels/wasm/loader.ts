/**
 * Loads the embedded WASM SIMD kernels (module.generated.ts, built from the C sources here) and
 * runs them in place on a model's arena: one instance per WebAssembly.Memory, every typed-array
 * argument passed as its byte offset. A call whose arrays are not all inside one attached memory
 * (scratch arrays in tests, say) falls back to the plain JS kernel, so the wasm kernels are
 * always safe to select.
 */
import { attentionBackward, attentionDecode, attentionForward } from "../attention.ts"
import { geluBackward, geluForward } from "../gelu.ts"
import { layernormBackward, layernormForward } from "../layernorm.ts"
import { matmulBackward, matmulForward } from "../matmul.ts"
import { kernelsWasmBase64 } from "./module.generated.ts"

/** The C exports (all pointers are byte offsets into the memory). */
export interface WasmExports {
  matmul_forward(out: number, inp: number, weight: number, bias: number, hasBias: number, BT: number, C: number, OC: number): void
  matmul_forward_t(out: number, inp: number, weight: number, bias: number, hasBias: number, BT: number, C: number, OC: number, wt: number, wtReady: number): void
  matmul_backward(dinp: number, dweight: number, dbias: number, hasBias: number, dout: number, inp: number, weight: number, BT: number, C: number, OC: number): void
  attention_forward(out: number, att: number, qkv: number, lens: number, B: number, T: number, C: number, NH: number): void
  attention_backward(dqkv: number, scratch: number, dout: number, qkv: number, att: number, lens: number, B: number, T: number, C: number, NH: number): void
  attention_decode(out: number, att: number, q: number, kc: number, vc: number, t: number, C: number, NH: number): void
  gelu_forward(out: number, inp: number, N: number): void
  gelu_backward(dinp: number, inp: number, dout: number, N: number): void
  layernorm_forward(out: number, mean: number, rstd: number, inp: number, weight: number, bias: number, N: number, C: number): void
  layernorm_backward(dinp: number, dweight: number, dbias: number, dout: number, inp: number, weight: number, mean: number, rstd: number, N: number, C: number): void
}

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

// keyed by the memory's buffer: that is what a typed-array view can tell about itself
const attached = new WeakMap<ArrayBufferLike, WasmExports>()

/** Instantiate the kernels on `memory` (idempotent). The memory must never grow afterwards. */
export const attachMemory = (memory: WebAssembly.Memory): WasmExports => {
  let ex = attached.get(memory.buffer)
  if (!ex) {
    ex = new WebAssembly.Instance(wasmModule(), { env: { memory } }).exports as unknown as WasmExports
    attached.set(memory.buffer, ex)
  }
  return ex
}

type View = Float32Array | Int32Array

/** The instance owning every given view, or undefined (→ JS fallback). Fixed arity: no rest-array allocation per call. */
const owner = (a: View, b: View, c: View | null = null, d: View | null = null, e: View | null = null, f: View | null = null): WasmExports | undefined => {
  const buf = a.buffer
  if (b.buffer !== buf || (c !== null && c.buffer !== buf) || (d !== null && d.buffer !== buf) || (e !== null && e.buffer !== buf) || (f !== null && f.buffer !== buf)) return undefined
  return attached.get(buf)
}

/**
 * With `wt` (a slot of ≥ C·OC floats in the same memory) the broadcast-form kernel runs: it writes
 * the transposed weight there first, unless `wtReady` says the slot already holds it (the
 * sampler's decode steps reuse what the prefill forward wrote). Without `wt`, the dot form.
 */
export function wasmMatmulForward(out: Float32Array, inp: Float32Array, weight: Float32Array, bias: Float32Array | null, BT: number, C: number, OC: number, wt?: Float32Array | null, wtReady = false): void {
  const ex = owner(out, inp, weight, bias, wt ?? null)
  if (ex === undefined) return matmulForward(out, inp, weight, bias, BT, C, OC)
  const b = bias === null ? 0 : bias.byteOffset, hasBias = bias === null ? 0 : 1
  if (wt != null && wt.length >= C * OC) ex.matmul_forward_t(out.byteOffset, inp.byteOffset, weight.byteOffset, b, hasBias, BT, C, OC, wt.byteOffset, wtReady ? 1 : 0)
  else ex.matmul_forward(out.byteOffset, inp.byteOffset, weight.byteOffset, b, hasBias, BT, C, OC)
}

export function wasmMatmulBackward(
  dinp: Float32Array, dweight: Float32Array, dbias: Float32Array | null,
  dout: Float32Array, inp: Float32Array, weight: Float32Array,
  BT: number, C: number, OC: number
): void {
  const ex = owner(dinp, dweight, dbias, dout, inp, weight)
  if (ex === undefined) return matmulBackward(dinp, dweight, dbias, dout, inp, weight, BT, C, OC)
  ex.matmul_backward(dinp.byteOffset, dweight.byteOffset, dbias === null ? 0 : dbias.byteOffset, dbias === null ? 0 : 1, dout.byteOffset, inp.byteOffset, weight.byteOffset, BT, C, OC)
}

export function wasmAttentionForward(out: Float32Array, att: Float32Array, qkv: Float32Array, lens: Int32Array, B: number, T: number, C: number, NH: number): void {
  const ex = owner(out, att, qkv, lens)
  if (ex === undefined) return attentionForward(out, att, qkv, lens, B, T, C, NH)
  ex.attention_forward(out.byteOffset, att.byteOffset, qkv.byteOffset, lens.byteOffset, B, T, C, NH)
}

export function wasmAttentionBackward(
  dqkv: Float32Array, scratch: Float32Array,
  dout: Float32Array, qkv: Float32Array, att: Float32Array, lens: Int32Array,
  B: number, T: number, C: number, NH: number
): void {
  const ex = owner(dqkv, scratch, dout, qkv, att, lens)
  if (ex === undefined) return attentionBackward(dqkv, scratch, dout, qkv, att, lens, B, T, C, NH)
  ex.attention_backward(dqkv.byteOffset, scratch.byteOffset, dout.byteOffset, qkv.byteOffset, att.byteOffset, lens.byteOffset, B, T, C, NH)
}

export function wasmAttentionDecode(out: Float32Array, outOff: number, att: Float32Array, q: Float32Array, qOff: number, kc: Float32Array, vc: Float32Array, kvOff: number, t: number, C: number, NH: number): void {
  const ex = owner(out, att, q, kc, vc)
  if (ex === undefined) return attentionDecode(out, outOff, att, q, qOff, kc, vc, kvOff, t, C, NH)
  ex.attention_decode(out.byteOffset + 4 * outOff, att.byteOffset, q.byteOffset + 4 * qOff, kc.byteOffset + 4 * kvOff, vc.byteOffset + 4 * kvOff, t, C, NH)
}

export function wasmGeluForward(out: Float32Array, inp: Float32Array, N: number): void {
  const ex = owner(out, inp)
  if (ex === undefined) return geluForward(out, inp, N)
  ex.gelu_forward(out.byteOffset, inp.byteOffset, N)
}

export function wasmGeluBackward(dinp: Float32Array, inp: Float32Array, dout: Float32Array, N: number): void {
  const ex = owner(dinp, inp, dout)
  if (ex === undefined) return geluBackward(dinp, inp, dout, N)
  ex.gelu_backward(dinp.byteOffset, inp.byteOffset, dout.byteOffset, N)
}

export function wasmLayernormForward(out: Float32Array, mean: Float32Array, rstd: Float32Array, inp: Float32Array, weight: Float32Array, bias: Float32Array, N: number, C: number): void {
  const ex = owner(out, mean, rstd, inp, weight, bias)
  if (ex === undefined) return layernormForward(out, mean, rstd, inp, weight, bias, N, C)
  ex.layernorm_forward(out.byteOffset, mean.byteOffset, rstd.byteOffset, inp.byteOffset, weight.byteOffset, bias.byteOffset, N, C)
}

export function wasmLayernormBackward(
  dinp: Float32Array, dweight: Float32Array, dbias: Float32Array,
  dout: Float32Array, inp: Float32Array, weight: Float32Array, mean: Float32Array, rstd: Float32Array,
  N: number, C: number
): void {
  // eight arrays: the two not covered by owner's six are checked here
  const ex = mean.buffer === dinp.buffer && rstd.buffer === dinp.buffer ? owner(dinp, dweight, dbias, dout, inp, weight) : undefined
  if (ex === undefined) return layernormBackward(dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C)
  ex.layernorm_backward(dinp.byteOffset, dweight.byteOffset, dbias.byteOffset, dout.byteOffset, inp.byteOffset, weight.byteOffset, mean.byteOffset, rstd.byteOffset, N, C)
}
