/**
 * The filter axes of the paper presets are the reference's settings: Table 4's script runs top_p
 * in softmax mode with include_zero True at 0.9 and 1.0 (scripts/runs/run_main_table_diff_algo.sh);
 * the filtering runs behind Fig. 6 use include_zero False (scripts/runs/run_filtering_final.sh).
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinFilters } from "../../algorithms/filters/plugin.ts"
import { decodeFilterOptions } from "../../core/filters/options.ts"
import fig6 from "../../plugins/sweep/presets/fig6.ts"
import table4 from "../../plugins/sweep/presets/table4.ts"
import { apply, groupsOf, keptGroups } from "./helpers.ts"

type Axis = ReadonlyArray<string | { id: string; options?: Record<string, unknown> }>
const decoded = (axis: Axis) =>
  axis.map((c) => {
    const { id, options = {} } = typeof c === "string" ? { id: c } : c
    const f = builtinFilters.find((x) => x.name === id)!
    return { id, options: Effect.runSync(decodeFilterOptions(f, options)) }
  })

describe("paper presets", () => {
  test("table4: top-p-softmax 1.0 and 0.9 with includeZero true, nothing else", () => {
    expect(decoded(table4.axes.filter as Axis)).toEqual([
      { id: "top-p-softmax", options: { p: 1, temperature: 1, metric: "std", includeZero: true } },
      { id: "top-p-softmax", options: { p: 0.9, temperature: 1, metric: "std", includeZero: true } }
    ])
    // The "nofilter" arm keeps every group, zero-spread ones included, as the script's value 1.0 does.
    const f = builtinFilters.find((x) => x.name === "top-p-softmax")!
    const g = groupsOf([
      [0, 1],
      [1, 1],
      [0, 2],
      [3, 3]
    ])
    expect(keptGroups(apply(f, g, { p: 1, includeZero: true }))).toEqual([0, 1, 2, 3])
  })
  test("fig6: top-k 0.25 without zero-spread groups, as the reference's filtering runs", () => {
    const topK = decoded(fig6.axes.filter as Axis).find((c) => c.id === "top-k")!
    expect(topK.options).toEqual({ k: 0.25, metric: "std", includeZero: false })
  })
})
