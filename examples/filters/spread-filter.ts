/**
 * Example plugin: a group-level filter with a score of its own. It keeps the groups whose
 * return range (max − min) is at least `minRange`: a group where the best and worst trajectory
 * differ by less than that carries little learning signal (the idea of the paper's SNR-aware
 * filter, with a fixed threshold instead of a share of the total). One file, no core change:
 *   ragen-bench filter apply --plugin examples/filters/spread-filter.ts --filter spread/min-range --filter-value 1 groups.json
 * Register it for every command in ragen-bench.config.ts: `plugins: [spreadFilter]`.
 */
// Outside this repository the same imports are "ragen-bench/contracts" and "ragen-bench/kit".
import { definePlugin, type Filter } from "../../core/contracts/index.ts"
import { checkGroups, option, options } from "../../core/kit.ts"

export const MinRangeOptions = options({
  /** Smallest return range (max − min) a kept group must have; 0 keeps every group. */
  minRange: option.number(0.5, { min: 0 })
})
export type MinRangeOptions = typeof MinRangeOptions.Type

/** The new score: max − min of a group's returns. */
export const returnRange = (returns: ReadonlyArray<number>): number => Math.max(...returns) - Math.min(...returns)

export const minRangeFilter: Filter<MinRangeOptions> = {
  name: "min-range",
  description: "Example: keep the groups whose return range (max - min) is at least minRange",
  options: MinRangeOptions,
  valueOption: "minRange",
  select: (groups, { options }) => {
    // Rejects NaN returns and empty groups with an error naming the group (exit 2 in the CLI).
    checkGroups(groups, "min-range")
    const ranges = groups.map((g) => returnRange(g.returns))
    const keep = groups.filter((_, i) => ranges[i]! >= options.minRange).map((g) => ({ group: g.index, trajectories: g.returns.map((_, k) => k) }))
    // Extra numbers are logged as filter/min-range/<key> by the trainer and printed by `filter apply`.
    return { keep, stats: { mean_range: ranges.length > 0 ? ranges.reduce((a, b) => a + b, 0) / ranges.length : 0 } }
  }
}

export default definePlugin({ name: "spread", version: "0.1.0", filters: [minRangeFilter] })
