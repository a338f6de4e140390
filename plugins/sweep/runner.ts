/**
 * The sweep runner: N worker processes (default: the number of cores), each running one run
 * at a time. Runs already complete in the results folder are skipped; partial ones (a
 * config.json but no complete summary) are resumed. A failed run is recorded and the sweep
 * goes on; a worker that dies mid-run has its run recorded as failed and is replaced.
 * Abort (Ctrl-C) stops every worker after its current step; the runs are summarised as
 * "stopped" and resumed by the next sweep.
 */
import type { ChildProcess } from "node:child_process"
import { existsSync } from "node:fs"
import { availableParallelism } from "node:os"
import { join, resolve as resolvePath } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { decodeSync, type GridRun, isComplete, spawnOnRuntime, warmStartKey as configWarmKey } from "../../core/host.ts"
import type { SweepEvent, SweepOutcome, SweepRequest } from "../../core/contracts/index.ts"
import { CONFIG_ENV, FromWorker, PLUGINS_ENV, SINKS_ENV, type ToWorker } from "./protocol.ts"
import { writeFailedSummary } from "./failed.ts"

export type { SweepEvent, SweepOutcome }

export interface SweepOptions {
  readonly outDir: string
  readonly workers?: number
  readonly signal?: AbortSignal
  readonly onEvent?: (e: SweepEvent) => void
  /** Extra environment for the workers (tests select the fake trainer with it). */
  readonly env?: Record<string, string>
  /** User plugin files and config file, loaded again in every worker. */
  readonly pluginPaths?: ReadonlyArray<string>
  readonly configPath?: string
  /** Metric sinks of every run (sweep --sink), resolved again in every worker. */
  readonly sinks?: SweepRequest["sinks"]
}

export const defaultWorkers = (): number => Math.max(1, availableParallelism())

const workerPath = fileURLToPath(new URL("./worker.ts", import.meta.url))

interface Slot {
  readonly id: number
  readonly child: ChildProcess
  current?: GridRun
  stderrTail: string
  exited: boolean
}

/** The pool's state while a sweep runs: the runs left, the counts, the live workers. */
interface Pool {
  readonly opts: SweepOptions
  readonly runs: ReadonlyArray<GridRun>
  readonly emit: (e: SweepEvent) => void
  readonly t0: number
  readonly workerCount: number
  readonly pending: GridRun[]
  readonly slots: Set<Slot>
  /** Idle workers waiting for a run whose warm start another worker is training. */
  readonly waiting: Set<Slot>
  /** Warm-start keys whose (cached SFT) warm start is ready. */
  readonly warmed: Set<string>
  readonly resolve: (o: SweepOutcome) => void
  skipped: number
  done: number
  failed: number
  stopping: boolean
  fatal: string | undefined
  nextId: number
}

/** Runs already complete in the results folder are skipped (and said so); the rest are pending. */
const skipComplete = (runs: ReadonlyArray<GridRun>, outDir: string, emit: Pool["emit"]): { pending: GridRun[]; skipped: number } => {
  const pending: GridRun[] = []
  let skipped = 0
  for (const run of runs) {
    if (isComplete(join(outDir, run.runId))) {
      skipped++
      emit({ type: "skip", run })
    } else pending.push(run)
  }
  return { pending, skipped }
}

/** Once the last worker is gone: the outcome. */
const finish = (p: Pool): void => {
  if (p.slots.size > 0) return
  p.resolve({
    total: p.runs.length,
    skipped: p.skipped,
    done: p.done,
    failed: p.failed,
    unfinished: p.runs.length - p.skipped - p.done - p.failed,
    wallSeconds: (performance.now() - p.t0) / 1000,
    ...(p.fatal !== undefined ? { fatal: p.fatal } : {})
  })
}

const send = (slot: Slot, msg: ToWorker): void => {
  if (!slot.exited && slot.child.stdin?.writable) slot.child.stdin.write(JSON.stringify(msg) + "\n")
}

// Runs sharing a key share one cached SFT warm start: two started together would both train it.
// A run's warm start is ready once it reports progress (step 0 comes after the warm start).
const warmStartKey = (run: GridRun): string => configWarmKey(run.config)

// A run whose warm start is ready or not being trained by another worker right now; none:
// the worker waits for the warm start (same wall time as training it twice, half the CPU).
const nextRun = (p: Pool, slot: Slot): GridRun | undefined => {
  const busy = new Set<string>()
  for (const s of p.slots) if (s !== slot && s.current) busy.add(warmStartKey(s.current))
  const i = p.pending.findIndex((r) => p.warmed.has(warmStartKey(r)) || !busy.has(warmStartKey(r)))
  return i < 0 ? undefined : p.pending.splice(i, 1)[0]
}

/** Give the waiting workers another chance at a run. */
const wake = (p: Pool): void => {
  for (const w of [...p.waiting]) {
    p.waiting.delete(w)
    assign(p, w)
  }
}

/** Hand a worker its next run; with none for it now it waits, with none left it is told to end. */
const assign = (p: Pool, slot: Slot): void => {
  const run = p.stopping ? undefined : nextRun(p, slot)
  if (!run) {
    slot.current = undefined
    if (!p.stopping && p.pending.length > 0 && !slot.exited) {
      p.waiting.add(slot)
      return
    }
    slot.child.stdin?.end()
    return
  }
  const resume = existsSync(join(p.opts.outDir, run.runId, "config.json"))
  slot.current = run
  p.emit({ type: "start", run, worker: slot.id, resume })
  send(slot, { type: "run", runId: run.runId, config: run.config, outDir: p.opts.outDir, resume })
}

