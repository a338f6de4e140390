/**
 * `quantile`: keep the groups ranked in [lo, hi) of the batch by score, highest first (the
 * paper's Table 6 quartile ablation: Q1 = [0, 0.25) is the highest-spread quarter). Counted as
 * the reference's percentile range: over the n candidates left after the zero-spread filter
 * (all P when includeZero), ranks round(lo·n) ≤ r < round(hi·n) with Python's round (half to
 * even), and at least one group whenever there is a candidate.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, FilterInputError, roundHalfEven, withDefault as dflt } from "../../core/host.ts"
import { candidatePositions, Fraction, groupScores, keepWhole, rankDescending, type ScoreOptions, scoreFields } from "./score.ts"

export const QuantileOptions = Schema.Struct({
  lo: dflt(Fraction, 0),
  hi: dflt(Fraction, 0.25),
  ...scoreFields(true)
})
export type QuantileOptions = ScoreOptions & { readonly lo: number; readonly hi: number }

/** Rank range [start, end) of n candidates; at least one rank when n > 0. */
export const quantileRange = (n: number, lo: number, hi: number): { start: number; end: number } => {
  if (n === 0) return { start: 0, end: 0 }
  const start = Math.min(n - 1, roundHalfEven(lo * n))
  const end = Math.max(start + 1, Math.min(n, roundHalfEven(hi * n)))
  return { start, end }
}

export const quantilePositions = (scores: Float64Array, o: QuantileOptions): number[] => {
  if (!(o.lo < o.hi)) throw new FilterInputError("lo", `quantile: lo (${o.lo}) must be below hi (${o.hi}); e.g. --option lo=0.25 --option hi=0.5 for Q2`)
  const order = rankDescending(scores, candidatePositions(scores, o.includeZero))
  const { start, end } = quantileRange(order.length, o.lo, o.hi)
  return order.slice(start, end)
}

export const quantileFilter: Filter<QuantileOptions> = {
  name: "quantile",
  description: "Keep the groups ranked in [lo, hi) by reward spread (quartile ablations)",
  options: QuantileOptions,
  scoreMetric: (o) => o.metric,
  select: (groups, { options }) => {
    checkGroups(groups, "quantile")
    return keepWhole(groups, quantilePositions(groupScores(groups, options.metric), options))
  }
}
