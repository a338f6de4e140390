/**
 * `ragen-bench worker --queue redis://…`: takes sweep jobs from the queue and runs each in a
 * child process (child-pool.ts) through the local sweep's worker, then returns the run's files
 * with the job's result. Runs go into the worker's own private work folder (work-dir.ts): a
 * retried run finds the partial folder of an earlier attempt and resumes from it, and a run
 * already complete there (its job was lost with a restarted Redis) is returned at once — each
 * only when the folder's config.json is the job's config.
 *
 * A job is a Redis writer's word (docs/cluster.md): one whose config reads files or reaches URLs
 * on this machine is refused unless the worker was started with --allow-files, and everything
 * it names is printed without control characters.
 */
import { UnrecoverableError, Worker, type Job } from "bullmq"
import { existsSync, rmSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import type { Plugin } from "../../core/contracts/index.ts"
import { codeVersion, decodeSync, externalInputs, isComplete, runIdOf, terminalSafe } from "../../core/host.ts"
import { createChildPool } from "./child-pool.ts"
import { pluginRef, refusal } from "./compat.ts"
import { packRunFiles } from "./files.ts"
import { JobData, type JobProgress, type JobResult, QUEUE_NAME } from "./job.ts"
import { connectionOptions, type RedisTarget, scrub } from "./url.ts"
import { folderHoldsConfig, withRunLock } from "./work-dir.ts"

export interface QueueWorkerOptions {
  readonly target: RedisTarget
  readonly concurrency: number
  readonly workDir: string
  /** The job lock's duration: a worker silent this long is presumed dead and its job retried. */
  readonly stallMs: number
  readonly plugins: ReadonlyArray<Plugin>
  readonly pluginPaths: ReadonlyArray<string>
  readonly configPath?: string
  readonly log: (line: string) => void
  /** Run jobs whose config reads files or reaches URLs (core/external-inputs.ts): `worker --allow-files`. */
  readonly allowFiles?: boolean
  /** Extra environment for the child processes (tests select the fake trainer with it). */
  readonly env?: Record<string, string>
}

/** Minimum gap between two progress updates of one job (each is a Redis write and an event). */
const PROGRESS_EVERY_MS = 500

export const startQueueWorker = (opts: QueueWorkerOptions) => {
  const name = `${hostname()}:${process.pid}`
  const self = { codeVersion: codeVersion(), plugins: opts.plugins.map(pluginRef) }
  const pool = createChildPool({ concurrency: opts.concurrency, pluginPaths: opts.pluginPaths, ...(opts.configPath ? { configPath: opts.configPath } : {}), ...(opts.env ? { env: opts.env } : {}) })
  const say = (s: string): void => opts.log(terminalSafe(scrub(opts.target, s)))

  const processor = async (job: Job): Promise<JobResult> => {
    // The code version first: a coordinator on other code may also send data this code cannot decode.
    const theirs = (job.data as { codeVersion?: unknown } | undefined)?.codeVersion
    if (typeof theirs === "string" && theirs !== self.codeVersion) {
      const why = refusal({ codeVersion: theirs, plugins: [] }, self)!
      say(`refused job ${job.id}: ${why}`)
      throw new UnrecoverableError(`refused by worker ${name}: ${why}`)
    }
    const d = decodeSync(JobData, job.data)
    if (!d.ok) throw new UnrecoverableError(`job ${job.id} does not decode on worker ${name}: ${d.message}`)
    const data = d.value
    const { runId } = runIdOf(data.config)
    if (runId !== data.runId) {
      throw new UnrecoverableError(`worker ${name} resolves the run's config to ${runId}, not ${data.runId}: another code version`)
    }
    const external = opts.allowFiles ? [] : externalInputs(data.config)
    const why =
      refusal(data, self) ??
      (external.length > 0 ? `its config reads files or reaches URLs on the worker (${external.join(", ")}); a worker runs such jobs only when started with --allow-files` : undefined)
    if (why) {
      say(`refused ${data.label} [${runId}]: ${why}`)
      throw new UnrecoverableError(`refused by worker ${name}: ${why}`)
    }
    // Workers sharing a work folder can be handed one run twice (a restarted Redis): one at a time.
    return withRunLock(opts.workDir, runId, async () => {
      const dir = join(opts.workDir, runId)
      // A folder of another config (never this worker's doing: the folder is private) is not resumed from.
      if (existsSync(dir) && !folderHoldsConfig(dir, data.config)) rmSync(dir, { recursive: true, force: true })
      if (isComplete(dir)) {
        say(`done  ${data.label} (already complete here)`)
        return { runId, worker: name, files: packRunFiles(dir) }
      }
      const resume = existsSync(join(dir, "config.json"))
      const progress = (p: Omit<JobProgress, "worker" | "resume">): Promise<void> => job.updateProgress({ worker: name, resume, ...p } satisfies JobProgress).catch(() => {}) // a lost update is redrawn by the next one
      await progress({ step: null, steps: data.config.steps, success: null })
      say(`start ${data.label}${resume ? " (resume)" : ""} [${runId}] attempt ${job.attemptsMade + 1}`)
      let last = 0
      const outcome = await pool.run({ type: "run", runId, config: data.config, outDir: opts.workDir, resume }, (p) => {
        const now = Date.now()
        if (now - last < PROGRESS_EVERY_MS && p.step !== p.steps) return
        last = now
        void progress(p)
      })
      if (outcome.type === "done" && outcome.summary.status === "complete") {
        say(`done  ${data.label}`)
        return { runId, worker: name, files: packRunFiles(dir) }
      }
      const error = outcome.type === "done" ? (outcome.summary.error ?? `the run ended ${outcome.summary.status}`) : outcome.error
      say(`FAILED ${data.label}: ${error}`)
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
        // The last attempt: the folder goes with the job, so the results hold what a local sweep keeps of a failed run.
        await job.updateData({ ...data, failedFiles: packRunFiles(dir) } satisfies JobData).catch(() => {})
      }
      throw new Error(error)
    })
  }

  const worker = new Worker(QUEUE_NAME, processor, {
    connection: connectionOptions(opts.target) as any,
    concurrency: opts.concurrency,
    lockDuration: opts.stallMs,
    stalledInterval: Math.max(500, Math.floor(opts.stallMs / 2)),
    // A job whose worker died twice is presumably what kills workers: recorded as failed.
    maxStalledCount: 2,
    name
  })
  let lastError = ""
  worker.on("error", (e) => {
    // Reconnection attempts repeat the same error; say it once per change.
    const msg = String((e as Error)?.message ?? e)
    if (msg !== lastError) say(`queue: ${msg}`)
    lastError = msg
  })
  worker.on("ready", () => {
    if (lastError !== "") say("queue: connected")
    lastError = ""
  })
  say(`worker ${name}: ${opts.concurrency} process(es), queue ${opts.target.shown}, work folder ${opts.workDir}, code ${self.codeVersion}`)

  return {
    name,
    worker,
    /** Finish the runs in progress, take no new ones, then release everything. */
    close: async (): Promise<void> => {
      await worker.close()
      pool.close()
    }
  }
}
