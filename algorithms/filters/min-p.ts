/**
 * `min-p`: keep groups whose score is at least p times the batch's highest score (the min-p
 * rule of sampling, applied to groups), with the reference code's tolerance (rollout_filter.py
 * `_select_top_groups`, strategy min_p: `scores >= max·p − 1e-10`), so two spreads equal up to
 * rounding are never split. Zero-spread groups are dropped first unless includeZero.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, withDefault as dflt } from "../../core/host.ts"
import { candidatePositions, Fraction, groupScores, keepWhole, type ScoreOptions, scoreFields } from "./score.ts"

export const MinPOptions = Schema.Struct({
  p: dflt(Fraction, 0.5),
  ...scoreFields(false)
})
export type MinPOptions = ScoreOptions & { readonly p: number }

/** The reference's slack on the min-p threshold. */
export const MIN_P_TOLERANCE = 1e-10

export const minPPositions = (scores: Float64Array, o: MinPOptions): number[] => {
  const cand = candidatePositions(scores, o.includeZero)
  let max = -Infinity
  for (const i of cand) max = Math.max(max, scores[i]!)
  return cand.filter((i) => scores[i]! >= o.p * max - MIN_P_TOLERANCE)
}

export const minPFilter: Filter<MinPOptions> = {
  name: "min-p",
  description: "Keep groups whose reward spread is at least p times the batch maximum",
  options: MinPOptions,
  valueOption: "p",
  scoreMetric: (o) => o.metric,
  select: (groups, { options }) => {
    checkGroups(groups, "min-p")
    return keepWhole(groups, minPPositions(groupScores(groups, options.metric), options))
  }
}
