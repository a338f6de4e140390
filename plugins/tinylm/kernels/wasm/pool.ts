/**
 * A second thread for the fast kernels, WASM or native (docs/decisions.md#issue-4 allows "splitting work across the
 * two cores with workers and shared memory"). One Worker per backend runs the same kernels (the
 * same wasm module, or the same native library and instruction set) on the same shared arena
 * memories; a large kernel call is split in two: the worker runs one share while the calling
 * thread runs the other, then the caller waits for it. Splits never change a result: every output
 * is computed by the same instructions in the same order as in the one-thread call (see the split
 * rules in loader.ts), so RAGEN_THREADS changes the speed, not the numbers.
 *
 * RAGEN_THREADS=1|2 (default: 2 when the machine has ≥ 2 cores and the runtime can unref a
 * Worker — Bun; else 1). The sweep runner sets it to 1 for its workers when they fill the cores.
 */
import { availableParallelism } from "node:os"
import { noteRuntime, UsageError } from "../../../../core/host.ts"
import { ACK, ARGS, CONTROL_WORDS, DONE, FAILED, MEM, OP, POOL_OPS, type PoolBackend, type PoolOp, SEQ, type WorkerMessage, YIELD } from "./pool-protocol.ts"

const SPIN = 200000
const START_TIMEOUT_MS = 30000

export class KernelPool {
  private readonly ctl: Int32Array
  private readonly worker: Worker
  private readonly ids = new WeakMap<WebAssembly.Memory, number>()
  private readonly finalizer: FinalizationRegistry<number>
  private nextId = 1
  private seq = 0
  /** Kernel jobs run on the worker so far (tests check that splits happen). */
  jobs = 0
  /** Whether the worker sits in its job loop (after its first attach). */
  private looping = false

  constructor(backend: PoolBackend) {
    const sab = new SharedArrayBuffer(CONTROL_WORDS * 4)
    this.ctl = new Int32Array(sab)
    this.worker = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" })
    ;(this.worker as unknown as { unref(): void }).unref()
    this.post({ type: "init", control: sab, backend })
    // an arena that is garbage-collected leaves the worker too
    this.finalizer = new FinalizationRegistry((id) => this.detach(id))
  }

  private post(m: WorkerMessage): void {
    this.worker.postMessage(m)
  }

  /**
   * Wait (spinning first) until the control word at `i` equals `want`. A kernel share takes
   * milliseconds, so a worker silent for START_TIMEOUT_MS never started (its module or memory
   * failed to load): that is an error naming the way out, not a hang.
   */
  private waitFor(i: number, want: number): void {
    let v = Atomics.load(this.ctl, i)
    for (let k = 0; v !== want && k < SPIN; k++) v = Atomics.load(this.ctl, i)
    const t0 = performance.now()
    while (v !== want) {
      if (performance.now() - t0 > START_TIMEOUT_MS) throw new Error(`tinylm: the kernel worker did not answer in ${START_TIMEOUT_MS / 1000} s; run with RAGEN_THREADS=1`)
      Atomics.wait(this.ctl, i, v, 100)
      v = Atomics.load(this.ctl, i)
    }
  }

  /** Send the worker back to its event loop so that it reads the messages posted to it. */
  private yieldWorker(): void {
    if (!this.looping) return
    this.ctl[OP] = YIELD
    Atomics.store(this.ctl, SEQ, ++this.seq)
    Atomics.notify(this.ctl, SEQ)
    this.waitFor(DONE, this.seq)
  }

  private idOf(memory: WebAssembly.Memory): number {
    let id = this.ids.get(memory)
    if (id === undefined) {
      id = this.nextId++
      this.ids.set(memory, id)
      this.finalizer.register(memory, id)
      this.post({ type: "attach", id, memory })
      this.yieldWorker()
      this.waitFor(ACK, id)
      this.looping = true
    }
    return id
  }

  private detach(id: number): void {
    this.post({ type: "detach", id })
    this.yieldWorker()
  }

  /** Start `op` on the worker over `memory` (join() waits for it). */
  start(memory: WebAssembly.Memory, op: PoolOp, args: ReadonlyArray<number>): void {
    const id = this.idOf(memory)
    this.jobs++
    this.ctl[OP] = POOL_OPS.indexOf(op) + 1
    this.ctl[MEM] = id
    for (let i = 0; i < args.length; i++) this.ctl[ARGS + i] = args[i]!
    Atomics.store(this.ctl, SEQ, ++this.seq)
    Atomics.notify(this.ctl, SEQ)
  }

  join(): void {
    this.waitFor(DONE, this.seq)
    if (Atomics.load(this.ctl, FAILED) !== 0)
      throw new Error("tinylm: a kernel failed on the worker thread (a wasm trap, or the native library did not load there); run with RAGEN_THREADS=1 to see it on the main thread")
  }
}

let threads: number | undefined
const pools = new Map<string, KernelPool>()

/** Threads for the kernels (1 or 2), from RAGEN_THREADS or the default; chosen once per process. */
export const kernelThreads = (): number => {
  if (threads !== undefined) return threads
  const want = process.env.RAGEN_THREADS
  const canUnref = typeof Worker === "function" && typeof (Worker.prototype as { unref?: unknown }).unref === "function"
  if (want !== undefined && want !== "" && want !== "1" && want !== "2") {
    throw new UsageError({ field: "RAGEN_THREADS", message: `RAGEN_THREADS=${want} is not a thread count; use 1 or 2 (a kernel call is split in two at most)` })
  }
  threads = want === "1" ? 1 : want === "2" ? (canUnref ? 2 : 1) : canUnref && availableParallelism() >= 2 ? 2 : 1
  noteRuntime("threads", String(threads))
  return threads
}

/** Kernel jobs the process's pools have run (0 without a pool). */
export const kernelPoolJobs = (): number => {
  let n = 0
  for (const p of pools.values()) n += p.jobs
  return n
}

/** What a pool's worker runs: the wasm module (bytes made on first use) or one native build. */
export type PoolInit = { readonly kind: "wasm"; readonly bytes: () => Uint8Array } | { readonly kind: "native"; readonly isa: string }

/** The process's kernel pool for this backend, or undefined when running on one thread. */
export const kernelPool = (init: PoolInit): KernelPool | undefined => {
  if (kernelThreads() < 2) return undefined
  const key = init.kind === "wasm" ? "wasm" : `native:${init.isa}`
  let pool = pools.get(key)
  if (pool === undefined) {
    pool = new KernelPool(init.kind === "wasm" ? { kind: "wasm", bytes: init.bytes() } : init)
    pools.set(key, pool)
  }
  return pool
}
