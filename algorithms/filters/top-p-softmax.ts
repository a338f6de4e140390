/**
 * `top-p-softmax`: nucleus selection over a softmax of the group scores, the reference code's
 * top_p_prob_mode "softmax" (rollout_filter.py `_select_top_groups`; the mode the paper's
 * Table 4 script, run_main_table_diff_algo.sh, runs): drop zero-spread groups unless
 * includeZero; p ≥ 1 keeps every candidate; otherwise probabilities = softmax of the candidate
 * scores (/ temperature; the reference has none, i.e. 1), sorted descending, and the groups up
 * to and including the first whose cumulative probability reaches p are kept (torch.searchsorted
 * on the cumulative sum, + 1), at most all candidates.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, withDefault as dflt } from "../../core/host.ts"
import { candidatePositions, Fraction, groupScores, keepWhole, rankDescending, type ScoreOptions, scoreFields } from "./score.ts"

const PosFinite = Schema.Finite.check(Schema.isGreaterThan(0))

export const TopPSoftmaxOptions = Schema.Struct({
  /** Cumulative probability to reach; 1 keeps every candidate (a share above 1 would mean the same). */
  p: dflt(Fraction, 0.9),
  /** Softmax temperature: probabilities ∝ exp(score / temperature); the reference's is 1. */
  temperature: dflt(PosFinite, 1),
  ...scoreFields(false)
})
export type TopPSoftmaxOptions = ScoreOptions & { readonly p: number; readonly temperature: number }

export const topPSoftmaxPositions = (scores: Float64Array, o: TopPSoftmaxOptions): number[] => {
  const cand = candidatePositions(scores, o.includeZero)
  if (o.p >= 1) return cand
  const order = rankDescending(scores, cand)
  if (order.length === 0) return []
  // Stable softmax: subtract the maximum (order[0] holds it).
  const m = scores[order[0]!]! / o.temperature
  let z = 0
  for (const i of order) z += Math.exp(scores[i]! / o.temperature - m)
  const kept: number[] = []
  let cum = 0
  for (const i of order) {
    kept.push(i)
    cum += Math.exp(scores[i]! / o.temperature - m) / z
    if (cum >= o.p) break
  }
  return kept
}

export const topPSoftmaxFilter: Filter<TopPSoftmaxOptions> = {
  name: "top-p-softmax",
  description: "Keep the fewest highest-spread groups whose softmax probability mass reaches p (reference softmax mode)",
  options: TopPSoftmaxOptions,
  valueOption: "p",
  scoreMetric: (o) => o.metric,
  select: (groups, { options }) => {
    checkGroups(groups, "top-p-softmax")
    return keepWhole(groups, topPSoftmaxPositions(groupScores(groups, options.metric), options))
  }
}
