/**
 * `top-p-softmax`: nucleus selection over a softmax of the group scores (a variant in later
 * RAGEN ports): sort descending, keep the first k groups whose cumulative softmax probability
 * reaches p, with k ≥ 1 whenever there is a candidate. p ≥ 1 keeps every group.
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups } from "./input.ts"
import { candidatePositions, dflt, groupScores, keepWhole, NonNeg, rankDescending, type ScoreOptions, scoreFields } from "./score.ts"

const PosFinite = Schema.Finite.check(Schema.isGreaterThan(0))

export const TopPSoftmaxOptions = Schema.Struct({
  p: dflt(NonNeg, 0.9),
  /** Softmax temperature: probabilities ∝ exp(score / temperature). */
  temperature: dflt(PosFinite, 1),
  ...scoreFields(false)
})
export type TopPSoftmaxOptions = ScoreOptions & { readonly p: number; readonly temperature: number }

export const topPSoftmaxPositions = (scores: Float64Array, o: TopPSoftmaxOptions): number[] => {
  if (o.p >= 1) return Array.from(scores.keys())
  const order = rankDescending(scores, candidatePositions(scores, o.includeZero))
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
    if (cum >= o.p - 1e-12) break
  }
  return kept
}

export const topPSoftmaxFilter: Filter<TopPSoftmaxOptions> = {
  name: "top-p-softmax",
  description: "Keep the fewest highest-spread groups whose softmax probability mass reaches p",
  options: TopPSoftmaxOptions,
  valueOption: "p",
  select: (groups, { options }) => {
    checkGroups(groups, "top-p-softmax")
    return keepWhole(groups, topPSoftmaxPositions(groupScores(groups, options.metric), options))
  }
}
