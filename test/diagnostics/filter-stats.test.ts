import { describe, expect, test } from "bun:test"
import { topPFilter } from "../../algorithms/filters/top-p.ts"
import { withinGroupFilter } from "../../algorithms/filters/within-group.ts"
import { minPFilter } from "../../algorithms/filters/min-p.ts"
import { noneFilter } from "../../algorithms/filters/none.ts"
import { topKFilter } from "../../algorithms/filters/top-k.ts"
import { filterStats, scoreMetricOf } from "../../core/diagnostics/filter-stats.ts"
import { apply, groupsOf, groupsWithStd } from "../filters/helpers.ts"

describe("filterStats", () => {
  test("kept counts and the Table 8 RV statistics over the pre-filter batch", () => {
    const g = groupsWithStd([4, 3, 2, 1, 0, 0])
    const s = filterStats(g, apply(topPFilter, g, { p: 0.6 }), "std", "filters/top-p")
    expect(s["filter/kept_groups"]).toBe(2)
    expect(s["filter/kept_ratio"]).toBeCloseTo(2 / 6, 14)
    expect(s["filter/kept_trajectories"]).toBe(4)
    expect(s["filter/zero_variance_groups"]).toBe(2)
    // Spreads 2 and 1 had signal but were dropped: P − zero-spread − kept = 6 − 2 − 2.
    expect(s["filter/dropped_nonzero"]).toBe(2)
    expect(s["filter/empty"]).toBe(0)
    const rv = [4, 3, 2, 1, 0, 0]
    const mean = 10 / 6
    const std = Math.sqrt(rv.reduce((a, b) => a + (b - mean) ** 2, 0) / 6)
    expect(s["filter/rv_mean"]).toBeCloseTo(mean, 12)
    expect(s["filter/rv_std"]).toBeCloseTo(std, 12)
    expect(s["filter/rv_min"]).toBeCloseTo(0, 12)
    expect(s["filter/rv_max"]).toBeCloseTo(4, 12)
    expect(s["filter/rv_std_over_mean"]).toBeCloseTo(std / mean, 12)
    expect(s["filter/top-p/threshold"]).toBeCloseTo(0.6 * 10 - 0.01, 9)
  })
  test("rv_* follow the filter's own metric: var gives the variances' distribution", () => {
    const g = groupsWithStd([4, 3, 2, 1, 0, 0])
    const r = apply(topPFilter, g, { p: 0.6, metric: "var" })
    const metric = scoreMetricOf(topPFilter, { p: 0.6, eps: 0.01, metric: "var", includeZero: false })
    expect(metric).toBe("var")
    const s = filterStats(g, r, metric)
    // Variances 16, 9, 4, 1, 0, 0: p·Σ − eps = 17.99 keeps {16, 9}.
    expect(s["filter/kept_groups"]).toBe(2)
    expect(s["filter/rv_mean"]).toBeCloseTo(30 / 6, 12)
    expect(s["filter/rv_max"]).toBeCloseTo(16, 12)
    expect(s["filter/dropped_nonzero"]).toBe(2)
    expect(scoreMetricOf(noneFilter, {})).toBe("std")
  })
  test("dropped_nonzero counts only groups with spread that were not kept, also when zero-spread groups are kept", () => {
    const g = groupsWithStd([4, 0, 2, 1])
    expect(filterStats(g, apply(topKFilter, g, { k: 0.5, includeZero: true }))["filter/dropped_nonzero"]).toBe(1)
    expect(filterStats(g, apply(minPFilter, g, { p: 0, includeZero: true }))["filter/dropped_nonzero"]).toBe(0)
    expect(filterStats(g, apply(noneFilter, g))["filter/dropped_nonzero"]).toBe(0)
  })
  test("var metric, empty step, trajectory-level counts", () => {
    const z = groupsOf([
      [1, 1],
      [0, 0]
    ])
    const s = filterStats(z, apply(topPFilter, z), "var")
    expect(s["filter/empty"]).toBe(1)
    expect(s["filter/kept_groups"]).toBe(0)
    expect(s["filter/rv_std_over_mean"]).toBe(0)
    const g = groupsOf([[0, 2, 4, 6]])
    const w = filterStats(g, apply(withinGroupFilter, g, { rho: 0.5 }), "var")
    expect(w["filter/kept_groups"]).toBe(1)
    expect(w["filter/kept_trajectories"]).toBe(2)
    expect(w["filter/rv_mean"]).toBeCloseTo(20 / 3, 12)
  })
})