/** The worker's run has ended (done, failed or its worker died): its warm start is nobody's now. */
const release = (p: Pool, slot: Slot): void => {
  p.warmed.add(warmStartKey(slot.current!))
  slot.current = undefined
  wake(p)
}

/** One protocol message from a worker. */
const onMessage = (p: Pool, slot: Slot, m: FromWorker): void => {
  if (m.type === "ready") assign(p, slot)
  else if (m.type === "progress" && slot.current) {
    p.emit({ type: "progress", run: slot.current, step: m.step, steps: m.steps, success: m.success })
    const key = warmStartKey(slot.current)
    if (!p.warmed.has(key)) {
      p.warmed.add(key)
      wake(p)
    }
  } else if (m.type === "done" && slot.current) {
    if (m.summary.status === "complete") {
      p.done++
      p.emit({ type: "done", run: slot.current, summary: m.summary })
    } else if (m.summary.status === "failed") {
      p.failed++
      p.emit({ type: "failed", run: slot.current, error: m.summary.error ?? "failed" })
    }
    release(p, slot)
  } else if (m.type === "failed" && slot.current) {
    p.failed++
    p.emit({ type: "failed", run: slot.current, error: m.error })
    release(p, slot)
  } else if (m.type === "fatal") {
    p.emit({ type: "worker-error", worker: slot.id, error: m.error })
    p.fatal ??= m.error
    p.stopping = true // the trainer cannot load: every worker would fail the same way
    wake(p)
  }
}

/** A worker exited: its run (if any) is recorded failed, and a replacement starts while runs remain. */
const onExit = (p: Pool, slot: Slot, code: number | null, sig: NodeJS.Signals | null): void => {
  slot.exited = true
  p.slots.delete(slot)
  p.waiting.delete(slot)
  const run = slot.current
  if (run) {
    const error = `worker exited (${sig ?? `code ${code}`}) during the run: ${slot.stderrTail.trim().split("\n").slice(-3).join(" | ")}`
    if (!p.stopping) {
      try {
        writeFailedSummary(p.opts.outDir, run.config, error)
      } catch {
        // recorded in the event only
      }
      p.failed++
      p.emit({ type: "failed", run, error })
    }
  }
  if (!p.stopping && p.pending.length > 0 && p.slots.size < Math.min(p.workerCount, p.pending.length + p.slots.size)) spawnWorker(p)
  wake(p) // the dead worker's warm start is nobody's now
  finish(p)
}

/** The environment of a worker process: the plugins to load again, and its kernel threads. */
const workerEnv = (opts: SweepOptions, workerCount: number): NodeJS.ProcessEnv => ({
  ...process.env,
  [PLUGINS_ENV]: JSON.stringify((opts.pluginPaths ?? []).map((p) => resolvePath(p))),
  ...(opts.configPath ? { [CONFIG_ENV]: resolvePath(opts.configPath) } : {}),
  ...(opts.sinks && opts.sinks.length > 0 ? { [SINKS_ENV]: JSON.stringify(opts.sinks) } : {}),
  // the kernels' second thread (plugins/tinylm/kernels/wasm/pool.ts) only when the workers leave a core free
  RAGEN_THREADS: process.env.RAGEN_THREADS ?? (2 * workerCount <= availableParallelism() ? "2" : "1"),
  ...opts.env
})

const spawnWorker = (p: Pool): void => {
  const child = spawnOnRuntime(workerPath, [], { stdio: ["pipe", "pipe", "pipe"], env: workerEnv(p.opts, p.workerCount) })
  const slot: Slot = { id: p.nextId++, child, stderrTail: "", exited: false }
  p.slots.add(slot)
  child.stderr!.on("data", (d: Buffer) => {
    slot.stderrTail = (slot.stderrTail + d.toString("utf8")).slice(-2000)
  })
  child.stdin!.on("error", () => {})
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      return // stray output from a trainer; not protocol
    }
    const r = decodeSync(FromWorker, json)
    if (r.ok) onMessage(p, slot, r.value)
  })
  child.on("exit", (code, sig) => onExit(p, slot, code, sig))
}

/** Stop: every worker ends after its current step (an idle one at once). */
const stopAll = (p: Pool): void => {
  p.stopping = true
  for (const s of p.slots) {
    if (s.current) send(s, { type: "stop" })
    else s.child.stdin?.end()
  }
}

export const runSweep = (runs: ReadonlyArray<GridRun>, opts: SweepOptions): Promise<SweepOutcome> =>
  new Promise((resolve) => {
    const emit = opts.onEvent ?? (() => {})
    const t0 = performance.now()
    const { pending, skipped } = skipComplete(runs, opts.outDir, emit)
    const workerCount = Math.max(1, Math.floor(opts.workers ?? defaultWorkers()))
    const p: Pool = {
      opts,
      runs,
      emit,
      t0,
      workerCount,
      pending,
      resolve,
      skipped,
      slots: new Set(),
      waiting: new Set(),
      warmed: new Set(),
      done: 0,
      failed: 0,
      stopping: opts.signal?.aborted ?? false,
      fatal: undefined,
      nextId: 0
    }
    opts.signal?.addEventListener("abort", () => stopAll(p))
    const n = p.stopping ? 0 : Math.min(workerCount, pending.length)
    for (let i = 0; i < n; i++) spawnWorker(p)
    finish(p)
  })
