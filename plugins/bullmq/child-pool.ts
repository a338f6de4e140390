/**
 * The queue worker's child processes: each is the local sweep's own worker process
 * (plugins/sweep/worker.ts, JSON lines over stdio), so a job runs through exactly the code
 * path of a local run. Training is CPU-bound and synchronous between awaits; in a child it
 * cannot starve the BullMQ worker's event loop, which must renew the job's lock on time or the
 * job is declared stalled and run twice. A child is kept for the next job (the trainer and the
 * plugins load once) and replaced when it dies.
 */
import type { ChildProcess } from "node:child_process"
import { availableParallelism } from "node:os"
import { resolve as resolvePath } from "node:path"
import { createInterface } from "node:readline"
import { decodeSync, type RunSummary, spawnOnRuntime } from "../../core/host.ts"
import { CONFIG_ENV, FromWorker, PLUGINS_ENV, sweepWorkerPath, type ToWorker } from "../sweep/index.ts"

export type ChildOutcome =
  | { readonly type: "done"; readonly summary: RunSummary }
  | { readonly type: "failed"; readonly error: string }
  /** The child process died, or cannot work at all (fatal): not the run's fault. */
  | { readonly type: "lost"; readonly error: string }

export interface ChildRunProgress {
  readonly step: number
  readonly steps: number
  readonly success: number | null
}

interface Child {
  readonly proc: ChildProcess
  stderrTail: string
  /** The child's "fatal" message (it cannot load the trainer or the plugins). */
  fatal?: string
  exited: boolean
  ready: Promise<void>
  onMessage?: (m: FromWorker) => void
  onExit?: (why: string) => void
}

export interface ChildPoolOptions {
  readonly concurrency: number
  readonly pluginPaths: ReadonlyArray<string>
  readonly configPath?: string
  readonly env?: Record<string, string>
}

export const createChildPool = (opts: ChildPoolOptions) => {
  const idle: Child[] = []
  const all = new Set<Child>()
  const spawnChild = (): Child => {
    const proc = spawnOnRuntime(sweepWorkerPath, [], {
      stdio: ["pipe", "pipe", "pipe"],
      env: {
        ...process.env,
        [PLUGINS_ENV]: JSON.stringify(opts.pluginPaths.map((p) => resolvePath(p))),
        ...(opts.configPath ? { [CONFIG_ENV]: resolvePath(opts.configPath) } : {}),
        // As the local pool: the kernels' second thread only when the children leave a core free.
        RAGEN_THREADS: process.env.RAGEN_THREADS ?? (2 * opts.concurrency <= availableParallelism() ? "2" : "1"),
        ...opts.env
      }
    })
    let markReady = (): void => {}
    const child: Child = { proc, stderrTail: "", exited: false, ready: new Promise((r) => (markReady = r)) }
    all.add(child)
    proc.stderr!.on("data", (d: Buffer) => {
      child.stderrTail = (child.stderrTail + d.toString("utf8")).slice(-2000)
    })
    proc.stdin!.on("error", () => {})
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      let json: unknown
      try {
        json = JSON.parse(line)
      } catch {
        return // a trainer's stray output, not protocol
      }
      const r = decodeSync(FromWorker, json)
      if (!r.ok) return
      if (r.value.type === "ready") markReady()
      if (r.value.type === "fatal") child.fatal = r.value.error
      child.onMessage?.(r.value)
    })
    proc.on("exit", (code, sig) => {
      child.exited = true
      all.delete(child)
      const i = idle.indexOf(child)
      if (i >= 0) idle.splice(i, 1)
      markReady()
      const tail = child.stderrTail.trim().split("\n").slice(-3).join(" | ")
      child.onExit?.(`worker process exited (${sig ?? `code ${code}`}) during the run${tail ? `: ${tail}` : ""}`)
    })
    return child
  }

  const acquire = async (): Promise<Child> => {
    const c = idle.pop() ?? spawnChild()
    await c.ready
    return c
  }

  /** Run one run in a child; resolves with how it ended (never rejects). */
  const run = async (msg: Extract<ToWorker, { type: "run" }>, onProgress: (p: ChildRunProgress) => void, signal?: AbortSignal): Promise<ChildOutcome> => {
    const child = await acquire()
    if (child.exited) return { type: "lost", error: child.fatal ?? `worker process exited before the run: ${child.stderrTail.trim().split("\n").slice(-3).join(" | ")}` }
    return await new Promise<ChildOutcome>((resolveRun) => {
      let settled = false
      const settle = (o: ChildOutcome, reusable: boolean): void => {
        if (settled) return
        settled = true
        child.onMessage = undefined
        child.onExit = undefined
        signal?.removeEventListener("abort", onAbort)
        if (reusable && !child.exited) {
          // The child says "ready" again after each run; it is free once that arrives.
          child.ready = new Promise((r) => {
            child.onMessage = (m) => {
              if (m.type === "ready") {
                child.onMessage = undefined
                r()
              }
            }
          })
          idle.push(child)
        } else child.proc.stdin?.end()
        resolveRun(o)
      }
      const onAbort = (): void => {
        if (!child.exited) child.proc.stdin?.write(JSON.stringify({ type: "stop" } satisfies ToWorker) + "\n")
      }
      signal?.addEventListener("abort", onAbort)
      child.onMessage = (m) => {
        if (m.type === "progress") onProgress({ step: m.step, steps: m.steps, success: m.success })
        else if (m.type === "done") settle({ type: "done", summary: m.summary }, true)
        else if (m.type === "failed") settle({ type: "failed", error: m.error }, true)
        else if (m.type === "fatal") settle({ type: "lost", error: m.error }, false)
      }
      child.onExit = (why) => settle({ type: "lost", error: why }, false)
      child.proc.stdin!.write(JSON.stringify(msg) + "\n")
    })
  }

  /** Close every child's stdin: an idle child exits, a busy one aborts its run and exits. */
  const close = (): void => {
    for (const c of all) c.proc.stdin?.end()
  }

  return { run, close, size: () => all.size }
}
