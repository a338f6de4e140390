/**
 * Per-step filter metrics (docs/design.md §5; the paper's Table 8 and Fig. 10): how much the filter
 * kept, how many groups had no reward spread, how many groups WITH spread it dropped, and the
 * distribution of the groups' reward spread (RV) over the PRE-filter batch, all under the
 * filter's own score metric (std or var, `Filter.scoreMetric`). A high std/mean of RV (bimodal
 * RV) is where the paper finds filtering helps; dropped non-zero-spread groups are the ones
 * whose advantages a filter withholds from the update (docs/decisions.md#issue-14: the prototype's top-p dropped
 * 1.3–1.5 of them per step).
 */
import type { Filter, FilterResult, Group } from "../contracts/index.ts"
import { groupScore, type ScoreMetric, ZERO_SCORE } from "../stats.ts"

/** The score metric a filter ranks by under these options ("std" unless it declares one). */
export const scoreMetricOf = <O>(filter: Filter<O>, options: O): ScoreMetric => (filter.scoreMetric?.(options) === "var" ? "var" : "std")

export const filterStats = (
  groups: ReadonlyArray<Group>,
  result: FilterResult,
  metric: ScoreMetric = "std",
  /** When given, the filter's own stats are added as filter/<name>/<key>. */
  name?: string
): Record<string, number> => {
  const P = groups.length
  const rv = groups.map((g) => groupScore(g.returns, metric))
  const keptIndex = new Set<number>()
  let keptTraj = 0
  for (const k of result.keep) {
    if (k.trajectories.length > 0) keptIndex.add(k.group)
    keptTraj += k.trajectories.length
  }
  let keptGroups = 0
  let zero = 0
  let droppedNonzero = 0
  groups.forEach((g, i) => {
    const kept = keptIndex.has(g.index)
    if (kept) keptGroups++
    if (rv[i]! <= ZERO_SCORE) zero++
    else if (!kept) droppedNonzero++
  })
  const n = rv.length
  const mean = n > 0 ? rv.reduce((a, b) => a + b, 0) / n : 0
  // Population std over the P groups (numpy's default, as the paper's tables report).
  const std = n > 0 ? Math.sqrt(rv.reduce((a, b) => a + (b - mean) * (b - mean), 0) / n) : 0
  const out: Record<string, number> = {
    "filter/kept_groups": keptGroups,
    "filter/kept_ratio": P > 0 ? keptGroups / P : 0,
    "filter/kept_trajectories": keptTraj,
    "filter/zero_variance_groups": zero,
    "filter/dropped_nonzero": droppedNonzero,
    "filter/empty": keptTraj === 0 ? 1 : 0,
    "filter/rv_mean": mean,
    "filter/rv_std": std,
    "filter/rv_min": n > 0 ? Math.min(...rv) : 0,
    "filter/rv_max": n > 0 ? Math.max(...rv) : 0,
    "filter/rv_std_over_mean": mean > 0 ? std / mean : 0
  }
  if (name !== undefined && result.stats) {
    const local = name.replace(/^.*\//, "")
    for (const [k, v] of Object.entries(result.stats)) if (Number.isFinite(v)) out[`filter/${local}/${k}`] = v
  }
  return out
}
