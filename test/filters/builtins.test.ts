import { describe, expect, test } from "bun:test"
import {
  dapoDynamicFilter, FilterInputError, maxDrawsOf, minPFilter, noneFilter, podsFilter, quantileFilter, randomFilter,
  referenceFilters, topKFilter, topPFilter, topPSoftmaxFilter, withinGroupFilter
} from "../../algorithms/filters/index.ts"
import { groupScore } from "../../algorithms/filters/score.ts"
import { apply, groupsOf, groupsWithStd, keptGroups } from "./helpers.ts"

describe("group score", () => {
  test("unbiased std by default, unbiased var on request, 0 for G=1", () => {
    expect(groupScore([1, 2, 3, 4])).toBeCloseTo(Math.sqrt(5 / 3), 12)
    expect(groupScore([1, 2, 3, 4], "var")).toBeCloseTo(5 / 3, 12)
    expect(groupScore([7])).toBe(0)
    expect(groupScore([2, 2, 2])).toBe(0)
  })
})

describe("none", () => {
  test("keeps every group and trajectory", () => {
    const r = apply(noneFilter, groupsOf([[0, 0], [1, 2, 3]]))
    expect(r.keep).toEqual([{ group: 0, trajectories: [0, 1] }, { group: 1, trajectories: [0, 1, 2] }])
  })
})

describe("top-p (linear, reference rules)", () => {
  test("DESIGN.md example: scores [4,3,2,1], p=0.6 keeps {4,3}", () => {
    const r = apply(topPFilter, groupsWithStd([4, 3, 2, 1]), { p: 0.6 })
    expect(keptGroups(r)).toEqual([0, 1])
    expect(r.stats!.threshold).toBeCloseTo(0.6 * 10 - 0.01, 9)
  })
  test("order in the batch does not matter; result is in batch order", () => {
    expect(keptGroups(apply(topPFilter, groupsWithStd([1, 3, 2, 4]), { p: 0.6 }))).toEqual([1, 3])
  })
  test("eps lets a prefix that lands just under p·Σ count (p=0.7 → 4+3 = 7 ≥ 6.99)", () => {
    expect(keptGroups(apply(topPFilter, groupsWithStd([4, 3, 2, 1]), { p: 0.7 }))).toEqual([0, 1])
    expect(keptGroups(apply(topPFilter, groupsWithStd([4, 3, 2, 1]), { p: 0.7, eps: 0 }))).toEqual([0, 1])
    expect(keptGroups(apply(topPFilter, groupsWithStd([4, 3, 2, 1]), { p: 0.71, eps: 0 }))).toEqual([0, 1, 2])
  })
  test("zero-spread groups are dropped unless includeZero; p ≥ 1 keeps all", () => {
    const g = groupsWithStd([2, 0, 1, 0])
    expect(keptGroups(apply(topPFilter, g, { p: 0.99 }))).toEqual([0, 2])
    expect(keptGroups(apply(topPFilter, g, { p: 0.99, includeZero: true }))).toEqual([0, 2])
    expect(keptGroups(apply(topPFilter, g, { p: 1 }))).toEqual([0, 1, 2, 3])
  })
  test("all-zero batch keeps nothing (empty step)", () => {
    const g = groupsOf([[1, 1], [0, 0], [-0.1, -0.1]])
    expect(apply(topPFilter, g).keep).toEqual([])
    expect(apply(topPFilter, g, { includeZero: true }).keep).toEqual([])
  })
  test("one group with spread is kept; ties broken by batch order", () => {
    expect(keptGroups(apply(topPFilter, groupsWithStd([3])))).toEqual([0])
    expect(keptGroups(apply(topPFilter, groupsWithStd([1, 1, 1, 1]), { p: 0.5 }))).toEqual([0, 1])
  })
  test("metric var ranks by variance", () => {
    // std [3, 2, 2] → var [9, 4, 4]; p = 0.6: std threshold 4.19 keeps 2 groups, var threshold 10.19 keeps 2
    const g = groupsWithStd([3, 2, 2])
    expect(keptGroups(apply(topPFilter, g, { p: 0.6, metric: "var" }))).toEqual([0, 1])
    expect(keptGroups(apply(topPFilter, g, { p: 0.5, metric: "var" }))).toEqual([0])
    expect(keptGroups(apply(topPFilter, g, { p: 0.5 }))).toEqual([0, 1])
  })
})

