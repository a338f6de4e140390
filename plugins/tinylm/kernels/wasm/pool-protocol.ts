/**
 * The control block shared by the kernel pool (pool.ts, calling thread) and its worker (worker.ts):
 * an Int32Array on a SharedArrayBuffer. The calling thread writes a job (op, memory id, i32 args)
 * and bumps SEQ; the worker runs it and stores SEQ into DONE. Every argument of a kernel is an
 * i32 (byte offsets and sizes), so a job is a fixed list of words and needs no message.
 */
export const SEQ = 0
export const DONE = 1
export const OP = 2
export const MEM = 3
/** The id of the last memory the worker attached (the answer to an "attach" message). */
export const ACK = 4
/** Set by the worker when a kernel threw (a trap); the calling thread rethrows. */
export const FAILED = 5
export const ARGS = 6
export const CONTROL_WORDS = 24

/** Job ops: YIELD returns the worker to its event loop (to receive attach/detach messages). */
export const YIELD = 0
/** The kernel exports a job may name, by op number (1-based; 0 is YIELD). */
export const POOL_OPS = [
  "matmul_forward_t",
  "matmul_forward",
  "matmul_backward_part",
  "attention_forward",
  "attention_backward",
  "attention_forward_prefixed",
  "attention_backward_prefixed",
  "residual_forward",
  "gelu_forward",
  "gelu_backward",
  "layernorm_forward",
  "head_forward",
  "head_backward"
] as const
export type PoolOp = (typeof POOL_OPS)[number]

/** The worker's kernels: the wasm module's bytes, or the native library's build for an instruction set. */
export type PoolBackend = { readonly kind: "wasm"; readonly bytes: Uint8Array } | { readonly kind: "native"; readonly isa: string }

export type WorkerMessage =
  | { readonly type: "init"; readonly control: SharedArrayBuffer; readonly backend: PoolBackend }
  | { readonly type: "attach"; readonly id: number; readonly memory: WebAssembly.Memory }
  | { readonly type: "detach"; readonly id: number }
