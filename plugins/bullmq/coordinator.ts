/**
 * The coordinator side of a queue sweep (the "bullmq" executor): one job per run not complete
 * in the results folder, job id = "run-" + the run's hash, so enqueueing twice adds nothing.
 * It follows the queue's events for the progress display and writes each finished run's files
 * into the results folder as a local sweep does.
 *
 * Events can be missed (a Redis restart, a coordinator started after the fact), so a poll every
 * `pollMs` also reads the state of every unfinished run's job: a finished one is collected, and
 * a missing one (Redis restarted without persistence) is enqueued again — idempotent by run hash;
 * a worker that already finished it returns its files at once.
 */
import { Queue, QueueEvents, type Job } from "bullmq"
import { Effect, Exit } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Plugin, SweepEvent, SweepExecutor, SweepOutcome, SweepRequest } from "../../core/contracts/index.ts"
import { buildRegistry, type RegistryData } from "../../core/registry.ts"
import { isComplete } from "../../core/results/store.ts"
import { codeVersion } from "../../core/runtime.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunSummary } from "../../core/schema/results.ts"
import type { GridRun } from "../../core/sweep/grid.ts"
import { writeFailedSummary } from "../sweep/index.ts"
import { pluginsOfRun } from "./compat.ts"
import { writeRunFiles } from "./files.ts"
import { JobData, jobIdOf, JobProgress, JobResult, QUEUE_NAME } from "./job.ts"
import { connectionOptions, type RedisTarget, scrub } from "./url.ts"

export interface CoordinatorOptions {
  readonly target: RedisTarget
  /** Tries of a run that fails (the first included) before it is recorded as failed. */
  readonly attempts: number
  /** First retry delay (doubling after each failure). */
  readonly backoffMs: number
  readonly pollMs: number
}

const registryOf = (plugins: ReadonlyArray<Plugin> | undefined): RegistryData | undefined => {
  if (!plugins) return undefined
  const r = Effect.runSyncExit(buildRegistry(plugins))
  return Exit.isSuccess(r) ? r.value : undefined
}

