import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import {
  dapoDynamicFilter,
  minPFilter,
  noneFilter,
  podsFilter,
  quantileFilter,
  randomFilter,
  referenceFilters,
  topKFilter,
  topPFilter,
  topPSoftmaxFilter,
  withinGroupFilter
} from "../../algorithms/filters/index.ts"
import { FilterInputError } from "../../core/filters/input.ts"
import { decodeFilterOptions } from "../../core/filters/options.ts"
import type { Filter, ResolvedFilter } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { groupScore, roundHalfEven } from "../../core/stats.ts"
import { apply, groupsOf, groupsWithStd, keptGroups } from "./helpers.ts"

describe("group score", () => {
  test("unbiased std by default, unbiased var on request, 0 for G=1", () => {
    expect(groupScore([1, 2, 3, 4])).toBeCloseTo(Math.sqrt(5 / 3), 12)
    expect(groupScore([1, 2, 3, 4], "var")).toBeCloseTo(5 / 3, 12)
    expect(groupScore([7])).toBe(0)
    expect(groupScore([2, 2, 2])).toBe(0)
  })
  test("roundHalfEven is Python's round", () => {
    expect([0.5, 1.5, 2.5, 3.5, 2.4, 2.6, -0.5, -1.5, 7].map(roundHalfEven)).toEqual([0, 2, 2, 4, 2, 3, 0, -2, 7])
  })
})

/** 100 groups of G = 2 whose std is (i + 1)/100 for group i: distinct spreads, ranked by index. */
const hundred = groupsWithStd(Array.from({ length: 100 }, (_, i) => (i + 1) / 100))

describe("none", () => {
  test("keeps every group and trajectory", () => {
    const r = apply(
      noneFilter,
      groupsOf([
        [0, 0],
        [1, 2, 3]
      ])
    )
    expect(r.keep).toEqual([
      { group: 0, trajectories: [0, 1] },
      { group: 1, trajectories: [0, 1, 2] }
    ])
  })
})

describe("top-p (linear, reference rules)", () => {
  test("docs/design.md example: scores [4,3,2,1], p=0.6 keeps {4,3}", () => {
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
  test("zero-spread groups are dropped unless includeZero", () => {
    const g = groupsWithStd([2, 0, 1, 0])
    expect(keptGroups(apply(topPFilter, g, { p: 0.99 }))).toEqual([0, 2])
    expect(keptGroups(apply(topPFilter, g, { p: 0.99, includeZero: true }))).toEqual([0, 2])
  })
  test("p ≥ 1 drops only the zero-spread groups (Table 9's top-p 1.0 baseline); with includeZero it keeps all", () => {
    const g = groupsOf([
      [0, 1],
      [1, 1],
      [0, 2],
      [3, 3]
    ])
    expect(keptGroups(apply(topPFilter, g, { p: 1 }))).toEqual([0, 2])
    // A share above 1 is a mistake (it would keep everything), refused by name
    expect(() => apply(topPFilter, g, { p: 1.5 })).toThrow(/p: got 1\.5; expected a number from 0 to 1/)
    expect(keptGroups(apply(topPFilter, g, { p: 1, includeZero: true }))).toEqual([0, 1, 2, 3])
  })
  test("P = 100: p = 0.5 keeps the 30 highest spreads", () => {
    // Scores 0.01..1.00, Σ = 50.5; threshold 25.24. Top n sum = n(2.01 − n/100)/2: n = 29 → 24.94, n = 30 → 25.65.
    const r = apply(topPFilter, hundred, { p: 0.5 })
    expect(keptGroups(r)).toEqual(Array.from({ length: 30 }, (_, i) => 70 + i))
    expect(r.stats!.threshold).toBeCloseTo(0.5 * 50.5 - 0.01, 10)
  })
  test("all-zero batch keeps nothing (empty step)", () => {
    const g = groupsOf([
      [1, 1],
      [0, 0],
      [-0.1, -0.1]
    ])
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
  test("p ≥ 1 still drops zero-spread groups unless includeZero (the Table 4 script's no-filter arm keeps them)", () => {
    const g = groupsOf([
      [0, 1],
      [1, 1],
      [0, 2],
      [3, 3]
    ])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 1 }))).toEqual([0, 2])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 1, includeZero: true }))).toEqual([0, 1, 2, 3])
  })
  test("the Table 4 script's filter arm: p = 0.9, includeZero true, over spreads and zeros", () => {
    // Scores [2, 0, 1, 0]: softmax [e²,1,e,1]/(e²+e+2) = [0.602, 0.081, 0.221, 0.081]; sorted cumulative
    // 0.602, 0.824, 0.905 (a zero group, batch order first) → three groups.
    const g = groupsWithStd([2, 0, 1, 0])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 0.9, includeZero: true }))).toEqual([0, 1, 2])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { p: 0.9 }))).toEqual([0, 2])
  })
  test("all-zero batch keeps nothing unless includeZero", () => {
    const g = groupsOf([
      [1, 1],
      [2, 2]
    ])
    expect(apply(topPSoftmaxFilter, g).keep).toEqual([])
    expect(keptGroups(apply(topPSoftmaxFilter, g, { includeZero: true, p: 0.5 }))).toEqual([0])
  })
})

