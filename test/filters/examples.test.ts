/** The two example plugins of examples/filters/: their decisions, options and registration. */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { decodeFilterOptions } from "../../core/filters/options.ts"
import { builtinPlugins } from "../../builtins.ts"
import { buildRegistry, resolveEntry } from "../../core/registry.ts"
import extremes, { bestWorst, bestWorstFilter } from "../../examples/filters/extremes-filter.ts"
import spread, { minRangeFilter, returnRange } from "../../examples/filters/spread-filter.ts"
import { apply, groupsOf, keptGroups } from "./helpers.ts"

describe("example spread/min-range (group level, a new score)", () => {
  test("keeps groups whose max − min reaches minRange, in batch order", () => {
    const groups = groupsOf([
      [0, 1, 0.2],
      [0, 0, 0],
      [-1, 0.5],
      [2, 2.4]
    ])
    expect(groups.map((g) => returnRange(g.returns))).toEqual([1, 0, 1.5, 2.4 - 2])
    expect(keptGroups(apply(minRangeFilter, groups))).toEqual([0, 2])
    expect(keptGroups(apply(minRangeFilter, groups, { minRange: 1.2 }))).toEqual([2])
    // Threshold 0 keeps every group, flat ones included; whole groups are kept.
    const all = apply(minRangeFilter, groups, { minRange: 0 })
    expect(keptGroups(all)).toEqual([0, 1, 2, 3])
    expect(all.keep[0]!.trajectories).toEqual([0, 1, 2])
    expect(all.stats!["mean_range"]).toBeCloseTo((1 + 0 + 1.5 + 0.4) / 4, 12)
  })
  test("edge cases: empty batch, NaN returns, negative threshold", () => {
    expect(apply(minRangeFilter, []).keep).toEqual([])
    expect(() => apply(minRangeFilter, groupsOf([[0, Number.NaN]]))).toThrow(/group 0, trajectory 1 is not a finite number/)
    expect(() => Effect.runSync(decodeFilterOptions(minRangeFilter, {}, "-1"))).toThrow(/min-range/)
    expect(Effect.runSync(decodeFilterOptions(minRangeFilter, {}, "2"))).toEqual({ minRange: 2 })
  })
})

describe("example extremes/best-worst (trajectory level)", () => {
  test("keeps the k lowest and k highest returns of each group; ties to the lower index", () => {
    expect(bestWorst([1, 0, 3, 2, 3], 1)).toEqual([1, 2])
    expect(bestWorst([5, -1, 2, -1], 1)).toEqual([0, 1])
    expect(bestWorst([4, 1, 3, 0, 2, 5], 2)).toEqual([0, 1, 3, 5])
    // 2k ≥ G keeps the whole group.
    expect(bestWorst([3, 1, 2], 2)).toEqual([0, 1, 2])
  })
  test("drops flat groups unless keepFlat; every group appears in keep", () => {
    const groups = groupsOf([
      [0, 1, 1, 0.5],
      [1, 1, 1],
      [2, 0]
    ])
    const r = apply(bestWorstFilter, groups)
    expect(r.keep.map((k) => k.trajectories)).toEqual([[0, 1], [], [0, 1]])
    expect(keptGroups(r)).toEqual([0, 2])
    expect(apply(bestWorstFilter, groups, { keepFlat: true }).keep[1]!.trajectories).toEqual([0, 1])
    expect(apply(bestWorstFilter, groups, { k: 2 }).keep[0]!.trajectories).toEqual([0, 1, 2, 3])
    expect(() => apply(bestWorstFilter, groupsOf([[1, Number.POSITIVE_INFINITY]]))).toThrow(/not a finite number/)
    expect(() => Effect.runSync(decodeFilterOptions(bestWorstFilter, { k: 0 }))).toThrow(/best-worst/)
  })
})

test("both examples register next to the built-ins under their plugin names", async () => {
  const data = await Effect.runPromise(buildRegistry([...builtinPlugins, spread, extremes]))
  expect(Effect.runSync(resolveEntry(data, "filters", "min-range")).fullId).toBe("spread/min-range")
  expect(Effect.runSync(resolveEntry(data, "filters", "best-worst")).fullId).toBe("extremes/best-worst")
  expect([minRangeFilter, bestWorstFilter].map((f) => f.valueOption)).toEqual(["minRange", "k"])
  expect(minRangeFilter.description).toBe("Example: keep the groups whose return range (max - min) is at least minRange")
})