export const makeCoordinator = (opts: CoordinatorOptions): SweepExecutor => {
  const connection = connectionOptions(opts.target) as any
  let queue: Queue | undefined
  const getQueue = (): Queue => (queue ??= new Queue(QUEUE_NAME, { connection }))
  const clean = (s: string): string => scrub(opts.target, s)

  const jobOptions = (hash: string) => ({
    jobId: jobIdOf(hash),
    attempts: opts.attempts,
    backoff: { type: "exponential" as const, delay: opts.backoffMs },
    // Kept until collected: a detached sweep's results live in the queue until `sweep collect`.
    removeOnComplete: false,
    removeOnFail: false
  })

  const dataOf = (name: string, run: GridRun, registry: RegistryData | undefined): JobData => ({
    sweep: name,
    runId: run.runId,
    hash: run.hash,
    label: run.label,
    config: run.config,
    codeVersion: codeVersion(),
    plugins: registry ? pluginsOfRun(registry, run.config) : []
  })

  /** A finished job's result written into outDir; the summary it holds, or an error. */
  const collectResult = (outDir: string, value: unknown): { summary: RunSummary } | { error: string } => {
    const r = decodeSync(JobResult, typeof value === "string" ? safeJson(value) : value)
    if (!r.ok) return { error: `the job's result does not decode: ${r.message}` }
    writeRunFiles(outDir, r.value)
    const p = join(outDir, r.value.runId, "summary.json")
    const s = existsSync(p) ? decodeSync(RunSummary, safeJson(readFileSync(p, "utf8"))) : undefined
    return s?.ok ? { summary: s.value } : { error: "the job's result holds no valid summary.json" }
  }

  const run = (req: SweepRequest): Promise<SweepOutcome> =>
    new Promise((resolveSweep) => {
      const t0 = performance.now()
      const emit: (e: SweepEvent) => void = req.onEvent ?? (() => {})
      const registry = registryOf(req.plugins)
      const name = req.name ?? "sweep"
      interface Pending {
        readonly run: GridRun
        started: boolean
        finished: boolean
      }
      const pending = new Map<string, Pending>()
      let skipped = 0
      let done = 0
      let failed = 0
      for (const r of req.runs) {
        if (isComplete(join(req.outDir, r.runId))) {
          skipped++
          emit({ type: "skip", run: r })
        } else pending.set(jobIdOf(r.hash), { run: r, started: false, finished: false })
      }
      const q = getQueue()
      let events: QueueEvents | undefined
      let timer: ReturnType<typeof setInterval> | undefined
      let ended = false
      const workers = new Map<string, number>()
      const end = (): void => {
        if (ended) return
        ended = true
        if (timer) clearInterval(timer)
        const closing = events?.close().catch(() => {})
        const unfinished = [...pending.values()].filter((p) => !p.finished).length
        void Promise.resolve(closing).then(() => resolveSweep({ total: req.runs.length, skipped, done, failed, unfinished, wallSeconds: (performance.now() - t0) / 1000 }))
      }
      const checkEnd = (): void => {
        if ([...pending.values()].every((p) => p.finished)) end()
      }
      const start = (p: Pending, worker: string, resume: boolean): void => {
        if (p.started) return
        p.started = true
        if (!workers.has(worker)) workers.set(worker, workers.size)
        emit({ type: "start", run: p.run, worker: workers.get(worker)!, resume })
      }
      const finishDone = (p: Pending, value: unknown): void => {
        if (p.finished) return
        let r: ReturnType<typeof collectResult>
        try {
          r = collectResult(req.outDir, value)
        } catch (e) {
          r = { error: `cannot write the run into ${req.outDir}: ${(e as Error)?.message ?? e}` }
        }
        p.finished = true
        if ("summary" in r && r.summary.status === "complete") {
          done++
          emit({ type: "done", run: p.run, summary: r.summary })
        } else {
          failed++
          emit({ type: "failed", run: p.run, error: "error" in r ? r.error : `the run ended ${r.summary.status}` })
        }
        checkEnd()
      }
      const finishFailed = (p: Pending, reason: string, data: unknown): void => {
        if (p.finished) return
        p.finished = true
        const error = clean(reason || "failed")
        recordFailed(req.outDir, p.run, error, data)
        failed++
        emit({ type: "failed", run: p.run, error })
        checkEnd()
      }
      const add = (p: Pending): Promise<unknown> => q.add("run", dataOf(name, p.run, registry), jobOptions(p.run.hash))
      /** Read one run's job and act on its state; `fresh`: a failed job is retried (a new sweep). */
      const reconcile = async (id: string, p: Pending, fresh: boolean): Promise<"added" | "ok"> => {
        // The state first, then the job: a job read while active and finished a moment later has no result yet.
        const state = await q.getJobState(id)
        const job = state === "completed" || state === "failed" ? await q.getJob(id) : undefined
        if (state === "unknown" || ((state === "completed" || state === "failed") && !job)) {
          await add(p)
          return "added"
        }
        if (state === "completed") finishDone(p, job!.returnvalue)
        else if (state === "failed") {
          if (fresh) {
            await job!.remove()
            await add(p)
            return "added"
          }
          finishFailed(p, job!.failedReason, job!.data)
        }
        return "ok"
      }
      void (async () => {
        try {
          for (const [id, p] of pending) await reconcile(id, p, true)
        } catch (e) {
          emit({ type: "worker-error", worker: -1, error: clean(`cannot enqueue on ${opts.target.shown}: ${(e as Error)?.message ?? e}`) })
          return end()
        }
        if (ended) return
        if (req.detach || req.signal?.aborted) return end()
        events = new QueueEvents(QUEUE_NAME, { connection })
        events.on("error", () => {}) // reconnects; the poll covers what is missed meanwhile
        events.on("progress", ({ jobId, data }) => {
          const p = pending.get(jobId)
          const r = decodeSync(JobProgress, data)
          if (!p || p.finished || !r.ok) return
          start(p, r.value.worker, r.value.resume)
          if (r.value.step !== null) emit({ type: "progress", run: p.run, step: r.value.step, steps: r.value.steps, success: r.value.success })
        })
        events.on("completed", ({ jobId, returnvalue }) => {
          const p = pending.get(jobId)
          if (p) finishDone(p, returnvalue)
        })
        events.on("failed", ({ jobId, failedReason }) => {
          const p = pending.get(jobId)
          // "failed" comes once attempts are exhausted (or a refusal); retries are not failures yet.
          if (!p || p.finished) return
          q.getJob(jobId).then(
            (job) => finishFailed(p, failedReason, job?.data),
            () => finishFailed(p, failedReason, undefined)
          )
        })
        let polling = false
        let readded = 0
        timer = setInterval(() => {
          if (polling || ended) return
          polling = true
          void (async () => {
            try {
              for (const [id, p] of pending) if (!p.finished && (await reconcile(id, p, false)) === "added") readded++
              if (readded > 0) {
                emit({ type: "worker-error", worker: -1, error: `re-enqueued ${readded} run(s) missing from the queue (Redis restarted without persistence?)` })
                readded = 0
              }
            } catch {
              // Redis unreachable right now: the next poll tries again.
            } finally {
              polling = false
            }
          })()
        }, opts.pollMs)
        req.signal?.addEventListener("abort", end)
        checkEnd()
      })()
    })

  const allJobs = async (q: Queue, types: ReadonlyArray<string>): Promise<Job[]> => (await q.getJobs(types as any, 0, -1)).filter((j): j is Job => Boolean(j))

  const status = async ({ outDir }: { readonly outDir: string }): Promise<ReadonlyArray<string>> => {
    const q = getQueue()
    const states = ["active", "waiting", "delayed", "prioritized", "paused", "completed", "failed"] as const
    const bySweep = new Map<string, Record<string, number>>()
    const lines: string[] = []
    const active: string[] = []
    const failedLines: string[] = []
    let uncollected = 0
    for (const state of states) {
      for (const job of await allJobs(q, [state])) {
        const d = decodeSync(JobData, job.data)
        const sweep = d.ok ? d.value.sweep : "(not a ragen-bench job)"
        const counts = bySweep.get(sweep) ?? {}
        counts[state] = (counts[state] ?? 0) + 1
        bySweep.set(sweep, counts)
        if (!d.ok) continue
        if (state === "completed" && !isComplete(join(outDir, d.value.runId))) uncollected++
        if (state === "active") {
          const pr = decodeSync(JobProgress, job.progress)
          const p = pr.ok ? pr.value : undefined
          active.push(`  ${d.value.label}  step ${p?.step ?? 0}/${d.value.config.steps}  success ${p?.success == null ? "-" : p.success.toFixed(3)}  on ${p?.worker ?? "?"}`)
        }
        if (state === "failed") failedLines.push(`  FAILED ${d.value.label}: ${clean(job.failedReason ?? "")}`)
      }
    }
    lines.push(`queue ${opts.target.shown}:`)
    if (bySweep.size === 0) lines.push("  no jobs")
    for (const [sweep, c] of bySweep) {
      const total = Object.values(c).reduce((a, b) => a + b, 0)
      const queued = (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) + (c.paused ?? 0)
      lines.push(`  sweep ${sweep}: ${c.completed ?? 0}/${total} done, ${c.active ?? 0} running, ${queued} queued, ${c.failed ?? 0} failed`)
    }
    lines.push(...active, ...failedLines)
    if (uncollected > 0) lines.push(`${uncollected} finished run(s) not yet in ${outDir}: ragen-bench sweep collect --queue ${opts.target.shown} --out ${outDir}`)
    return lines
  }

  const collect = async (req: Omit<SweepRequest, "runs" | "detach">): Promise<SweepOutcome> => {
    const t0 = performance.now()
    const emit: (e: SweepEvent) => void = req.onEvent ?? (() => {})
    const q = getQueue()
    let total = 0
    let skipped = 0
    let done = 0
    let failed = 0
    let unfinished = 0
    const runOf = (d: JobData): GridRun => ({ runId: d.runId, hash: d.hash, config: d.config, label: d.label })
    for (const state of ["completed", "failed", "active", "waiting", "delayed", "prioritized", "paused"] as const) {
      for (const job of await allJobs(q, [state])) {
        const d = decodeSync(JobData, job.data)
        if (!d.ok) continue
        total++
        const run = runOf(d.value)
        if (state !== "completed" && state !== "failed") {
          unfinished++
          continue
        }
        if (isComplete(join(req.outDir, run.runId))) {
          skipped++
          emit({ type: "skip", run })
        } else if (state === "completed") {
          const r = collectResult(req.outDir, job.returnvalue)
          if ("summary" in r && r.summary.status === "complete") {
            done++
            emit({ type: "done", run, summary: r.summary })
          } else {
            failed++
            emit({ type: "failed", run, error: "error" in r ? r.error : `the run ended ${r.summary.status}` })
          }
        } else {
          const error = clean(job.failedReason || "failed")
          recordFailed(req.outDir, run, error, job.data)
          failed++
          emit({ type: "failed", run, error })
        }
      }
    }
    return { total, skipped, done, failed, unfinished, wallSeconds: (performance.now() - t0) / 1000 }
  }

  return {
    id: "bullmq",
    run,
    status,
    collect,
    close: async () => {
      await queue?.close().catch(() => {})
      queue = undefined
    }
  }
}

/**
 * A failed run into outDir as a local sweep leaves it: the folder the worker's last attempt left
 * (config, metrics so far, the trainer's failed summary) when it came with the job, and a failed
 * summary (read from those metrics) when the run left none — a refusal, a dead worker process.
 */
const recordFailed = (outDir: string, run: GridRun, error: string, data: unknown): void => {
  try {
    const d = decodeSync(JobData, data)
    const files = d.ok ? (d.value.failedFiles ?? []) : []
    if (files.length > 0) writeRunFiles(outDir, { runId: run.runId, worker: "", files })
    const p = join(outDir, run.runId, "summary.json")
    const s = existsSync(p) ? decodeSync(RunSummary, safeJson(readFileSync(p, "utf8"))) : undefined
    if (!s?.ok || s.value.status !== "failed") writeFailedSummary(outDir, run.config, error)
  } catch {
    // recorded in the event only
  }
}

const safeJson = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}
