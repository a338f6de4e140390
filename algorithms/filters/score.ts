/**
 * The group score every score-based filter ranks by: the spread of a group's trajectory
 * returns (docs/design.md §5; `groupScore` in core/stats.ts). The paper's reference code uses the
 * unbiased standard deviation; later ports use the variance, so it is a setting (`metric`,
 * default "std") recorded with every result. Also the option fields the score-based filters
 * share, and helpers that turn a choice of group indices into a FilterResult.
 */
import { Schema } from "effect"
import type { FilterResult, Group, KeptGroup } from "../../core/contracts/index.ts"
import { groupScore, type ScoreMetric, withDefault as dflt, ZERO_SCORE } from "../../core/host.ts"

export { groupScore, type ScoreMetric, ZERO_SCORE } from "../../core/host.ts"

/** A schema field with a decoding default (the value an omitted option takes). */

export { NonNeg, PosInt, Unit as Fraction } from "../../core/host.ts"

/** Option fields shared by the score-based filters. */
export const scoreFields = (includeZero = false) => ({
  /** Group score: unbiased std (reference code) or unbiased variance. */
  metric: dflt(Schema.Literals(["std", "var"]), "std"),
  /** Keep groups whose score is ≤ 1e-10 as candidates (default: drop them first). */
  includeZero: dflt(Schema.Boolean, includeZero)
})

export interface ScoreOptions {
  readonly metric: ScoreMetric
  readonly includeZero: boolean
}

export const groupScores = (groups: ReadonlyArray<Group>, metric: ScoreMetric = "std"): Float64Array => {
  const out = new Float64Array(groups.length)
  for (let i = 0; i < groups.length; i++) out[i] = groupScore(groups[i]!.returns, metric)
  return out
}

/**
 * Positions 0..n-1 ordered by score, highest first; ties keep batch order (stable), so a
 * filter's decision never depends on the sort implementation.
 */
export const rankDescending = (scores: ArrayLike<number>, candidates?: ReadonlyArray<number>): number[] => {
  const idx = candidates ? [...candidates] : Array.from({ length: scores.length }, (_, i) => i)
  return idx.sort((a, b) => scores[b]! - scores[a]! || a - b)
}

/** Positions whose score counts as a candidate: all, or only those above ZERO_SCORE. */
export const candidatePositions = (scores: ArrayLike<number>, includeZero: boolean): number[] => {
  const out: number[] = []
  for (let i = 0; i < scores.length; i++) if (includeZero || scores[i]! > ZERO_SCORE) out.push(i)
  return out
}

/** Keep whole groups at the given batch positions; the result lists them in batch order. */
export const keepWhole = (groups: ReadonlyArray<Group>, positions: Iterable<number>, stats?: Record<string, number>): FilterResult => {
  const keep: KeptGroup[] = [...new Set(positions)].sort((a, b) => a - b).map((i) => ({ group: groups[i]!.index, trajectories: groups[i]!.returns.map((_, k) => k) }))
  return stats ? { keep, stats } : { keep }
}
