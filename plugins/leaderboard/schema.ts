/**
 * leaderboard.json (versioned; verification marks: verify-marks.ts). The leaderboard is rebuilt from result files
 * alone; it holds no timestamps or absolute paths, so the same files give the same bytes.
 */
import { Schema } from "effect"

/**
 * 2: runs pool only under equal resolved configs and semantics version; cells carry their config hash.
 * 3: bootstrap intervals instead of mean ± se; scores two ways (peak, last-3 mean); paired deltas
 * against `none` with Holm; the noise floor; seeds for 80% power; per-run budgets; IQM and
 * probability of improvement across envs (plugins/leaderboard/statistics).
 * 4: calibrated verdicts (plugins/leaderboard/statistics/verdicts.ts): the exact sign-flip p, the t
 * interval, a verdict per comparison (better, worse, not-separated, cannot-separate); the primary
 * score is the area under the validation curve (delta), with last-3, peak and the fact-accuracy
 * area beside it; what each cell's filter kept; rows where none does not learn, marked and left
 * out of the aggregates; the page's verdict in one sentence.
 */
export const LEADERBOARD_VERSION = 4

/** A mean over seeds with its 95% t interval (lo/hi null with one seed). */
export const Estimate = Schema.Struct({ mean: Schema.Finite, lo: Schema.NullOr(Schema.Finite), hi: Schema.NullOr(Schema.Finite), n: Schema.Int })
export type Estimate = typeof Estimate.Type

export const Verdict = Schema.Literals(["better", "worse", "not-separated", "cannot-separate"])
export type Verdict = typeof Verdict.Type

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
  /** Coverage of [lo, hi] (a t interval): the Holm level 1 − α/(m − k) in the family, 0.95 outside it. */
  level: Schema.Finite,
  /** Two-sided p of the page's test (family.test), and Holm-adjusted over the page's family (null outside it). */
  p: Schema.NullOr(Schema.Finite),
  pHolm: Schema.NullOr(Schema.Finite),
  /** The smallest p the test can give at n pairs (sign-flip: 2/2^n). */
  minP: Schema.NullOr(Schema.Finite),
  /** Holm rejects "no difference" at α = 0.05 over every comparison on the page. */
  separated: Schema.Boolean,
  inFamily: Schema.Boolean,
  /** better/worse: separated, by sign; cannot-separate: even the most extreme result at this n could not pass its threshold. */
  verdict: Verdict,
  /** Seeds needed to detect a 5-point difference at 80% power from the observed sd, never below what the test needs (null with one pair). */
  seedsNeeded: Schema.NullOr(Schema.Int)
})
export type Paired = typeof Paired.Type

/**
 * A filter's difference from its random control at the same kept count ("selection", controls.ts):
 * which groups the filter keeps, with the update budget held equal. On the primary score, paired
 * by seed, in the same Holm family as the comparisons with `none`.
 */
export const Selection = Schema.Struct({
  /** The control cell's name in the same row. */
  control: Schema.String,
  /** filter − control, per seed. */
  delta: Paired
})
export type Selection = typeof Selection.Type

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
  /** The primary score, the area under the validation curve (mean success over evaluations after step 0), over seeds. */
  auc: Schema.NullOr(Estimate),
  /** The mean of the last 3 evaluations, and the peak (the paper's report), over seeds. */
  last3: Schema.NullOr(Estimate),
  peak: Estimate,
  /** The area under the validation fact-accuracy curve (null where the metric is not logged). */
  factAuc: Schema.NullOr(Estimate),
  /** Against `none` in the same row, per score (delta: the primary); null for `none` itself or without shared seeds. */
  delta: Schema.NullOr(Paired),
  deltaLast3: Schema.NullOr(Paired),
  deltaPeak: Schema.NullOr(Paired),
  deltaFactAuc: Schema.NullOr(Paired),
  /** Against its random control at the same kept count, on the primary score (absent where the row holds no matched control). */
  selection: Schema.optional(Selection),
  /** Mean fractions per run: groups kept, non-zero-spread groups kept, zero-spread groups (null where not logged). */
  kept: Schema.Struct({ groups: Schema.NullOr(Schema.Finite), nonZeroSpread: Schema.NullOr(Schema.Finite), zeroSpread: Schema.NullOr(Schema.Finite) }),
  budget: Budget,
  /** Highest primary mean among the cells of its row separated above none (never a difference inside its interval). */
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
  /** The `none` cell's primary estimate (null without one). */
  baseline: Schema.NullOr(Estimate),
  /** Why none does not learn here (the row stays on the page, out of IQM, P(improvement) and the ranking); null when it learns. */
  notLearning: Schema.NullOr(Schema.String),
  /** Present where none rises then collapses (the collapse track's gate on ≥ 2/3 of its seeds): the paper's regime, in words. */
  collapses: Schema.optional(Schema.String),
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
  /** IQM of the primary score (area) and of last-3, over the rows where none learns. */
  iqm: Schema.NullOr(Aggregate),
  iqmLast3: Schema.NullOr(Aggregate),
  /** Over the rows where both the filter and `none` have runs and none learns; null for `none` itself. */
  improvement: Schema.NullOr(Aggregate),
  improvementLast3: Schema.NullOr(Aggregate)
})
export type Across = typeof Across.Type

