/**
 * `top-k` (fraction; the paper's Fig. 6 comparison, the reference code's strategy top_k in
 * rollout_filter.py `_select_top_groups`): drop zero-spread groups unless includeZero (off, as in
 * the reference's filtering runs, run_filtering_final.sh: include_zero False), then keep the
 * min(candidates, max(1, int(k·P))) groups of highest score, P counting every group of the batch
 * and int truncating as Python's does (k = 0.29, P = 100 → 28). Ties in batch order.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, withDefault as dflt } from "../../core/host.ts"
import { candidatePositions, Fraction, groupScores, keepWhole, rankDescending, type ScoreOptions, scoreFields } from "./score.ts"

export const TopKOptions = Schema.Struct({
  /** Fraction of the P groups to keep. */
  k: dflt(Fraction, 0.25),
  ...scoreFields(false)
})
export type TopKOptions = ScoreOptions & { readonly k: number }

/** Groups kept out of P with `candidates` of them eligible (0 when none is). */
export const topKCount = (P: number, k: number, candidates = P): number => (candidates === 0 ? 0 : Math.min(candidates, Math.max(1, Math.trunc(k * P))))

export const topKPositions = (scores: Float64Array, o: TopKOptions): number[] => {
  const cand = candidatePositions(scores, o.includeZero)
  return rankDescending(scores, cand).slice(0, topKCount(scores.length, o.k, cand.length))
}

export const topKFilter: Filter<TopKOptions> = {
  name: "top-k",
  description: "Keep the max(1, int(k*P)) groups of highest reward spread (zero-spread groups dropped first)",
  options: TopKOptions,
  valueOption: "k",
  scoreMetric: (o) => o.metric,
  select: (groups, { options }) => {
    checkGroups(groups, "top-k")
    return keepWhole(groups, topKPositions(groupScores(groups, options.metric), options))
  }
}
