/**
 * The sweep runner: N worker processes (default: the number of cores), each running one run
 * at a time. Runs already complete in the results folder are skipped; partial ones (a
 * config.json but no complete summary) are resumed. A failed run is recorded and the sweep
 * goes on; a worker that dies mid-run has its run recorded as failed and is replaced.
 * Abort (Ctrl-C) stops every worker after its current step; the runs are summarised as
 * "stopped" and resumed by the next sweep.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync } from "node:fs"
import { availableParallelism } from "node:os"
import { join, resolve as resolvePath } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { isComplete } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import type { SweepEvent, SweepOutcome, SweepRequest } from "../../core/contracts/index.ts"
import type { GridRun } from "../../core/sweep/grid.ts"
import { warmStartKey as configWarmKey } from "../../core/sweep/estimate.ts"
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

/**
 * argv for a child running a .ts file on this runtime (Deno needs `run -A`). Bun's children never
 * install a package at run time either (`--no-install`, as cli.ts's shebang): a worker loads the
 * user's plugins, whose folder may have no node_modules.
 */
export const runtimeArgs = (file: string): string[] => ((globalThis as any).Deno ? ["run", "-A", file] : ["--no-install", file])

interface Slot {
  readonly id: number
  readonly child: ChildProcess
  current?: GridRun
  stderrTail: string
  exited: boolean
}

export const runSweep = (runs: ReadonlyArray<GridRun>, opts: SweepOptions): Promise<SweepOutcome> =>
  new Promise((resolveSweep) => {
    const t0 = performance.now()
    const emit = opts.onEvent ?? (() => {})
    const pending: GridRun[] = []
    let skipped = 0
    for (const run of runs) {
      if (isComplete(join(opts.outDir, run.runId))) {
        skipped++
        emit({ type: "skip", run })
      } else pending.push(run)
    }
    let done = 0
    let failed = 0
    let stopping = opts.signal?.aborted ?? false
    let fatal: string | undefined
    let nextId = 0
    const slots = new Set<Slot>()
    const finish = (): void => {
      if (slots.size > 0) return
      resolveSweep({
        total: runs.length,
        skipped,
        done,
        failed,
        unfinished: runs.length - skipped - done - failed,
        wallSeconds: (performance.now() - t0) / 1000,
        ...(fatal !== undefined ? { fatal } : {})
      })
    }
    const send = (slot: Slot, msg: ToWorker): void => {
      if (!slot.exited && slot.child.stdin?.writable) slot.child.stdin.write(JSON.stringify(msg) + "\n")
    }
    // Runs sharing a key share one cached SFT warm start: two started together would both train it.
    // A run's warm start is ready once it reports progress (step 0 comes after the warm start).
    const warmStartKey = (run: GridRun): string => configWarmKey(run.config)
    const warmed = new Set<string>()
    // A run whose warm start is ready or not being trained by another worker right now; none:
    // the worker waits for the warm start (same wall time as training it twice, half the CPU).
    const nextRun = (slot: Slot): GridRun | undefined => {
      const busy = new Set<string>()
      for (const s of slots) if (s !== slot && s.current) busy.add(warmStartKey(s.current))
      const i = pending.findIndex((r) => warmed.has(warmStartKey(r)) || !busy.has(warmStartKey(r)))
      return i < 0 ? undefined : pending.splice(i, 1)[0]
    }
    const waiting = new Set<Slot>()
    const wake = (): void => {
      for (const w of [...waiting]) {
        waiting.delete(w)
        assign(w)
      }
    }
    const assign = (slot: Slot): void => {
      const run = stopping ? undefined : nextRun(slot)
      if (!run) {
        slot.current = undefined
        if (!stopping && pending.length > 0 && !slot.exited) {
          waiting.add(slot)
          return
        }
        slot.child.stdin?.end()
        return
      }
      const resume = existsSync(join(opts.outDir, run.runId, "config.json"))
      slot.current = run
      emit({ type: "start", run, worker: slot.id, resume })
      send(slot, { type: "run", runId: run.runId, config: run.config, outDir: opts.outDir, resume })
    }
    const spawnWorker = (): void => {
      const child = spawn(process.execPath, runtimeArgs(workerPath), {
        stdio: ["pipe", "pipe", "pipe"],
        env: {
          ...process.env,
          [PLUGINS_ENV]: JSON.stringify((opts.pluginPaths ?? []).map((p) => resolvePath(p))),
          ...(opts.configPath ? { [CONFIG_ENV]: resolvePath(opts.configPath) } : {}),
          ...(opts.sinks && opts.sinks.length > 0 ? { [SINKS_ENV]: JSON.stringify(opts.sinks) } : {}),
          // the kernels' second thread (plugins/tinylm/kernels/wasm/pool.ts) only when the workers leave a core free
          RAGEN_THREADS: process.env.RAGEN_THREADS ?? (2 * workerCount <= availableParallelism() ? "2" : "1"),
          ...opts.env
        }
      })
      const slot: Slot = { id: nextId++, child, stderrTail: "", exited: false }
      slots.add(slot)
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
        if (!r.ok) return
        const m = r.value
        if (m.type === "ready") assign(slot)
        else if (m.type === "progress" && slot.current) {
          emit({ type: "progress", run: slot.current, step: m.step, steps: m.steps, success: m.success })
          const key = warmStartKey(slot.current)
          if (!warmed.has(key)) {
            warmed.add(key)
            wake()
          }
        } else if (m.type === "done" && slot.current) {
          if (m.summary.status === "complete") {
            done++
            emit({ type: "done", run: slot.current, summary: m.summary })
          } else if (m.summary.status === "failed") {
            failed++
            emit({ type: "failed", run: slot.current, error: m.summary.error ?? "failed" })
          }
          warmed.add(warmStartKey(slot.current))
          slot.current = undefined
          wake()
        } else if (m.type === "failed" && slot.current) {
          failed++
          emit({ type: "failed", run: slot.current, error: m.error })
          warmed.add(warmStartKey(slot.current))
          slot.current = undefined
          wake()
        } else if (m.type === "fatal") {
          emit({ type: "worker-error", worker: slot.id, error: m.error })
          fatal ??= m.error
          stopping = true // the trainer cannot load: every worker would fail the same way
          wake()
        }
      })
      child.on("exit", (code, sig) => {
        slot.exited = true
        slots.delete(slot)
        waiting.delete(slot)
        const run = slot.current
        if (run) {
          const error = `worker exited (${sig ?? `code ${code}`}) during the run: ${slot.stderrTail.trim().split("\n").slice(-3).join(" | ")}`
          if (!stopping) {
            try {
              writeFailedSummary(opts.outDir, run.config, error)
            } catch {
              // recorded in the event only
            }
            failed++
            emit({ type: "failed", run, error })
          }
        }
        if (!stopping && pending.length > 0 && slots.size < Math.min(workerCount, pending.length + slots.size)) spawnWorker()
        wake() // the dead worker's warm start is nobody's now
        finish()
      })
    }
    const workerCount = Math.max(1, Math.floor(opts.workers ?? defaultWorkers()))
    opts.signal?.addEventListener("abort", () => {
      stopping = true
      for (const s of slots) {
        if (s.current) send(s, { type: "stop" })
        else s.child.stdin?.end()
      }
    })
    const n = stopping ? 0 : Math.min(workerCount, pending.length)
    for (let i = 0; i < n; i++) spawnWorker()
    finish()
  })