/** The score that normalizes an env's success (the teacher's), and whether it was assumed (an env without a known one). */
export const Normalizer = Schema.Struct({ env: Schema.String, value: Schema.Finite, assumed: Schema.Boolean })

/** How many comparisons Holm corrected over, per score, and the test every p comes from. */
export const Family = Schema.Struct({
  primary: Schema.Int,
  last3: Schema.Int,
  peak: Schema.Int,
  factAuc: Schema.Int,
  /** Of the primary family, the comparisons of a filter with its matched random control (absent in files of older builds: 0). */
  selection: Schema.optional(Schema.Int),
  alpha: Schema.Finite,
  test: Schema.Literals(["sign-flip", "t"])
})
export type Family = typeof Family.Type

/** The page's verdict in words (first sentence) and the comparisons it names. */
export const PageVerdict = Schema.Struct({
  sentence: Schema.String,
  separated: Schema.Array(
    Schema.Struct({
      env: Schema.String,
      setting: Schema.String,
      filter: Schema.String,
      verdict: Verdict,
      mean: Schema.Finite,
      n: Schema.Int,
      /** The comparison's other side: absent for `none`; the control's name for a selection contrast. */
      against: Schema.optional(Schema.String)
    })
  )
})
export type PageVerdict = typeof PageVerdict.Type

export const RankEntry = Schema.Struct({
  filter: Schema.String,
  meanRank: Schema.Finite,
  meanDelta: Schema.NullOr(Schema.Finite),
  /** Rows (settings) the filter appears in, and in how many it has the best mean. */
  rows: Schema.Int,
  wins: Schema.Int
})
export type RankEntry = typeof RankEntry.Type

/**
 * A filter left out of the ranking in some rows because its seeds could not rank it there: its
 * comparison with none cannot separate at its number of pairs and this family size (or it shares
 * no seed with none). `n`: its most pairs in those rows; `needed`: the pairs its test needs there.
 */
export const NotRanked = Schema.Struct({ filter: Schema.String, rows: Schema.Int, n: Schema.Int, needed: Schema.NullOr(Schema.Int) })
export type NotRanked = typeof NotRanked.Type

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
  /** The run's primary score (area under the validation curve). */
  auc: Schema.NullOr(Schema.Finite),
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
  /** The validation metric the scores read (the primary score is its area). */
  metric: Schema.String,
  verdict: PageVerdict,
  sources: Schema.Array(Schema.String),
  filters: Schema.Array(Schema.String),
  rows: Schema.Array(Row),
  family: Family,
  across: Schema.Array(Across),
  normalizers: Schema.Array(Normalizer),
  ranking: Schema.Array(RankEntry),
  /** Filters the ranking leaves out where their seeds cannot rank them (absent in files of older builds). */
  notRanked: Schema.optional(Schema.Array(NotRanked)),
  groups: Schema.Array(Group),
  entries: Schema.Array(Entry),
  problems: Schema.Array(Problem)
})
export type Leaderboard = typeof Leaderboard.Type
