/**
 * `quantile`: keep the groups ranked in [lo, hi) of the batch by score, highest first (the
 * paper's Table 6 quartile ablation: Q1 = [0, 0.25) is the highest-spread quarter). Rank r
 * (0-based) of P is kept when lo·P ≤ r < hi·P. Zero-spread groups take part in the ranking.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, FilterInputError } from "./input.ts"
import { dflt, Fraction, groupScores, keepWhole, rankDescending, type ScoreOptions, scoreFields } from "./score.ts"

export const QuantileOptions = Schema.Struct({
  lo: dflt(Fraction, 0),
  hi: dflt(Fraction, 0.25),
  ...scoreFields(true)
})
export type QuantileOptions = ScoreOptions & { readonly lo: number; readonly hi: number }

export const quantilePositions = (scores: Float64Array, o: QuantileOptions): number[] => {
  if (!(o.lo < o.hi)) throw new FilterInputError("lo", `quantile: lo (${o.lo}) must be below hi (${o.hi}); e.g. --option lo=0.25 --option hi=0.5 for Q2`)
  const P = scores.length
  const order = rankDescending(scores, o.includeZero ? undefined : Array.from(scores.keys()).filter((i) => scores[i]! > 1e-10))
  // Small slack so that lo·P = 2.0000000001 still starts at rank 2.
  return order.filter((_, r) => r >= o.lo * P - 1e-9 && r < o.hi * P - 1e-9)
}

export const quantileFilter: Filter<QuantileOptions> = {
  name: "quantile",
  description: "Keep the groups ranked in [lo, hi) by reward spread (quartile ablations)",
  options: QuantileOptions,
  select: (groups, { options }) => {
    checkGroups(groups, "quantile")
    return keepWhole(groups, quantilePositions(groupScores(groups, options.metric), options))
  }
}
