/**
 * leaderboard.json (versioned) and verify.json. The leaderboard is rebuilt from result files
 * alone; it holds no timestamps or absolute paths, so the same files give the same bytes.
 */
import { Schema } from "effect"

/** 2: runs pool only under equal resolved configs and semantics version; cells carry their config hash. */
export const LEADERBOARD_VERSION = 2

/** Mean ± standard error over seeds (se null when n < 2). */
export const Stat = Schema.Struct({ mean: Schema.Finite, se: Schema.NullOr(Schema.Finite), n: Schema.Int })
export type Stat = typeof Stat.Type

export const Cell = Schema.Struct({
  filter: Schema.String,
  stat: Stat,
  /** Filter mean − no-filter mean; se = √(se_f² + se_none²). Null without a no-filter baseline. */
  delta: Schema.NullOr(Stat),
  /** Highest mean in its row (ties all marked). */
  best: Schema.Boolean,
  /** Hash of the resolved config (seed aside) and the semantics version every run of the cell shares. */
  configHash: Schema.String
})

export const Row = Schema.Struct({
  key: Schema.String,
  env: Schema.String,
  algo: Schema.String,
  /** What else distinguishes this row from the others (e.g. "lr=0.001 PxG=8x16"); "" when nothing. */
  setting: Schema.String,
  /** The results-semantics version of the row's runs (core/semantics.ts). */
  semantics: Schema.Int,
  baseline: Schema.NullOr(Stat),
  cells: Schema.Array(Cell)
})
export type Row = typeof Row.Type

export const RankEntry = Schema.Struct({
  filter: Schema.String,
  meanRank: Schema.Finite,
  meanDelta: Schema.NullOr(Schema.Finite),
  /** Rows (settings) the filter appears in, and in how many it has the best mean. */
  rows: Schema.Int,
  wins: Schema.Int
})
export type RankEntry = typeof RankEntry.Type

export const Series = Schema.Struct({ name: Schema.String, points: Schema.Array(Schema.Tuple([Schema.Finite, Schema.Finite])) })
export type Series = typeof Series.Type

export const Chart = Schema.Struct({ metric: Schema.String, title: Schema.String, series: Schema.Array(Series) })
export type Chart = typeof Chart.Type

export const Group = Schema.Struct({
  key: Schema.String,
  title: Schema.String,
  charts: Schema.Array(Chart),
  /** Chart metrics no run of the group logged. */
  missing: Schema.Array(Schema.String)
})
export type Group = typeof Group.Type

export const Entry = Schema.Struct({
  runId: Schema.String,
  hash: Schema.String,
  rowKey: Schema.String,
  env: Schema.String,
  algo: Schema.String,
  filter: Schema.String,
  seed: Schema.Int,
  status: Schema.Literals(["complete", "failed", "stopped", "incomplete"]),
  codeVersion: Schema.String,
  runtime: Schema.String,
  stepsDone: Schema.NullOr(Schema.Int),
  peak: Schema.NullOr(Schema.Finite),
  /** Run folder relative to the site folder (a link that works from file://). */
  path: Schema.String,
  verified: Schema.NullOr(Schema.Boolean),
  error: Schema.optional(Schema.String)
})
export type Entry = typeof Entry.Type

export const Problem = Schema.Struct({ path: Schema.String, message: Schema.String })
export type Problem = typeof Problem.Type

export const Leaderboard = Schema.Struct({
  format: Schema.Literal("ragen-bench/leaderboard"),
  version: Schema.Literal(LEADERBOARD_VERSION),
  /** The metric the table ranks by (peak over the run's evals). */
  metric: Schema.String,
  sources: Schema.Array(Schema.String),
  filters: Schema.Array(Schema.String),
  rows: Schema.Array(Row),
  ranking: Schema.Array(RankEntry),
  groups: Schema.Array(Group),
  entries: Schema.Array(Entry),
  problems: Schema.Array(Problem)
})
export type Leaderboard = typeof Leaderboard.Type

/** verify.json, next to the run folders: the result of `leaderboard verify`. */
export const VerifyFile = Schema.Struct({
  format: Schema.Literal(1),
  runs: Schema.Record(Schema.String, Schema.Struct({ ok: Schema.Boolean, checkedAt: Schema.String, codeVersion: Schema.String, detail: Schema.String }))
})
export type VerifyFile = typeof VerifyFile.Type
