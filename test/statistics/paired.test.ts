import { describe, expect, test } from "bun:test"
import { holm, pairBySeed } from "../../plugins/leaderboard/statistics/paired.ts"
import { naiveHolmRejects } from "./naive.ts"

describe("paired differences against a baseline", () => {
  test("pairing by seed keeps only the seeds both have and says which are unpaired", () => {
    const a = [
      { seed: 3, value: 0.9 },
      { seed: 1, value: 0.5 },
      { seed: 2, value: 0.7 }
    ]
    const b = [
      { seed: 1, value: 0.4 },
      { seed: 2, value: 0.8 },
      { seed: 4, value: 0.1 }
    ]
    const p = pairBySeed(a, b)
    expect(p.seeds).toEqual([1, 2])
    expect(p.deltas[0]).toBeCloseTo(0.1, 12) // 0.5 − 0.4
    expect(p.deltas[1]).toBeCloseTo(-0.1, 12) // 0.7 − 0.8
    expect(p.onlyA).toEqual([3])
    expect(p.onlyB).toEqual([4])
    expect(() => pairBySeed([...a, { seed: 1, value: 0 }], b)).toThrow("seed 1 appears twice")
    expect(() => pairBySeed([{ seed: 1, value: Number.NaN }], b)).toThrow("NaN")
  })

  test("Holm on the textbook example p = [0.01, 0.04, 0.03, 0.005] at α 0.05", () => {
    // Sorted: 0.005 ≤ 0.05/4 = 0.0125 reject; 0.01 ≤ 0.05/3 = 0.0167 reject; 0.03 > 0.05/2 = 0.025 stop.
    // Adjusted: 4·0.005 = 0.02; max(0.02, 3·0.01) = 0.03; max(0.03, 2·0.03) = 0.06; max(0.06, 1·0.04) = 0.06.
    const ps = [0.01, 0.04, 0.03, 0.005]
    const h = holm(ps, 0.05)
    expect(h.map((r) => r.reject)).toEqual([true, false, false, true])
    expect(h.map((r) => r.reject)).toEqual(naiveHolmRejects(ps, 0.05))
    ;[0.03, 0.06, 0.06, 0.02].forEach((x, i) => expect(h[i]!.adjusted).toBeCloseTo(x, 12))
    // Levels 1 − α/(m − k): ranks 1, 0, 2, 3 of p → 1 − 0.05/3, 1 − 0.05/1, 1 − 0.05/2, 1 − 0.05/4.
    ;[1 - 0.05 / 3, 1 - 0.05, 1 - 0.05 / 2, 1 - 0.05 / 4].forEach((x, i) => expect(h[i]!.level).toBeCloseTo(x, 12))
    // A second textbook case: all below α but Holm stops at the first failure.
    // p = [0.02, 0.021, 0.022]: 0.02 > 0.05/3 = 0.0167 → nothing rejected, though each p < 0.05.
    expect(holm([0.02, 0.021, 0.022]).map((r) => r.reject)).toEqual([false, false, false])
    expect(holm([])).toEqual([])
    expect(() => holm([0.5, Number.NaN])).toThrow("NaN")
    expect(() => holm([1.5])).toThrow("outside [0, 1]")
  })
})
