/**
 * The kernel pool's worker thread: instantiates the WASM kernels (or binds the native library's
 * build) on every arena memory the calling thread attaches, then waits on the control block (pool-protocol.ts) and runs the share
 * of a kernel call it is given. It spins briefly before blocking, because the next job usually
 * follows within microseconds (the next layer's kernel).
 */
import { bindNative, type NativeIsa, nativeStatus } from "../native/ffi.ts"
import { ACK, ARGS, DONE, FAILED, MEM, OP, POOL_OPS, type PoolBackend, SEQ, type WorkerMessage, YIELD } from "./pool-protocol.ts"

type Fn = (...args: number[]) => void
const instances = new Map<number, Record<string, Fn>>()
let control: Int32Array | undefined
let backend: PoolBackend | undefined
let module: WebAssembly.Module | undefined
let last = 0
const SPIN = 20000

const loop = (ctl: Int32Array): void => {
  for (;;) {
    let seq = Atomics.load(ctl, SEQ)
    for (let i = 0; seq === last && i < SPIN; i++) seq = Atomics.load(ctl, SEQ)
    if (seq === last) {
      Atomics.wait(ctl, SEQ, last)
      continue
    }
    last = seq
    const op = ctl[OP]!
    if (op !== YIELD) {
      try {
        const ex = instances.get(ctl[MEM]!)!
        const a = ctl.subarray(ARGS)
        ex[POOL_OPS[op - 1]!]!(a[0]!, a[1]!, a[2]!, a[3]!, a[4]!, a[5]!, a[6]!, a[7]!, a[8]!, a[9]!, a[10]!, a[11]!, a[12]!, a[13]!, a[14]!, a[15]!)
      } catch {
        Atomics.store(ctl, FAILED, 1)
      }
    }
    Atomics.store(ctl, DONE, seq)
    Atomics.notify(ctl, DONE)
    if (op === YIELD) return
  }
}

self.onmessage = (e: MessageEvent<WorkerMessage>): void => {
  const m = e.data
  if (m.type === "init") {
    control = new Int32Array(m.control)
    backend = m.backend
    if (backend.kind === "wasm") module = new WebAssembly.Module(backend.bytes as Uint8Array<ArrayBuffer>)
    return
  }
  const ctl = control!
  if (m.type === "attach") {
    if (backend!.kind === "wasm") instances.set(m.id, new WebAssembly.Instance(module!, { env: { memory: m.memory } }).exports as unknown as Record<string, Fn>)
    else {
      // the calling thread opened the same library, so it loads here too; if not, jobs fail loudly (FAILED)
      const st = nativeStatus()
      if (st.ok) instances.set(m.id, bindNative(st.lib, backend!.isa as NativeIsa, m.memory) as unknown as Record<string, Fn>)
    }
    Atomics.store(ctl, ACK, m.id)
    Atomics.notify(ctl, ACK)
  } else instances.delete(m.id)
  loop(ctl)
}
