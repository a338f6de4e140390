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
import { buildRegistry, codeVersion, decodeSync, type GridRun, isComplete, type RegistryData, runIdOf, RunSummary, terminalSafe } from "../../core/host.ts"
import { writeFailedSummary } from "../sweep/index.ts"
import { pluginsOfRun } from "./compat.ts"
import { runFolder, writeRunFiles } from "./files.ts"
import { collectAllowance, type InflateAllowance, JobData, jobIdOf, JobProgress, JobResult, QUEUE_NAME } from "./job.ts"
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

interface Pending {
  readonly run: GridRun
  started: boolean
  finished: boolean
}

/** What a sweep or a collect has counted so far, and where its events go. */
interface Tally {
  readonly emit: (e: SweepEvent) => void
  skipped: number
  done: number
  failed: number
}

export const makeCoordinator = (opts: CoordinatorOptions): SweepExecutor => {
  const connection = connectionOptions(opts.target) as any
  let queue: Queue | undefined
  const getQueue = (): Queue => (queue ??= new Queue(QUEUE_NAME, { connection }))
  // Reasons and names from the queue are a Redis writer's text: no password, no escape sequences.
  const clean = (s: string): string => terminalSafe(scrub(opts.target, s))

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

  /** A finished job's result written into the run's own folder; the summary it holds, or an error. */
  const collectResult = (outDir: string, run: GridRun, value: unknown, allowance?: InflateAllowance): { summary: RunSummary } | { error: string } => {
    const r = decodeSync(JobResult, typeof value === "string" ? safeJson(value) : value)
    if (!r.ok) return { error: `the job's result does not decode: ${r.message}` }
    if (r.value.runId !== run.runId) return { error: `the job's result names run ${JSON.stringify(r.value.runId.slice(0, 80))}, not ${run.runId}: refused` }
    try {
      writeRunFiles(outDir, run.runId, run.config, r.value.files, allowance)
      const p = join(runFolder(outDir, run.runId), "summary.json")
      const s = existsSync(p) ? decodeSync(RunSummary, safeJson(readFileSync(p, "utf8"))) : undefined
      return s?.ok ? { summary: s.value } : { error: "the job's result holds no valid summary.json" }
    } catch (e) {
      return { error: (e as { _tag?: string })._tag === "QueueDataError" ? (e as Error).message : `cannot write the run into ${outDir}: ${(e as Error)?.message ?? e}` }
    }
  }

  /** A collected result as the sweep's event, counted. */
  const tallyResult = (t: Tally, run: GridRun, r: ReturnType<typeof collectResult>): void => {
    if ("summary" in r && r.summary.status === "complete") {
      t.done++
      t.emit({ type: "done", run, summary: r.summary })
    } else {
      t.failed++
      t.emit({ type: "failed", run, error: clean("error" in r ? r.error : `the run ended ${r.summary.status}`) })
    }
  }

  const run = (req: SweepRequest): Promise<SweepOutcome> =>
    new Promise((resolveSweep) => {
      const s = startSweep(req, resolveSweep)
      void (async () => {
        try {
          for (const [id, p] of s.pending) await reconcile(s, id, p, true)
        } catch (e) {
          s.t.emit({ type: "worker-error", worker: -1, error: clean(`cannot enqueue on ${opts.target.shown}: ${(e as Error)?.message ?? e}`) })
          return s.end()
        }
        if (s.ended()) return
        if (req.detach || req.signal?.aborted) return s.end()
        followEvents(s)
        s.setTimer(setInterval(() => poll(s), opts.pollMs))
        req.signal?.addEventListener("abort", s.end)
        s.checkEnd()
      })()
    })

  /** A sweep's state on the queue: its pending runs, the tally, and how each job's end is recorded. */
  const startSweep = (req: SweepRequest, resolveSweep: (o: SweepOutcome) => void) => {
    const t0 = performance.now()
    const t: Tally = { emit: req.onEvent ?? (() => {}), skipped: 0, done: 0, failed: 0 }
    const registry = registryOf(req.plugins)
    const name = req.name ?? "sweep"
    const pending = new Map<string, Pending>()
    for (const r of req.runs) {
      if (isComplete(join(req.outDir, r.runId))) {
        t.skipped++
        t.emit({ type: "skip", run: r })
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
      void Promise.resolve(closing).then(() => resolveSweep({ total: req.runs.length, skipped: t.skipped, done: t.done, failed: t.failed, unfinished, wallSeconds: (performance.now() - t0) / 1000 }))
    }
    const checkEnd = (): void => {
      if ([...pending.values()].every((p) => p.finished)) end()
    }
    const start = (p: Pending, worker: string, resume: boolean): void => {
      if (p.started) return
      p.started = true
      if (!workers.has(worker)) workers.set(worker, workers.size)
      t.emit({ type: "start", run: p.run, worker: workers.get(worker)!, resume })
    }
    const finishDone = (p: Pending, value: unknown): void => {
      if (p.finished) return
      p.finished = true
      tallyResult(t, p.run, collectResult(req.outDir, p.run, value))
      checkEnd()
    }
    const finishFailed = (p: Pending, reason: string, data: unknown): void => {
      if (p.finished) return
      p.finished = true
      const error = clean(reason || "failed")
      recordFailed(req.outDir, p.run, error, data)
      t.failed++
      t.emit({ type: "failed", run: p.run, error })
      checkEnd()
    }
    return {
      t,
      q,
      pending,
      end,
      checkEnd,
      start,
      finishDone,
      finishFailed,
      name,
      registry,
      ended: () => ended,
      setEvents: (e: QueueEvents) => (events = e),
      setTimer: (x: ReturnType<typeof setInterval>) => (timer = x),
      polling: { busy: false, readded: 0 }
    }
  }
  type SweepState = ReturnType<typeof startSweep>

  const add = (s: SweepState, p: Pending): Promise<unknown> => s.q.add("run", dataOf(s.name, p.run, s.registry), jobOptions(p.run.hash))

  /** Read one run's job and act on its state; `fresh`: a failed job is retried (a new sweep). */
  const reconcile = async (s: SweepState, id: string, p: Pending, fresh: boolean): Promise<"added" | "ok"> => {
    // The state first, then the job: a job read while active and finished a moment later has no result yet.
    const state = await s.q.getJobState(id)
    const job = state === "completed" || state === "failed" ? await s.q.getJob(id) : undefined
    if (state === "unknown" || ((state === "completed" || state === "failed") && !job)) {
      await add(s, p)
      return "added"
    }
    if (state === "completed") s.finishDone(p, job!.returnvalue)
    else if (state === "failed") {
      if (fresh) {
        await job!.remove()
        await add(s, p)
        return "added"
      }
      s.finishFailed(p, job!.failedReason, job!.data)
    }
    return "ok"
  }

  /** The queue's events for the progress display and each job's end. */
  const followEvents = (s: SweepState): void => {
    const events = s.setEvents(new QueueEvents(QUEUE_NAME, { connection }))
    events.on("error", () => {}) // reconnects; the poll covers what is missed meanwhile
    events.on("progress", ({ jobId, data }) => {
      const p = s.pending.get(jobId)
      const r = decodeSync(JobProgress, data)
      if (!p || p.finished || !r.ok) return
      s.start(p, r.value.worker, r.value.resume)
      if (r.value.step !== null) s.t.emit({ type: "progress", run: p.run, step: r.value.step, steps: r.value.steps, success: r.value.success })
    })
    events.on("completed", ({ jobId, returnvalue }) => {
      const p = s.pending.get(jobId)
      if (p) s.finishDone(p, returnvalue)
    })
    events.on("failed", ({ jobId, failedReason }) => {
      const p = s.pending.get(jobId)
      // "failed" comes once attempts are exhausted (or a refusal); retries are not failures yet.
      if (!p || p.finished) return
      s.q.getJob(jobId).then(
        (job) => s.finishFailed(p, failedReason, job?.data),
        () => s.finishFailed(p, failedReason, undefined)
      )
    })
  }

  /** One poll: every unfinished run's job read again (missed events, a Redis restarted without its data). */
  const poll = (s: SweepState): void => {
    if (s.polling.busy || s.ended()) return
    s.polling.busy = true
    void (async () => {
      try {
        for (const [id, p] of s.pending) if (!p.finished && (await reconcile(s, id, p, false)) === "added") s.polling.readded++
        if (s.polling.readded > 0) {
          s.t.emit({ type: "worker-error", worker: -1, error: `re-enqueued ${s.polling.readded} run(s) missing from the queue (Redis restarted without persistence?)` })
          s.polling.readded = 0
        }
      } catch {
        // Redis unreachable right now: the next poll tries again.
      } finally {
        s.polling.busy = false
      }
    })()
  }

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
        if (state === "completed" && !isCompleteSafe(outDir, d.value.runId)) uncollected++
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
    // Sweep names, labels, reasons and worker names are whatever a Redis writer put there.
    return lines.map(terminalSafe)
  }

  /** The run a job names, when its run id is the one its config resolves to (else the job is not collected). */
  const runOf = (d: JobData): GridRun | undefined => {
    let id: { runId: string; hash: string }
    try {
      id = runIdOf(d.config)
    } catch {
      return undefined // a config nested past the stack's depth: no run of ours
    }
    return id.runId === d.runId && id.hash === d.hash ? { runId: id.runId, hash: id.hash, config: d.config, label: terminalSafe(d.label) } : undefined
  }

  const collect = async (req: Omit<SweepRequest, "runs" | "detach">): Promise<SweepOutcome> => {
    const t0 = performance.now()
    const t: Tally = { emit: req.onEvent ?? (() => {}), skipped: 0, done: 0, failed: 0 }
    const q = getQueue()
    // One cap on what this collect inflates in all (job.ts MAX_UNPACKED_COLLECT_BYTES), not only per result.
    const allowance = collectAllowance()
    let total = 0
    let unfinished = 0
    for (const state of ["completed", "failed", "active", "waiting", "delayed", "prioritized", "paused"] as const) {
      for (const job of await allJobs(q, [state])) {
        const d = decodeSync(JobData, job.data)
        if (!d.ok) continue
        total++
        const run = runOf(d.value)
        if (state !== "completed" && state !== "failed") unfinished++
        else if (!run) {
          t.failed++
          t.emit({ type: "worker-error", worker: -1, error: `job ${terminalSafe(String(job.id).slice(0, 80))}: its run id is not its config's: not collected` })
        } else if (isComplete(join(req.outDir, run.runId))) {
          t.skipped++
          t.emit({ type: "skip", run })
        } else if (state === "completed") tallyResult(t, run, collectResult(req.outDir, run, job.returnvalue, allowance))
        else {
          const error = clean(job.failedReason || "failed")
          recordFailed(req.outDir, run, error, job.data)
          t.failed++
          t.emit({ type: "failed", run, error })
        }
      }
    }
    return { total, skipped: t.skipped, done: t.done, failed: t.failed, unfinished, wallSeconds: (performance.now() - t0) / 1000 }
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
    if (files.length > 0) writeRunFiles(outDir, run.runId, run.config, files)
    const p = join(runFolder(outDir, run.runId), "summary.json")
    const s = existsSync(p) ? decodeSync(RunSummary, safeJson(readFileSync(p, "utf8"))) : undefined
    if (!s?.ok || s.value.status !== "failed") writeFailedSummary(outDir, run.config, error)
  } catch {
    // recorded in the event only (a refused file, a folder that cannot be written)
  }
}

/** isComplete of a run id read from the queue, without looking outside outDir for a crafted one. */
const isCompleteSafe = (outDir: string, runId: string): boolean => {
  try {
    return isComplete(runFolder(outDir, runId))
  } catch {
    return false
  }
}

const safeJson = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}
