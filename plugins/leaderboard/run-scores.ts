/**
 * What one run contributes to its cell, read from its metrics: the scores (area under the
 * validation curve — the primary score —, last-3 mean, peak, the fact-accuracy area), how much its
 * filter kept (filter/* metrics, docs/metrics.md), and its budget sums.
 */
import { type RunRead, SUCCESS_METRIC } from "../../core/host.ts"
import { type CollapseKind, collapseOf } from "./statistics/collapse.ts"
import { areaScore, curveOf, lastMeanScore, startScore } from "./statistics/scores.ts"
import type { Budget } from "./schema.ts"

/** The second endpoint: validation fact accuracy at the headline temperature (the collapse of reasoning). */
export const FACT_METRIC = "val/fact_accuracy@0.5"

/** The per-step budget metrics summed per run (docs/metrics.md), by their Budget field. */
export const BUDGET_METRICS: ReadonlyArray<readonly [keyof Budget, string]> = [
  ["envSteps", "budget/env_steps"],
  ["tokens", "budget/tokens"],
  ["rollouts", "budget/rollouts"],
  ["optimizerSteps", "train/optimizer_steps"]
]

/** A run's rollout sampling stream (train.samplingStream); 0 for configs written before it existed. */
export const samplingStreamOf = (config: RunRead["config"]["config"]): number => {
  const v = (config.train as Record<string, unknown> | undefined)?.samplingStream
  return typeof v === "number" && Number.isInteger(v) ? v : 0
}

/** Mean of a run's last 3 evaluations of the success metric; null when its metrics hold none. */
export const last3Of = (run: RunRead): number | null => {
  const curve = curveOf(run.metrics.lines, SUCCESS_METRIC)
  return curve.length ? lastMeanScore(curve) : null
}

/** The area score (plugins/leaderboard/statistics/scores.ts areaScore) of a metric's curve; null without evaluations after the first. */
export const areaOf = (run: RunRead, metric = SUCCESS_METRIC): number | null => {
  const curve = curveOf(run.metrics.lines, metric)
  return curve.length ? areaScore(curve) : null
}

/** Peak validation success of a run: its summary's, else the max over its metrics lines. */
export const peakOf = (run: RunRead): number | null => {
  if (run.summary?.peakValSuccess != null) return run.summary.peakValSuccess
  // A loop, not Math.max(...values): a spread of millions of values overflows the call stack.
  let best: number | null = null
  for (const l of run.metrics.lines) {
    const v = l[SUCCESS_METRIC]
    if (typeof v === "number" && (best === null || v > best)) best = v
  }
  return best
}

/**
 * A run's budget: each metric summed over its steps (a step logged twice, as a resumed run may,
 * counts once: its last line). A run read from a compact record carries its sums already
 * (`budget`, core/results/compact.ts), since its lines keep evaluation steps only.
 */
export const budgetOf = (run: RunRead): Budget => {
  const given = (run as RunRead & { budget?: Readonly<Record<string, number>> }).budget
  const out = { envSteps: null, tokens: null, rollouts: null, optimizerSteps: null } as Record<keyof Budget, number | null>
  if (given) {
    for (const [field, metric] of BUDGET_METRICS) {
      const v = given[metric]
      out[field] = typeof v === "number" && Number.isFinite(v) ? v : null
    }
    return out
  }
  // One pass over the lines: field → step → value (the last line of a step wins).
  const byStep = new Map<keyof Budget, Map<number, number>>()
  run.metrics.lines.forEach((l, i) => {
    for (const [field, metric] of BUDGET_METRICS) {
      const v = l[metric]
      if (typeof v !== "number") continue
      const m = byStep.get(field) ?? new Map<number, number>()
      byStep.set(field, m)
      m.set(typeof l.step === "number" ? l.step : -1 - i, v)
    }
  })
  for (const [field, m] of byStep) out[field] = [...m.values()].reduce((a, b) => a + b, 0)
  return out
}

/** Fractions of a run's groups, averaged over the steps that logged them; null where not logged. */
export interface KeptFractions {
  /** Groups kept (filter/kept_ratio). */
  readonly groups: number | null
  /** Of the groups with non-zero reward spread, those kept: 1 − filter/dropped_nonzero / (P − filter/zero_variance_groups). */
  readonly nonZeroSpread: number | null
  /** Groups with zero reward spread (filter/zero_variance_groups / P): no advantage signal at all. */
  readonly zeroSpread: number | null
}

const meanOrNull = (xs: ReadonlyArray<number>): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null)

/**
 * What the run's filter kept, from its per-step filter/* metrics (a compact record keeps the
 * evaluation steps only, so there the mean is over those steps; records written before
 * filter/dropped_nonzero was kept have no non-zero-spread figure).
 */
export const keptOf = (run: RunRead): KeptFractions => {
  const groupsPerStep = run.config.config.P
  const kept: number[] = []
  const nonZero: number[] = []
  const zero: number[] = []
  for (const l of run.metrics.lines) {
    const k = l["filter/kept_ratio"]
    const zv = l["filter/zero_variance_groups"]
    const dn = l["filter/dropped_nonzero"]
    if (typeof k === "number") kept.push(k)
    if (typeof zv === "number" && groupsPerStep > 0) {
      zero.push(zv / groupsPerStep)
      if (typeof dn === "number" && groupsPerStep - zv > 0) nonZero.push(1 - dn / (groupsPerStep - zv))
    }
  }
  return { groups: meanOrNull(kept), nonZeroSpread: meanOrNull(nonZero), zeroSpread: meanOrNull(zero) }
}

/** One run's contribution to its cell. */
export interface RunScore {
  readonly seed: number
  readonly peak: number
  readonly last3: number | null
  /** The primary score: the area under the validation-success curve. */
  readonly auc: number | null
  /** Validation success at step 0 (the warm start, as this seed's stream validates it); null without a step-0 evaluation. */
  readonly start: number | null
  readonly factAuc: number | null
  /** The curve is 0 at every evaluation: nothing was learnt (nor was there anything at the start). */
  readonly allZero: boolean
  /** The collapse track's gate on the success curve (statistics/collapse.ts); null with fewer than 4 evaluations. */
  readonly collapse: CollapseKind | null
  readonly kept: KeptFractions
  readonly budget: Budget
}

export const scoreRun = (run: RunRead, seed: number, peak: number): RunScore => {
  const curve = curveOf(run.metrics.lines, SUCCESS_METRIC)
  return {
    seed,
    peak,
    last3: last3Of(run),
    auc: areaOf(run),
    start: startScore(curve),
    factAuc: areaOf(run, FACT_METRIC),
    allZero: curve.every((p) => p.value === 0),
    collapse: collapseOf(curve)?.kind ?? null,
    kept: keptOf(run),
    budget: budgetOf(run)
  }
}