describe("top-p-softmax", () => {
  test("keeps the fewest groups whose softmax mass reaches p, at least one", () => {
    // softmax of [3, 2, 1, 0.5]: [0.6, 0.22, 0.081, 0.049]
    const g = groupsWithStd([3, 2, 1, 0.5])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 0.5 }))).toEqual([0])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 0.8 }))).toEqual([0, 1])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 0.05 }))).toEqual([0])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 1 }))).toEqual([0, 1, 2, 3])
  })
  test("all-zero batch keeps nothing unless includeZero", () => {
    const g = groupsOf([[1, 1], [2, 2]])
    expect(apply(topPSoftmaxFilter, g).keep).toEqual([])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { includeZero: true, p: 0.5 }))).toEqual([0])
  })
})

describe("top-k", () => {
  test("keeps max(1, floor(k·P)) highest", () => {
    const g = groupsWithStd([1, 5, 3, 4, 2, 0, 0, 6])
    expect(keptGroups(apply(topKFilter, g, { k: 0.25 }))).toEqual([1, 7])
    expect(keptGroups(apply(topKFilter, g, { k: 0.5 }))).toEqual([1, 2, 3, 7])
    expect(keptGroups(apply(topKFilter, g, { k: 0.01 }))).toEqual([7])
  })
  test("ties in batch order; all-zero batch still keeps one (rank-based)", () => {
    expect(keptGroups(apply(topKFilter, groupsWithStd([1, 2, 2, 2]), { k: 0.5 }))).toEqual([1, 2])
    expect(keptGroups(apply(topKFilter, groupsOf([[0, 0], [1, 1]]), { k: 0.5 }))).toEqual([0])
    expect(apply(topKFilter, groupsOf([[0, 0], [1, 1]]), { k: 0.5, includeZero: false }).keep).toEqual([])
  })
})

describe("min-p", () => {
  test("keeps score ≥ p·max", () => {
    const g = groupsWithStd([4, 2, 1.9, 0])
    expect(keptGroups(apply(minPFilter, g, { p: 0.5 }))).toEqual([0, 1])
    expect(keptGroups(apply(minPFilter, g, { p: 0 }))).toEqual([0, 1, 2])
    expect(keptGroups(apply(minPFilter, g, { p: 0, includeZero: true }))).toEqual([0, 1, 2, 3])
    expect(apply(minPFilter, groupsOf([[0, 0]])).keep).toEqual([])
  })
})

describe("quantile", () => {
  test("Q1..Q4 of 8 groups partition the batch by rank", () => {
    const g = groupsWithStd([8, 7, 6, 5, 4, 3, 2, 1].reverse())
    const q = (lo: number, hi: number) => keptGroups(apply(quantileFilter, g, { lo, hi }))
    expect(q(0, 0.25)).toEqual([6, 7])
    expect(q(0.25, 0.5)).toEqual([4, 5])
    expect(q(0.5, 0.75)).toEqual([2, 3])
    expect(q(0.75, 1)).toEqual([0, 1])
  })
  test("lo ≥ hi is a FilterInputError", () => {
    expect(() => apply(quantileFilter, groupsWithStd([1, 2]), { lo: 0.5, hi: 0.5 })).toThrow(FilterInputError)
  })
})

describe("within-group and pods (trajectory level)", () => {
  test("keeps round(ρ·G) trajectories of maximum variance in every group", () => {
    // returns sorted: 0,1,2,10 → best pair {0, 10}; best triple lowest 0,1 + highest 10 or 0 + 2,10
    const g = groupsOf([[10, 1, 0, 2], [5, 5, 5, 5]])
    const r = apply(withinGroupFilter, g, { rho: 0.5 })
    expect(r.keep[0]).toEqual({ group: 0, trajectories: [0, 2] })
    expect(r.keep[1]!.trajectories.length).toBe(2)
    const r3 = apply(podsFilter, g, { m: 3 })
    // {0,1,10}: var 30.33; {0,2,10}: var 28; {1,2,10}: 24.33 → lowest two + highest one
    expect(r3.keep[0]).toEqual({ group: 0, trajectories: [0, 1, 2] })
  })
  test("the chosen subset beats every other subset of the same size (exhaustive, G=6)", () => {
    const ret = [3, -1, 0.5, 7, 2, 2]
    const variance = (xs: number[]) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length
      return xs.reduce((a, b) => a + (b - m) ** 2, 0)
    }
    for (const m of [2, 3, 4]) {
      const got = apply(podsFilter, groupsOf([ret]), { m }).keep[0]!.trajectories
      let best = -Infinity
      for (let mask = 0; mask < 64; mask++) {
        const idx = [0, 1, 2, 3, 4, 5].filter((i) => mask & (1 << i))
        if (idx.length === m) best = Math.max(best, variance(idx.map((i) => ret[i]!)))
      }
      expect(variance(got.map((i) => ret[i]!))).toBeCloseTo(best, 12)
    }
  })
  test("m ≥ G keeps all; ρ·G rounds and keeps at least one", () => {
    expect(apply(podsFilter, groupsOf([[1, 2]]), { m: 8 }).keep[0]!.trajectories).toEqual([0, 1])
    expect(apply(withinGroupFilter, groupsOf([[1, 2, 3]]), { rho: 0.1 }).keep[0]!.trajectories.length).toBe(1)
    expect(apply(withinGroupFilter, groupsOf([[1, 2, 3, 4]]), { rho: 0.6 }).keep[0]!.trajectories.length).toBe(2)
  })
})

