/** Schemas of the files in a run folder (DESIGN.md §9). */
import { Schema } from "effect"
import { RunConfig } from "./run-config.ts"

export const RESULTS_FORMAT = 1

/** The metric the progress display and the leaderboard call "success" (docs/metrics.md). */
export const SUCCESS_METRIC = "val/success@0.5"

export const Runtime = Schema.Struct({
  name: Schema.Literals(["bun", "deno", "node"]),
  version: Schema.String,
  /** Process-wide choices reported by plugins (core/runtime.ts noteRuntime), e.g. kernels. */
  notes: Schema.optional(Schema.Record(Schema.String, Schema.String))
})

/** config.json */
export const RunConfigFile = Schema.Struct({
  format: Schema.Literal(RESULTS_FORMAT),
  runId: Schema.String,
  hash: Schema.String,
  config: RunConfig,
  codeVersion: Schema.String,
  runtime: Runtime,
  createdAt: Schema.String
})
export type RunConfigFile = typeof RunConfigFile.Type

/** One line of metrics.jsonl: the step and documented metric names (docs/metrics.md). */
export const MetricsLine = Schema.Record(Schema.String, Schema.NullOr(Schema.Finite))
export type MetricsLine = typeof MetricsLine.Type

/** summary.json */
export const RunSummary = Schema.Struct({
  format: Schema.Literal(RESULTS_FORMAT),
  runId: Schema.String,
  status: Schema.Literals(["complete", "failed", "stopped"]),
  stepsDone: Schema.Int,
  wallSeconds: Schema.Finite,
  /** Final and peak validation success at the validation temperature (0.5). */
  finalValSuccess: Schema.NullOr(Schema.Finite),
  peakValSuccess: Schema.NullOr(Schema.Finite),
  /** Last value of every metric. */
  final: MetricsLine,
  error: Schema.optional(Schema.String),
  /** Why an early-stopping rule ended a complete run before its step budget. */
  earlyStop: Schema.optional(Schema.String)
})
export type RunSummary = typeof RunSummary.Type
