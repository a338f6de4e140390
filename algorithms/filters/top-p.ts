/**
 * `top-p`: the paper's SNR-aware filter (RAGEN-2 §4, Fig. 4), linear in the group score, with
 * the reference code's rules (rollout_filter.py `_select_top_groups`, strategy top_p,
 * top_p_prob_mode linear; docs/design.md §5): drop groups with score ≤ 1e-10 unless includeZero;
 * p ≥ 1 keeps every candidate (so "top-p 1.0, includeZero false" drops only the zero-spread
 * groups, the paper's Table 9 baseline); otherwise sort descending, threshold = p·Σ candidate
 * scores − eps, keep the shortest prefix whose cumulative score reaches the threshold, stopping
 * at a score ≤ 0; if it never reaches it, keep nothing (an empty step).
 * Example: scores [4,3,2,1], p = 0.6 → threshold 5.99 → keep {4, 3}.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, withDefault as dflt } from "../../core/host.ts"
import { candidatePositions, Fraction, groupScores, keepWhole, NonNeg, rankDescending, type ScoreOptions, scoreFields } from "./score.ts"

export const TopPOptions = Schema.Struct({
  /** Share of the total score to retain, 0 to 1 (the paper's ρ; 0.9 in its main runs; 1 keeps every candidate). */
  p: dflt(Fraction, 0.9),
  /** Slack subtracted from the threshold (reference code: selection_eps 0.01). */
  eps: dflt(NonNeg, 0.01),
  ...scoreFields(false)
})
export type TopPOptions = ScoreOptions & { readonly p: number; readonly eps: number }

/** Positions kept by the linear top-p rule (exported for tests); threshold NaN when p ≥ 1. */
export const topPPositions = (scores: Float64Array, o: TopPOptions): { kept: number[]; threshold: number } => {
  const cand = candidatePositions(scores, o.includeZero)
  if (o.p >= 1) return { kept: cand, threshold: Number.NaN }
  const order = rankDescending(scores, cand)
  let total = 0
  for (const i of cand) total += scores[i]!
  const threshold = o.p * total - o.eps
  const kept: number[] = []
  let cum = 0
  for (const i of order) {
    if (cum >= threshold) break
    const s = scores[i]!
    if (s <= 0) break
    kept.push(i)
    cum += s
  }
  // An empty prefix "reaches" a threshold ≤ 0 (all-zero batch): nothing is kept.
  return { kept: cum >= threshold ? kept : [], threshold }
}

export const topPFilter: Filter<TopPOptions> = {
  name: "top-p",
  description: "SNR-aware filter (paper): keep the highest-spread groups holding a share p of the total reward spread",
  options: TopPOptions,
  valueOption: "p",
  scoreMetric: (o) => o.metric,
  select: (groups, { options }) => {
    checkGroups(groups, "top-p")
    const { kept, threshold } = topPPositions(groupScores(groups, options.metric), options)
    return keepWhole(groups, kept, Number.isNaN(threshold) ? {} : { threshold })
  }
}
