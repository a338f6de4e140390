import { describe, expect, test } from "bun:test"
import { averageRanks, spearman, spearmanContrastInterval, spearmanInterval } from "../../plugins/leaderboard/statistics/spearman.ts"
import { allResamples } from "./naive.ts"

/** Spearman by the textbook formula 1 − 6Σd²/(n(n² − 1)), valid without ties: an independent check. */
const noTiesFormula = (x: number[], y: number[]): number => {
  const rank = (xs: number[]) => xs.map((v) => 1 + xs.filter((w) => w < v).length)
  const rx = rank(x)
  const ry = rank(y)
  const d2 = rx.reduce((s, r, i) => s + (r - ry[i]!) ** 2, 0)
  const n = x.length
  return 1 - (6 * d2) / (n * (n * n - 1))
}

describe("Spearman's rank correlation", () => {
  test("hand values: no ties, ties, perfect and reversed order, constant side", () => {
    // Ranks equal the values; d = (−1, 1, −1, 1, 0), Σd² = 4: ρ = 1 − 6·4/(5·24) = 0.8.
    expect(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.8, 12)
    // x ranks (1, 2.5, 2.5, 4), y ranks (1, 3, 2, 4): Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5 → 3/√10.
    expect(spearman([1, 2, 2, 3], [10, 30, 20, 40])).toBeCloseTo(3 / Math.sqrt(10), 12)
    // Monotone but not linear: ρ is 1 (Pearson's would not be).
    expect(spearman([1, 2, 3, 4], [1, 10, 100, 1000])).toBe(1)
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1)
    expect(spearman([1, 2, 3], [5, 5, 5])).toBeNull()
    expect(spearman([7], [3])).toBeNull()
    expect(Array.from(averageRanks([3, 1, 3, 2]))).toEqual([3.5, 1, 3.5, 2])
  })

  test("agrees with the no-ties formula on random permutations", () => {
    let s = 17
    const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let trial = 0; trial < 20; trial++) {
      const n = 3 + (trial % 8)
      const x = Array.from({ length: n }, (_, i) => i + next() * 0.5)
      const y = Array.from({ length: n }, () => next())
      expect(spearman(x, y)!).toBeCloseTo(noTiesFormula(x, y), 12)
    }
  })

  test("NaN, unequal lengths and empty input are refused", () => {
    expect(() => spearman([1, Number.NaN], [1, 2])).toThrow(/not a finite number/)
    expect(() => spearman([1, 2], [1, 2, 3])).toThrow(/x has 2 values, y has 3/)
    expect(() => spearman([], [])).toThrow(/empty/)
  })

  test("the bootstrap interval brackets the exact bootstrap distribution's quantiles", () => {
    const x = [0.1, 0.5, 0.2, 0.9, 0.7]
    const y = [1, 3, 2, 5, 3]
    // Exact: all 5^5 = 3125 equally likely resamples of the pairs (a constant side counts as 0).
    const exact = allResamples(5)
      .map((idx) =>
        spearman(
          idx.map((i) => x[i]!),
          idx.map((i) => y[i]!)
        )
      )
      .map((r) => r ?? 0)
      .sort((a, b) => a - b)
    const q = (p: number) => exact[Math.min(exact.length - 1, Math.floor(p * exact.length))]!
    const ci = spearmanInterval(x, y, { resamples: 20_000, seed: 5 })
    expect(ci.rho).toBeCloseTo(spearman(x, y)!, 12)
    expect(ci.lo!).toBeGreaterThanOrEqual(q(0.01))
    expect(ci.lo!).toBeLessThanOrEqual(q(0.04))
    expect(ci.hi!).toBeGreaterThanOrEqual(q(0.96))
    expect(ci.hi!).toBeLessThanOrEqual(1)
    expect(ci.degenerate).toBeGreaterThan(0)
    // Seeded: the same seed gives the same interval.
    expect(spearmanInterval(x, y, { resamples: 2_000, seed: "a" })).toEqual(spearmanInterval(x, y, { resamples: 2_000, seed: "a" }))
  })

  test("degenerate inputs: too few pairs or a constant side give no interval", () => {
    expect(spearmanInterval([1, 2], [2, 1])).toMatchObject({ rho: -1, lo: null, hi: null, n: 2 })
    expect(spearmanInterval([1, 2, 3], [1, 1, 1])).toMatchObject({ rho: null, lo: null, hi: null })
  })

  test("contrast |ρ(a, y)| − |ρ(b, y)|: value by hand, interval above 0 when a orders y and b does not", () => {
    const y = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    const a = y.map((v) => v * 2)
    const b = [5, 1, 9, 3, 12, 2, 8, 11, 4, 7, 10, 6]
    const c = spearmanContrastInterval(a, b, y, { resamples: 4_000, seed: 1 })
    expect(c.rhoA).toBe(1)
    expect(c.value).toBeCloseTo(1 - Math.abs(spearman(b, y)!), 12)
    expect(c.lo!).toBeGreaterThan(0)
    // Swapped, the contrast is negative with an interval below 0.
    const d = spearmanContrastInterval(b, a, y, { resamples: 4_000, seed: 1 })
    expect(d.hi!).toBeLessThan(0)
  })
})
