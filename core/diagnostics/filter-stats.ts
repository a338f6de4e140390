/**
 * Per-step filter metrics (DESIGN.md §5; the paper's Table 8 and Fig. 10): how much the filter
 * kept, how many groups had no reward spread, and the distribution of the groups' reward
 * spread (RV) over the PRE-filter batch under the chosen score metric. A high std/mean of RV
 * (bimodal RV) is where the paper finds filtering helps.
 */
import type { FilterResult, Group } from "../contracts/index.ts"
import { groupScore, type ScoreMetric, ZERO_SCORE } from "../../algorithms/filters/score.ts"

export const filterStats = (
  groups: ReadonlyArray<Group>,
  result: FilterResult,
  metric: ScoreMetric = "std",
  /** When given, the filter's own stats are added as filter/<name>/<key>. */
  name?: string
): Record<string, number> => {
  const P = groups.length
  const rv = groups.map((g) => groupScore(g.returns, metric))
  let keptGroups = 0
  let keptTraj = 0
  for (const k of result.keep) {
    if (k.trajectories.length > 0) keptGroups++
    keptTraj += k.trajectories.length
  }
  const n = rv.length
  const mean = n > 0 ? rv.reduce((a, b) => a + b, 0) / n : 0
  // Population std over the P groups (numpy's default, as the paper's tables report).
  const std = n > 0 ? Math.sqrt(rv.reduce((a, b) => a + (b - mean) * (b - mean), 0) / n) : 0
  const out: Record<string, number> = {
    "filter/kept_groups": keptGroups,
    "filter/kept_ratio": P > 0 ? keptGroups / P : 0,
    "filter/kept_trajectories": keptTraj,
    "filter/zero_variance_groups": rv.filter((s) => s <= ZERO_SCORE).length,
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
