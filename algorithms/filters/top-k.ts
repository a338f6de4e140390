/**
 * `top-k` (fraction, the paper's Fig. 6 comparison and the reference code's ratio filter):
 * keep the max(1, ⌊k·P⌋) groups of highest score; ties in batch order. Rank-based, so
 * zero-spread groups are candidates unless includeZero is set to false.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups } from "./input.ts"
import { candidatePositions, dflt, Fraction, groupScores, keepWhole, rankDescending, type ScoreOptions, scoreFields } from "./score.ts"

export const TopKOptions = Schema.Struct({
  /** Fraction of the P groups to keep. */
  k: dflt(Fraction, 0.25),
  ...scoreFields(true)
})
export type TopKOptions = ScoreOptions & { readonly k: number }

export const topKCount = (P: number, k: number): number => Math.min(P, Math.max(1, Math.floor(k * P + 1e-9)))

export const topKPositions = (scores: Float64Array, o: TopKOptions): number[] =>
  rankDescending(scores, candidatePositions(scores, o.includeZero)).slice(0, topKCount(scores.length, o.k))

export const topKFilter: Filter<TopKOptions> = {
  name: "top-k",
  description: "Keep the max(1, floor(k*P)) groups of highest reward spread",
  options: TopKOptions,
  valueOption: "k",
  select: (groups, { options }) => {
    checkGroups(groups, "top-k")
    return keepWhole(groups, topKPositions(groupScores(groups, options.metric), options))
  }
}