describe("top-k", () => {
  test("keeps min(candidates, max(1, int(k·P))) highest", () => {
    const g = groupsWithStd([1, 5, 3, 4, 2, 0, 0, 6])
    expect(keptGroups(apply(topKFilter, g, { k: 0.25 }))).toEqual([1, 7])
    expect(keptGroups(apply(topKFilter, g, { k: 0.5 }))).toEqual([1, 2, 3, 7])
    expect(keptGroups(apply(topKFilter, g, { k: 0.01 }))).toEqual([7])
    // int(1.0·8) = 8 but only 6 groups have spread: the zero-spread two stay out.
    expect(keptGroups(apply(topKFilter, g, { k: 1 }))).toEqual([0, 1, 2, 3, 4, 7])
    expect(keptGroups(apply(topKFilter, g, { k: 1, includeZero: true }))).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
  })
  test("P = 100, k = 0.29 keeps 28 (Python int(0.29·100) = int(28.999…) = 28)", () => {
    expect(keptGroups(apply(topKFilter, hundred, { k: 0.29 }))).toEqual(Array.from({ length: 28 }, (_, i) => 72 + i))
    expect(keptGroups(apply(topKFilter, hundred, { k: 0.25 })).length).toBe(25)
  })
  test("ties in batch order; an all-zero batch keeps nothing by default, one with includeZero (rank-based)", () => {
    expect(keptGroups(apply(topKFilter, groupsWithStd([1, 2, 2, 2]), { k: 0.5 }))).toEqual([1, 2])
    expect(
      apply(
        topKFilter,
        groupsOf([
          [0, 0],
          [1, 1]
        ]),
        { k: 0.5 }
      ).keep
    ).toEqual([])
    expect(
      keptGroups(
        apply(
          topKFilter,
          groupsOf([
            [0, 0],
            [1, 1]
          ]),
          { k: 0.5, includeZero: true }
        )
      )
    ).toEqual([0])
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
  test("spreads equal up to rounding are not split (the reference's 1e-10 tolerance)", () => {
    // std([0.1, 0.3]) = 0.14142135623730948 and std([0.2, 0.4]) = 0.1414213562373095: equal but for rounding.
    const g = groupsOf([
      [0.1, 0.3],
      [0.2, 0.4],
      [0, 0.1]
    ])
    expect(groupScore([0.1, 0.3])).not.toBe(groupScore([0.2, 0.4]))
    expect(keptGroups(apply(minPFilter, g, { p: 1 }))).toEqual([0, 1])
  })
  test("P = 100: p = 0.5 keeps the spreads ≥ 0.5 (groups 49..99)", () => {
    expect(keptGroups(apply(minPFilter, hundred, { p: 0.5 }))).toEqual(Array.from({ length: 51 }, (_, i) => 49 + i))
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
  test("counts ranks with Python's round over the candidates, at least one group", () => {
    // n = 10: [0.25, 0.5) → round(2.5) = 2 .. round(5) = 5 → ranks 2, 3, 4.
    const ten = groupsWithStd([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
    expect(keptGroups(apply(quantileFilter, ten, { lo: 0.25, hi: 0.5 }))).toEqual([2, 3, 4])
    // n = 6: Q1 = ranks 0..round(1.5) = 2 (two groups); Q2 = round(1.5) = 2 .. round(3) = 3 (one).
    const six = groupsWithStd([6, 5, 4, 3, 2, 1])
    expect(keptGroups(apply(quantileFilter, six, { lo: 0, hi: 0.25 }))).toEqual([0, 1])
    expect(keptGroups(apply(quantileFilter, six, { lo: 0.25, hi: 0.5 }))).toEqual([2])
    // A range narrower than one rank still keeps one group.
    expect(keptGroups(apply(quantileFilter, groupsWithStd([3, 2, 1]), { lo: 0, hi: 0.1 }))).toEqual([0])
    expect(keptGroups(apply(quantileFilter, groupsWithStd([3, 2, 1]), { lo: 0.9, hi: 1 }))).toEqual([2])
  })
  test("with includeZero false the count is over the groups left after the zero filter", () => {
    // 8 groups, 2 without spread: n = 6 → Q1 keeps two, Q4 = round(4.5) = 4 .. 6 keeps two.
    const g = groupsWithStd([6, 0, 5, 4, 0, 3, 2, 1])
    expect(keptGroups(apply(quantileFilter, g, { lo: 0, hi: 0.25, includeZero: false }))).toEqual([0, 2])
    expect(keptGroups(apply(quantileFilter, g, { lo: 0.75, hi: 1, includeZero: false }))).toEqual([6, 7])
    expect(keptGroups(apply(quantileFilter, g, { lo: 0.75, hi: 1 }))).toEqual([1, 4])
  })
  test("P = 100: the quartiles partition the batch, 25 groups each", () => {
    const q = (lo: number, hi: number) => keptGroups(apply(quantileFilter, hundred, { lo, hi }))
    expect(q(0, 0.25)).toEqual(Array.from({ length: 25 }, (_, i) => 75 + i))
    expect(q(0.75, 1)).toEqual(Array.from({ length: 25 }, (_, i) => i))
  })
  test("lo ≥ hi is a FilterInputError", () => {
    expect(() => apply(quantileFilter, groupsWithStd([1, 2]), { lo: 0.5, hi: 0.5 })).toThrow(FilterInputError)
  })
})

describe("within-group and pods (trajectory level)", () => {
  test("keeps round(ρ·G) trajectories of maximum variance in every group", () => {
    // returns sorted: 0,1,2,10 → best pair {0, 10}; best triple lowest 0,1 + highest 10 or 0 + 2,10
    const g = groupsOf([
      [10, 1, 0, 2],
      [5, 5, 5, 5]
    ])
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
  test("ρ·G rounds half to even as Python's round: G = 5 keeps 2, G = 3 keeps 2, G = 7 keeps 4", () => {
    const count = (G: number) => apply(withinGroupFilter, groupsOf([Array.from({ length: G }, (_, i) => i)]), { rho: 0.5 }).keep[0]!.trajectories.length
    expect([count(5), count(3), count(7)]).toEqual([2, 2, 4])
  })
})

describe("dapo-dynamic", () => {
  test("drops groups whose returns are all equal and declares dynamic sampling in the contract", () => {
    const g = groupsOf([[1, 1, 1], [0, 1, 0], [0, 0, 0], [0.5]])
    const r = apply(dapoDynamicFilter, g, { maxDraws: 3 })
    expect(keptGroups(r)).toEqual([1])
    expect(r.stats!.dropped).toBe(3)
    expect(dapoDynamicFilter.dynamicSampling!({ maxDraws: 3, tolerance: 1e-9 })).toEqual({ maxDraws: 3, dropEqualGroups: true })
    expect(referenceFilters.filter((f) => f.dynamicSampling).map((f) => f.name)).toEqual(["dapo-dynamic"])
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
    // C(8, 2) = 28 possible pairs; 20 seeds drew 16 distinct ones (pinned: the Rng is ours and deterministic).
    expect(picks.size).toBe(16)
  })
  test("count and ratio", () => {
    expect(keptGroups(apply(randomFilter, g, { count: 3 }, 1)).length).toBe(3)
    expect(keptGroups(apply(randomFilter, g, { ratio: 0.25 }, 1)).length).toBe(2)
    expect(keptGroups(apply(randomFilter, g, { count: 0 }, 1))).toEqual([])
  })
  test("matches a trajectory-level reference's per-group counts", () => {
    const r = apply(
      randomFilter,
      groupsOf([
        [1, 2, 3, 4],
        [0, 5, 1, 2]
      ]),
      { like: "pods", m: 2 },
      4
    )
    expect(r.keep.map((k) => k.trajectories.length)).toEqual([2, 2])
  })
  test("unknown reference is a FilterInputError", () => {
    expect(() => apply(randomFilter, g, { like: "nope" })).toThrow(FilterInputError)
  })
  test("matches any registered filter through ctx.resolveFilter, plugin filters included", () => {
    // A plugin filter: keep the groups whose best return is at least 5.
    const best: Filter<{}> = {
      name: "best-at-least-5",
      description: "test plugin filter",
      options: topPFilter.options as never,
      select: (gs) => ({ keep: gs.filter((x) => Math.max(...x.returns) >= 5).map((x) => ({ group: x.index, trajectories: x.returns.map((_, k) => k) })) })
    }
    const registry: Record<string, Filter> = { "mine/best-at-least-5": best, "filters/random": randomFilter }
    const resolveFilter = (id: string): ResolvedFilter => {
      const hit = Object.entries(registry).find(([full]) => full === id || full.endsWith(`/${id}`))
      return hit ? { ok: true, filter: hit[1], id: hit[0] } : { ok: false, message: `unknown filter "${id}"` }
    }
    const run = (raw: Record<string, unknown>, seed = 3) => {
      const options = Effect.runSync(decodeFilterOptions(randomFilter, raw))
      return randomFilter.select(g, { options, rng: new Rng(seed), step: 0, resolveFilter })
    }
    // Returns [0, s·√2]: maxima 5.66, 4.24, 2.83, 1.41, 0, 0, 7.07, 8.49 → the plugin keeps 3.
    expect(keptGroups(run({ like: "best-at-least-5" })).length).toBe(3)
    expect(keptGroups(run({ like: "mine/best-at-least-5" })).length).toBe(3)
    expect(() => run({ like: "nope" })).toThrow(/unknown filter "nope"/)
    expect(() => run({ like: "random" })).toThrow(/random control itself/)
  })
})

describe("every built-in", () => {
  const all = [...referenceFilters, randomFilter]
  test("rejects NaN and infinite returns with a FilterInputError naming the group", () => {
    for (const f of all) {
      expect(() =>
        apply(
          f,
          groupsOf([
            [0, 1],
            [1, Number.NaN]
          ])
        )
      ).toThrow(/group 1, trajectory 1/)
      expect(() => apply(f, groupsOf([[Infinity, 1]]))).toThrow(FilterInputError)
    }
  })
  test("an empty batch keeps nothing and one group with spread is kept whole", () => {
    for (const f of all) {
      expect(apply(f, []).keep).toEqual([])
      const one = apply(f, groupsOf([[0, 1, 0, 1]]))
      // within-group keeps round(0.5·4) = 2: the max-variance pair {0, 3}; every other default keeps the group whole.
      expect(one.keep).toEqual([{ group: 0, trajectories: f.name === "within-group" ? [0, 3] : [0, 1, 2, 3] }])
    }
  })
  test("is deterministic given the seed", () => {
    const g = groupsOf([
      [0, 1, 0, 1],
      [2, 2, 2, 0],
      [1, 1, 1, 1],
      [5, 0, 0, 0]
    ])
    for (const f of all) expect(apply(f, g, {}, 9)).toEqual(apply(f, g, {}, 9))
  })
})
