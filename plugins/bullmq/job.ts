/**
 * What travels through the queue: a job's data (one run's resolved config and what the worker
 * must match: code version, plugins), its progress, and its result (the run's files). All
 * decoded with Schema on the receiving side: a queue is shared state, not trusted input.
 */
import { Schema } from "effect"
import { gunzipSync, gzipSync } from "node:zlib"
import { RunConfig } from "../../core/host.ts"

export const QUEUE_NAME = "ragen-bench-sweep"

/** BullMQ refuses job ids that are plain integers; a prefix also keeps ours apart from others'. */
export const jobIdOf = (hash: string): string => `run-${hash}`

export const PluginRef = Schema.Struct({ name: Schema.String, version: Schema.String, hash: Schema.String })
export type PluginRef = typeof PluginRef.Type

/** The files of a run folder that travel back (checkpoints stay on the worker). */
export const RUN_FILES = ["config.json", "metrics.jsonl", "samples.jsonl", "summary.json"] as const

/** One file, gzip then base64: metrics.jsonl of a real run is hundreds of kB of repetitive JSON. */
export const PackedFile = Schema.Struct({ name: Schema.Literals(RUN_FILES), gz: Schema.String })

export const JobData = Schema.Struct({
  /** The sweep's name (status groups by it). */
  sweep: Schema.String,
  runId: Schema.String,
  hash: Schema.String,
  label: Schema.String,
  config: RunConfig,
  /** The coordinator's code version: a worker on another one refuses the job. */
  codeVersion: Schema.String,
  /** The plugins the run uses, as the coordinator has them. */
  plugins: Schema.Array(PluginRef),
  /** Set by the worker when the last attempt failed: the run folder as it was left, as a local sweep keeps it. */
  failedFiles: Schema.optional(Schema.Array(PackedFile))
})
export type JobData = typeof JobData.Type

/** job.updateProgress payload: step null = the run has just started on `worker`. */
export const JobProgress = Schema.Struct({
  worker: Schema.String,
  step: Schema.NullOr(Schema.Int),
  steps: Schema.Int,
  success: Schema.NullOr(Schema.Finite),
  resume: Schema.Boolean
})
export type JobProgress = typeof JobProgress.Type

export const JobResult = Schema.Struct({
  runId: Schema.String,
  worker: Schema.String,
  files: Schema.Array(PackedFile)
})
export type JobResult = typeof JobResult.Type

export const packFile = (name: (typeof RUN_FILES)[number], text: string): JobResult["files"][number] => ({
  name,
  gz: gzipSync(Buffer.from(text, "utf8")).toString("base64")
})

/**
 * Refused queue data: a file over its size cap (a gzip bomb), a run id that is not a plain
 * folder name or not the run the coordinator sent. The message is safe to print.
 */
export class QueueDataError extends Schema.TaggedError<QueueDataError>()("QueueDataError", { message: Schema.String }) {}

const MiB = 1024 * 1024
/**
 * Caps on what one job result may inflate to: a real run's metrics.jsonl is hundreds of kB (a
 * 100k-step run tens of MB); a 1.4 MB result once inflated to a 1 GiB metrics.jsonl.
 */
export const MAX_UNPACKED_FILE_BYTES = 64 * MiB
export const MAX_UNPACKED_RESULT_BYTES = 128 * MiB
/**
 * Cap on what one `sweep collect` may inflate in all: per result alone, 3 jobs of 1 MB in Redis
 * once wrote 379 MB. A real sweep's results are far below it (a 40-step run: hundreds of kB); a
 * bigger backlog is collected over several collects, each saying what it left.
 */
export const MAX_UNPACKED_COLLECT_BYTES = 256 * MiB

/** Bytes one command may still inflate (shared by every result it unpacks; see MAX_UNPACKED_COLLECT_BYTES). */
export interface InflateAllowance {
  left: number
  readonly total: number
}

export const collectAllowance = (total = MAX_UNPACKED_COLLECT_BYTES): InflateAllowance => ({ left: total, total })

/** One packed file, inflated to at most `maxBytes` (zlib stops there: the bomb is never inflated whole); `cap` names the cap in the refusal. */
export const unpackFile = (f: JobResult["files"][number], maxBytes = MAX_UNPACKED_FILE_BYTES, cap = "the cap on a job's files"): string => {
  const gz = Buffer.from(f.gz, "base64")
  try {
    return gunzipSync(gz, { maxOutputLength: Math.max(1, maxBytes) }).toString("utf8")
  } catch (e) {
    const code = (e as { code?: string }).code
    if (code === "ERR_BUFFER_TOO_LARGE") throw new QueueDataError({ message: `${f.name} inflates to more than ${maxBytes} bytes: refused (${cap})` })
    throw new QueueDataError({ message: `${f.name} is not valid gzip (${code ?? "corrupt"})` })
  }
}

/**
 * Every file of a result, inflated within the per-file cap, the cap on their sum and, given an
 * allowance (one `sweep collect`'s), what is left of it; the allowance is charged what was inflated.
 */
export const unpackFiles = (files: ReadonlyArray<JobResult["files"][number]>, allowance?: InflateAllowance): Array<{ name: (typeof RUN_FILES)[number]; text: string }> => {
  let left = MAX_UNPACKED_RESULT_BYTES
  return files.map((f) => {
    const byCollect = allowance !== undefined && allowance.left < Math.min(MAX_UNPACKED_FILE_BYTES, left)
    const max = byCollect ? Math.max(0, allowance.left) : Math.min(MAX_UNPACKED_FILE_BYTES, left)
    const cap = byCollect ? `the cap on one sweep collect, ${allowance.total} bytes in all, is spent; run sweep collect again for the rest` : undefined
    const text = unpackFile(f, max, cap)
    const n = Buffer.byteLength(text, "utf8")
    left -= n
    if (allowance) allowance.left -= n
    return { name: f.name, text }
  })
}
