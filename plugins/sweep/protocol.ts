/**
 * Messages between the sweep runner and its worker processes: one JSON object per line,
 * runner → worker on stdin, worker → runner on stdout. Decoded with Schema on both ends.
 */
import { Schema } from "effect"
import { RunConfig, RunSummary } from "../../core/host.ts"

export const ToWorker = Schema.Union([
  Schema.Struct({ type: Schema.Literal("run"), runId: Schema.String, config: RunConfig, outDir: Schema.String, resume: Schema.Boolean }),
  /** Stop the current run after its current step (Ctrl-C); it is summarised as "stopped". */
  Schema.Struct({ type: Schema.Literal("stop") })
])
export type ToWorker = typeof ToWorker.Type

export const FromWorker = Schema.Union([
  Schema.Struct({ type: Schema.Literal("ready") }),
  Schema.Struct({
    type: Schema.Literal("progress"),
    runId: Schema.String,
    step: Schema.Int,
    steps: Schema.Int,
    /** Latest validation success seen in this run (null before the first eval). */
    success: Schema.NullOr(Schema.Finite)
  }),
  Schema.Struct({ type: Schema.Literal("done"), runId: Schema.String, summary: RunSummary }),
  Schema.Struct({ type: Schema.Literal("failed"), runId: Schema.String, error: Schema.String }),
  /** The worker cannot work at all (e.g. the trainer does not load). */
  Schema.Struct({ type: Schema.Literal("fatal"), error: Schema.String })
])
export type FromWorker = typeof FromWorker.Type

/** The runner passes the sweep's --plugin paths and --config here (absolute paths). */
export const PLUGINS_ENV = "RAGEN_SWEEP_PLUGINS"
export const CONFIG_ENV = "RAGEN_SWEEP_CONFIG"
/** The sweep's --sink choices (JSON), resolved in the worker against its own registry. */
export const SINKS_ENV = "RAGEN_SWEEP_SINKS"