describe("dapo-dynamic", () => {
  test("drops groups whose returns are all equal and exposes maxDraws", () => {
    const g = groupsOf([[1, 1, 1], [0, 1, 0], [0, 0, 0], [0.5]])
    const r = apply(dapoDynamicFilter, g, { maxDraws: 3 })
    expect(keptGroups(r)).toEqual([1])
    expect(r.stats!.dropped).toBe(3)
    expect(maxDrawsOf({ maxDraws: 3 })).toBe(3)
    expect(maxDrawsOf({})).toBe(1)
  })
})

describe("random (the control)", () => {
  const g = groupsWithStd([4, 3, 2, 1, 0, 0, 5, 6])
  test("keeps as many groups as the reference filter, chosen by ctx.rng", () => {
    const ref = keptGroups(apply(topPFilter, g, { p: 0.6 }))
    const a = apply(randomFilter, g, { like: "top-p", p: 0.6 }, 7)
    expect(keptGroups(a).length).toBe(ref.length)
    expect(apply(randomFilter, g, { like: "top-p", p: 0.6 }, 7)).toEqual(a)
    const picks = new Set<string>()
    for (let s = 0; s < 20; s++) picks.add(keptGroups(apply(randomFilter, g, { like: "top-p", p: 0.6 }, s)).join(","))
    expect(picks.size).toBeGreaterThan(5)
  })
  test("count and ratio", () => {
    expect(keptGroups(apply(randomFilter, g, { count: 3 }, 1)).length).toBe(3)
    expect(keptGroups(apply(randomFilter, g, { ratio: 0.25 }, 1)).length).toBe(2)
    expect(keptGroups(apply(randomFilter, g, { count: 0 }, 1))).toEqual([])
  })
  test("matches a trajectory-level reference's per-group counts", () => {
    const r = apply(randomFilter, groupsOf([[1, 2, 3, 4], [0, 5, 1, 2]]), { like: "pods", m: 2 }, 4)
    expect(r.keep.map((k) => k.trajectories.length)).toEqual([2, 2])
  })
  test("unknown reference is a FilterInputError", () => {
    expect(() => apply(randomFilter, g, { like: "nope" })).toThrow(FilterInputError)
  })
})

describe("every built-in", () => {
  const all = [...referenceFilters, randomFilter]
  test("rejects NaN and infinite returns with a FilterInputError naming the group", () => {
    for (const f of all) {
      expect(() => apply(f, groupsOf([[0, 1], [1, Number.NaN]]))).toThrow(/group 1, trajectory 1/)
      expect(() => apply(f, groupsOf([[Infinity, 1]]))).toThrow(FilterInputError)
    }
  })
  test("an empty batch keeps nothing and one group works", () => {
    for (const f of all) {
      expect(apply(f, []).keep).toEqual([])
      const one = apply(f, groupsOf([[0, 1, 0, 1]]))
      expect(one.keep.length).toBeLessThanOrEqual(1)
    }
  })
  test("is deterministic given the seed", () => {
    const g = groupsOf([[0, 1, 0, 1], [2, 2, 2, 0], [1, 1, 1, 1], [5, 0, 0, 0]])
    for (const f of all) expect(apply(f, g, {}, 9)).toEqual(apply(f, g, {}, 9))
  })
})
