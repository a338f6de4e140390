/**
 * leaderboard.json (versioned) and verify.json. The leaderboard is rebuilt from result files
 * alone; it holds no timestamps or absolute paths, so the same files give the same bytes.
 */
import { Schema } from "effect"

/**
 * 2: runs pool only under equal resolved configs and semantics version; cells carry their config hash.
 * 3: bootstrap intervals instead of mean ± se; scores two ways (peak, last-3 mean); paired deltas
 * against `none` with Holm; the noise floor; seeds for 80% power; per-run budgets; IQM and
 * probability of improvement across envs (plugins/leaderboard/statistics).
 */
export const LEADERBOARD_VERSION = 3

/** A mean over seeds with its 95% percentile-bootstrap interval (lo/hi null with one seed). */
export const Estimate = Schema.Struct({ mean: Schema.Finite, lo: Schema.NullOr(Schema.Finite), hi: Schema.NullOr(Schema.Finite), n: Schema.Int })
export type Estimate = typeof Estimate.Type

/** A cell's per-seed difference against `none` in its row (plugins/leaderboard/statistics/paired.ts). */
export const Paired = Schema.Struct({
  /** Pairs: seeds both the cell and `none` have. */
  n: Schema.Int,
  /** Seeds only one side has (left out of the pairs). */
  unpaired: Schema.Int,
  mean: Schema.Finite,
  /** Unbiased sd of the per-seed differences (null with one pair). */
  sd: Schema.NullOr(Schema.Finite),
  lo: Schema.NullOr(Schema.Finite),
  hi: Schema.NullOr(Schema.Finite),
  /** Coverage of [lo, hi]: the Holm level 1 − α/(m − k) in the family, 0.95 outside it. */
  level: Schema.Finite,
  /** Two-sided bootstrap p, and Holm-adjusted over the page's family (null outside it). */
  p: Schema.NullOr(Schema.Finite),
  pHolm: Schema.NullOr(Schema.Finite),
  /** Holm rejects "no difference" at α = 0.05 over every comparison on the page. */
  separated: Schema.Boolean,
  inFamily: Schema.Boolean,
  /** Seeds needed to detect a 5-point difference at 80% power from the observed sd (null with one pair). */
  seedsNeeded: Schema.NullOr(Schema.Int)
})
export type Paired = typeof Paired.Type

/** Means per run of what the cell's runs spent, each summed over the run's steps; null where no run logged it. */
export const Budget = Schema.Struct({
  envSteps: Schema.NullOr(Schema.Finite),
  tokens: Schema.NullOr(Schema.Finite),
  rollouts: Schema.NullOr(Schema.Finite),
  optimizerSteps: Schema.NullOr(Schema.Finite)
})
export type Budget = typeof Budget.Type

/** baseline: `none`; noise-floor: `none` with another rollout sampling stream (a reference); filter: the rest. */
export const CellKind = Schema.Literals(["baseline", "filter", "noise-floor"])
export type CellKind = typeof CellKind.Type

export const Cell = Schema.Struct({
  filter: Schema.String,
  kind: CellKind,
  /** The cell's seeds, ascending (runs of a seed given twice are averaged). */
  seeds: Schema.Array(Schema.Int),
  /** Peak validation success (the paper's report) and the mean of the last 3 evaluations, over seeds. */
  peak: Estimate,
  last3: Schema.NullOr(Estimate),
  /** Against `none` in the same row, per score; null for `none` itself or without shared seeds. */
  delta: Schema.NullOr(Paired),
  deltaLast3: Schema.NullOr(Paired),
  budget: Budget,
  /** Highest peak mean in its row (ties all marked; the noise floor never). */
  best: Schema.Boolean,
  /** Hash of the resolved config (seed aside) and the semantics version every run of the cell shares. */
  configHash: Schema.String
})
export type Cell = typeof Cell.Type

export const Row = Schema.Struct({
  key: Schema.String,
  env: Schema.String,
  algo: Schema.String,
  /** What else distinguishes this row from the others (e.g. "lr=0.001 PxG=8x16"); "" when nothing. */
  setting: Schema.String,
  /** The results-semantics version of the row's runs (core/semantics.ts). */
  semantics: Schema.Int,
  /** The `none` cell's peak estimate (null without one). */
  baseline: Schema.NullOr(Estimate),
  cells: Schema.Array(Cell)
})
export type Row = typeof Row.Type

/** An aggregate over rows (tasks) with its stratified-bootstrap 95% interval (null with one run per row). */
export const Aggregate = Schema.Struct({
  value: Schema.Finite,
  lo: Schema.NullOr(Schema.Finite),
  hi: Schema.NullOr(Schema.Finite),
  tasks: Schema.Int,
  runs: Schema.Int
})
export type Aggregate = typeof Aggregate.Type

/** Across the rows (envs) of one algorithm: a filter's IQM of normalized scores and P(filter > none). */
export const Across = Schema.Struct({
  algo: Schema.String,
  filter: Schema.String,
  kind: CellKind,
  /** Envs of the rows the filter has runs in. */
  envs: Schema.Array(Schema.String),
  iqmPeak: Aggregate,
  iqmLast3: Schema.NullOr(Aggregate),
  /** Over the rows where both the filter and `none` have runs; null for `none` itself. */
  improvementPeak: Schema.NullOr(Aggregate),
  improvementLast3: Schema.NullOr(Aggregate)
})
export type Across = typeof Across.Type

/** The score that normalizes an env's success (the teacher's), and whether it was assumed (an env without a known one). */
export const Normalizer = Schema.Struct({ env: Schema.String, value: Schema.Finite, assumed: Schema.Boolean })

/** How many comparisons Holm corrected over, per score. */
export const Family = Schema.Struct({ peak: Schema.Int, last3: Schema.Int, alpha: Schema.Finite })

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
  /** Mean of the run's last 3 evaluations (null without evaluations in its metrics). */
  last3: Schema.NullOr(Schema.Finite),
  /** The run's rollout sampling stream (train.samplingStream; 0 when the config has none). */
  samplingStream: Schema.Int,
  /** Sums over the run's steps (null where it did not log the metric). */
  budget: Budget,
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
  family: Family,
  across: Schema.Array(Across),
  normalizers: Schema.Array(Normalizer),
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
