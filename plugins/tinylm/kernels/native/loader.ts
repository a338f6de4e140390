/**
 * The native kernels as a fast backend (../fast.ts): one build of the library (avx512, avx2 or
 * sse2; by default the best this CPU runs) bound to each arena memory, with its own kernel pool.
 */
import { type Attached, type FastBackend, fastKernels } from "../fast.ts"
import type { Kernels } from "../dispatch.ts"
import { kernelPool } from "../wasm/pool.ts"
import { bindNative, type NativeIsa, nativeStatus } from "./ffi.ts"

const backends = new Map<NativeIsa, { backend: FastBackend; kernels: Kernels }>()

/**
 * Split thresholds for the native kernels (wasm: 2^20 and 2^16): a native call runs 3–8× faster than
 * the wasm one while a job round trip costs the same, so a call must be ≈ 4× larger before the second
 * thread pays. `bun benchmarks/tinylm-trainer-shapes.ts 3 --splits` (benchmarks/results/tinylm.md)
 * put 2^22 first for training and scoring, on a loaded machine (noisy); decode steps (32 rows) stay
 * on one thread at every setting tried. The pointwise kernels (LayerNorm forward, GELU, the residual
 * add) split from 2^16 elements: a 64 × 2048 LayerNorm or residual on one thread read the other
 * thread's half of the rows from its core, and splitting them made the ctx-64 training step of
 * benchmarks/tinylm-vs-torch.ts 3–4% faster than 2^18 (benchmarks/results/kernels.md).
 */
export const NATIVE_SPLIT_MATMUL = 1 << 22
export const NATIVE_SPLIT_POINTWISE = 1 << 16

const splits = { matmul: NATIVE_SPLIT_MATMUL, pointwise: NATIVE_SPLIT_POINTWISE }

const entry = (isa: NativeIsa) => {
  let e = backends.get(isa)
  if (!e) {
    const backend: FastBackend = {
      attached: new WeakMap<ArrayBufferLike, Attached>(),
      pool: () => kernelPool({ kind: "native", isa }),
      splitMatmul: splits.matmul,
      splitPointwise: splits.pointwise
    }
    e = { backend, kernels: fastKernels(backend) }
    backends.set(isa, e)
  }
  return e
}

/** Set the split thresholds of every native build (benchmarks/tinylm-trainer-shapes.ts --splits measures them). */
export const setNativeSplits = (matmul: number, pointwise: number): void => {
  splits.matmul = matmul
  splits.pointwise = pointwise
  for (const { backend } of backends.values()) {
    backend.splitMatmul = matmul
    backend.splitPointwise = pointwise
  }
}

/** The kernels of build `isa` (views of memories not attached to it run the JS reference). */
export const nativeKernelsFor = (isa: NativeIsa): Kernels => entry(isa).kernels

/** Bind build `isa` to `memory` (idempotent); false when the library is not loaded here. */
export const attachNative = (memory: WebAssembly.Memory, isa: NativeIsa): boolean => {
  const st = nativeStatus()
  if (!st.ok) return false
  const attached = entry(isa).backend.attached
  if (!attached.has(memory.buffer)) attached.set(memory.buffer, { ex: bindNative(st.lib, isa, memory), memory })
  return true
}
