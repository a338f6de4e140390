/** Schemas of the files in a run folder (docs/design.md §9). */
import { Schema } from "effect"
import { RunConfig } from "./run-config.ts"

/** 2: resolved configs, the semantics version, plugins and host in config.json (format 1: raw configs). */
export const RESULTS_FORMAT = 2

/** The metric the progress display and the leaderboard call "success" (docs/metrics.md). */
export const SUCCESS_METRIC = "val/success@0.5"

export const Runtime = Schema.Struct({
  name: Schema.Literals(["bun", "deno", "node"]),
  version: Schema.String,
  /** Process-wide choices reported by plugins (core/runtime.ts noteRuntime), e.g. kernels. */
  notes: Schema.optional(Schema.Record(Schema.String, Schema.String))
})

/** A plugin that contributed to a run: its name, version and the content hash of its code. */
export const PluginRecord = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  /** sha256 (12 hex) of the plugin's file for user plugins; "builtin" for the built-ins (the code version covers them). */
  hash: Schema.String
})
export type PluginRecord = typeof PluginRecord.Type

/** The machine a run ran on (not hashed: the same config on another machine is the same run). */
export const Host = Schema.Struct({
  cpu: Schema.String,
  cores: Schema.Int,
  platform: Schema.String,
  arch: Schema.String
})

/** config.json */
export const RunConfigFile = Schema.Struct({
  format: Schema.Literal(RESULTS_FORMAT),
  runId: Schema.String,
  /** Content hash of { config, semantics }: the run id's suffix. */
  hash: Schema.String,
  /** The fully resolved config: every default filled in, ids resolved to "<plugin>/<id>". */
  config: RunConfig,
  /** The results-semantics version (core/semantics.ts). */
  semantics: Schema.Int,
  /** The plugins whose contributions the run used (env, algorithm, filter, policy, scorer, sinks). */
  plugins: Schema.Array(PluginRecord),
  codeVersion: Schema.String,
  runtime: Runtime,
  host: Host,
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
