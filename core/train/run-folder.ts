/**
 * The bookkeeping of a run's folder: opening it fresh or for resume, reading back what a resume
 * needs (the last checkpoint, the metrics up to it), and writing the summary. A corrupt resume
 * state is a user error naming the file, never a stack trace.
 */
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { UsageError } from "../errors.ts"
import { truncateJsonLines } from "../results/jsonl.ts"
import { SAMPLES_FILE, truncateSamples } from "../results/samples.ts"
import { decodeMetricsLine, MAX_METRICS_BYTES, type OpenRunOptions, type RunHandle, runIdOf } from "../results/store.ts"
import type { ResultsStore } from "../services.ts"
import { decodeSync } from "../schema/decode.ts"
import { type MetricsLine, RunSummary } from "../contracts/results.ts"
import type { RunConfig } from "../contracts/run-config.ts"
import { latestCheckpoint, type TrainerState } from "./checkpoint.ts"

export interface OpenedRun {
  readonly run: RunHandle
  /** The checkpoint to resume from; undefined: a fresh start. */
  readonly resumeFrom?: { readonly policyPath: string; readonly state: TrainerState }
  /** Metrics lines already written up to the resumed step. */
  readonly lines: MetricsLine[]
  /** Set when a resumed run was already complete: nothing to do. */
  readonly complete?: RunSummary
}

/** Keep the metrics lines up to `upTo` (a resumed run rewrites the later ones). */
const truncateMetrics = (run: RunHandle, upTo: number): MetricsLine[] =>
  truncateJsonLines(join(run.dir, "metrics.jsonl"), MAX_METRICS_BYTES, decodeMetricsLine, (l) => typeof l.step === "number" && l.step <= upTo)

export const openRunFolder = (store: ResultsStore["Service"], config: RunConfig, o: { resume?: boolean; fresh?: boolean } & OpenRunOptions): OpenedRun => {
  const existing = join(store.root, runIdOf(config).runId)
  if (!o.resume && !o.fresh && existsSync(join(existing, "metrics.jsonl"))) {
    throw new UsageError({ field: "--resume", message: `${existing} already holds this run; pass --resume to continue it (a complete run is left as it is) or --fresh to start it over` })
  }
  const run = store.open(config, o)
  const resumeFrom = o.resume ? latestCheckpoint(run.checkpointDir) : undefined
  if (o.resume && !resumeFrom && existsSync(join(run.dir, "summary.json"))) {
    let json: unknown
    try {
      json = JSON.parse(readFileSync(join(run.dir, "summary.json"), "utf8"))
    } catch {
      json = undefined // unreadable: the run starts over below
    }
    const prev = decodeSync(RunSummary, json)
    if (prev.ok && prev.value.status === "complete") return { run, lines: [], complete: prev.value }
  }
  if (!resumeFrom) {
    rmSync(join(run.dir, "metrics.jsonl"), { force: true })
    rmSync(join(run.dir, SAMPLES_FILE), { force: true })
    rmSync(run.checkpointDir, { recursive: true, force: true })
    return { run, lines: [] }
  }
  truncateSamples(run.dir, resumeFrom.state.step)
  return { run, resumeFrom, lines: truncateMetrics(run, resumeFrom.state.step) }
}
