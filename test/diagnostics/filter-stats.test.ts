import { describe, expect, test } from "bun:test"
import { topPFilter } from "../../algorithms/filters/top-p.ts"
import { withinGroupFilter } from "../../algorithms/filters/within-group.ts"
import { filterStats } from "../../core/diagnostics/filter-stats.ts"
import { apply, groupsOf, groupsWithStd } from "../filters/helpers.ts"

describe("filterStats", () => {
  test("kept counts and the Table 8 RV statistics over the pre-filter batch", () => {
    const g = groupsWithStd([4, 3, 2, 1, 0, 0])
    const s = filterStats(g, apply(topPFilter, g, { p: 0.6 }), "std", "filters/top-p")
    expect(s["filter/kept_groups"]).toBe(2)
    expect(s["filter/kept_ratio"]).toBeCloseTo(2 / 6, 14)
    expect(s["filter/kept_trajectories"]).toBe(4)
    expect(s["filter/zero_variance_groups"]).toBe(2)
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
  test("var metric, empty step, trajectory-level counts", () => {
    const z = groupsOf([[1, 1], [0, 0]])
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
