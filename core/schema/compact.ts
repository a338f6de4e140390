/**
 * The compact run record (core/results/compact.ts): one JSON file per run, small enough that a
 * whole sweep's results can be committed (the published reference set, shard outputs).
 * It holds config.json whole, summary.json whole, the curves of the kept metrics at the
 * evaluation steps only, and per-run budget sums over every step.
 */
import { Schema } from "effect"
import { RunConfigFile, RunSummary } from "../contracts/results.ts"

export const COMPACT_FORMAT = "ragen-bench/compact-run"
export const COMPACT_VERSION = 1

export const CompactRun = Schema.Struct({
  format: Schema.Literal(COMPACT_FORMAT),
  version: Schema.Literal(COMPACT_VERSION),
  /** config.json as the run wrote it (resolved config, semantics, plugins, code version, runtime, host). */
  run: RunConfigFile,
  /** summary.json as the run wrote it (absent: the run never finished a summary). */
  summary: Schema.optional(RunSummary),
  /** The evaluation steps (those whose line has val/success@0.5), strictly increasing. */
  steps: Schema.Array(Schema.Int),
  /** metric → its value at each of `steps` (null: not logged at that step, or logged as null). */
  curves: Schema.Record(Schema.String, Schema.Array(Schema.NullOr(Schema.Finite))),
  /** Sums over every step of the run's budget metrics (budget/*, train/optimizer_steps) it logged. */
  budget: Schema.Record(Schema.String, Schema.Finite)
})
export type CompactRun = typeof CompactRun.Type
