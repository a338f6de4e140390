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

/** One packed file, inflated to at most `maxBytes` (zlib stops there: the bomb is never inflated whole). */
export const unpackFile = (f: JobResult["files"][number], maxBytes = MAX_UNPACKED_FILE_BYTES): string => {
  const gz = Buffer.from(f.gz, "base64")
  try {
    return gunzipSync(gz, { maxOutputLength: Math.max(1, maxBytes) }).toString("utf8")
  } catch (e) {
    const code = (e as { code?: string }).code
    if (code === "ERR_BUFFER_TOO_LARGE") throw new QueueDataError({ message: `${f.name} inflates to more than ${maxBytes} bytes: refused (the cap on a job's files)` })
    throw new QueueDataError({ message: `${f.name} is not valid gzip (${code ?? "corrupt"})` })
  }
}

/** Every file of a result, inflated within the per-file cap and the cap on their sum. */
export const unpackFiles = (files: ReadonlyArray<JobResult["files"][number]>): Array<{ name: (typeof RUN_FILES)[number]; text: string }> => {
  let left = MAX_UNPACKED_RESULT_BYTES
  return files.map((f) => {
    const text = unpackFile(f, Math.min(MAX_UNPACKED_FILE_BYTES, left))
    left -= Buffer.byteLength(text, "utf8")
    return { name: f.name, text }
  })
}
