import { describe, expect, test } from "bun:test"
import { pairedTTest, signFlipMinP, signFlipTest, tInterval } from "../../plugins/leaderboard/statistics/paired-tests.ts"
import { incompleteBeta, logGamma, tCdf, tQuantile, tTwoSided } from "../../plugins/leaderboard/statistics/student-t.ts"

describe("Student's t", () => {
  test("quantiles match the printed table (and scipy.stats.t.ppf)", () => {
    // t_{.975, ν} for ν = 1, 2, 3, 4, 5, 10, 30 (Fisher & Yates' table; scipy 1.17 gives the same to 8 digits).
    const table: Array<[number, number]> = [
      [1, 12.70620474],
      [2, 4.30265273],
      [3, 3.18244631],
      [4, 2.77644511],
      [5, 2.57058184],
      [10, 2.22813885],
      [30, 2.04227246]
    ]
    for (const [df, t] of table) expect(tQuantile(0.975, df)).toBeCloseTo(t, 7)
    expect(tQuantile(0.995, 4)).toBeCloseTo(4.60409487, 7)
    expect(tQuantile(0.025, 4)).toBeCloseTo(-2.77644511, 7)
    expect(tQuantile(0.5, 3)).toBe(0)
  })

  test("closed forms: ν = 1 is Cauchy, ν = 2 has F(t) = ½ + t/(2√(2 + t²)); the table's t gives p = 0.05", () => {
    expect(tCdf(1, 1)).toBeCloseTo(0.75, 12)
    expect(tCdf(-1, 1)).toBeCloseTo(0.25, 12)
    for (const t of [-3, -0.5, 0, 0.7, 4]) expect(tCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 12)
    expect(tTwoSided(2.77644511, 4)).toBeCloseTo(0.05, 8)
    // scipy.stats.t.sf(3.5, 7)·2
    expect(tTwoSided(3.5, 7)).toBeCloseTo(0.009993040881885549, 12)
    expect(tTwoSided(Infinity, 3)).toBe(0)
  })

  test("ln Γ and I_x(a, b) at known values; bad arguments rejected", () => {
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12)
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 10)
    expect(logGamma(1)).toBeCloseTo(0, 12)
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12)
    expect(incompleteBeta(0.3, 2.5, 1)).toBeCloseTo(0.3 ** 2.5, 12)
    expect(incompleteBeta(0, 2, 3)).toBe(0)
    expect(incompleteBeta(1, 2, 3)).toBe(1)
    expect(() => logGamma(0)).toThrow("must be > 0")
    expect(() => tTwoSided(Number.NaN, 3)).toThrow("NaN")
    expect(() => tQuantile(0.975, 0)).toThrow("degrees of freedom")
    expect(() => tQuantile(1, 3)).toThrow("must be in (0, 1)")
  })
})

describe("paired t-test and t interval", () => {
  test("against scipy.stats.ttest_1samp", () => {
    const a = pairedTTest([1, 2, 3, 4, 5])
    expect(a.t).toBeCloseTo(4.242640687119285, 10)
    expect(a.df).toBe(4)
    expect(a.p).toBeCloseTo(0.01323559956368269, 10)
    const b = pairedTTest([0.1, -0.05, 0.2, 0.15])
    expect(b.p).toBeCloseTo(0.1611618472135195, 10)
    const iv = tInterval([0.1, -0.05, 0.2, 0.15], 0.95)!
    expect(iv.lo).toBeCloseTo(-0.07187174409291541, 10)
    expect(iv.hi).toBeCloseTo(0.2718717440929154, 10)
    // By hand: 3 ± 2.776445·√(2.5/5) = 3 ± 1.963243.
    const h = tInterval([1, 2, 3, 4, 5], 0.95)!
    expect(h.lo).toBeCloseTo(3 - 2.77644511 * Math.sqrt(0.5), 7)
  })

  test("degenerate: one pair, all equal, NaN", () => {
    expect(() => pairedTTest([0.1])).toThrow("at least 2 pairs")
    expect(tInterval([0.1], 0.95)).toBeNull()
    expect(pairedTTest([0, 0, 0]).p).toBe(1)
    expect(pairedTTest([0.1, 0.1, 0.1]).p).toBe(0)
    const flat = tInterval([0.1, 0.1, 0.1], 0.95)!
    expect(flat.lo).toBeCloseTo(0.1, 12)
    expect(flat.hi).toBeCloseTo(0.1, 12)
    expect(() => pairedTTest([0.1, Number.NaN])).toThrow("NaN")
    expect(() => tInterval([], 0.95)).toThrow("empty sample")
  })
})

describe("sign-flip permutation test", () => {
  test("exact p by hand", () => {
    // ±1±2±3: sums 6, 4, 2, 0, 0, −2, −4, −6; |sum| ≥ 6 in 2 of 8.
    expect(signFlipTest([1, 2, 3]).p).toBeCloseTo(0.25, 12)
    // Five same-sign differences: only the pattern and its mirror reach: 2/32, whatever their size.
    expect(signFlipTest([0.01, 0.02, 0.01, 0.03, 0.05]).p).toBeCloseTo(0.0625, 12)
    expect(signFlipTest([-1, -1, -1, -1, -1]).p).toBeCloseTo(0.0625, 12)
    // |d| = 3, 1, 2, 1, observed sum 5: reached by negating nothing or one of the 1s (sums 7, 5, 5) and the mirrors: 6/16.
    expect(signFlipTest([3, -1, 2, 1]).p).toBeCloseTo(0.375, 12)
    // Observed sum 0: every pattern reaches it.
    expect(signFlipTest([1, -1]).p).toBe(1)
    // Float noise does not decide a tie: 0.3 − 0.2 and 0.1 are the same magnitude.
    expect(signFlipTest([0.3 - 0.2, -0.1]).p).toBe(1)
  })

  test("smallest attainable p: 2/2^n exact, 1/(B+1) Monte Carlo", () => {
    expect(signFlipMinP(5)).toBeCloseTo(0.0625, 12)
    expect(signFlipMinP(6)).toBeCloseTo(0.03125, 12)
    expect(signFlipMinP(1)).toBe(1)
    expect(signFlipTest([1, 2, 3, 4, 5, 6]).minP).toBeCloseTo(0.03125, 12)
  })

  test("beyond 16 pairs: seeded Monte Carlo, deterministic, agreeing with the exact p", () => {
    const d = Array.from({ length: 17 }, (_, i) => (i % 3 === 0 ? -0.5 : 1) * (1 + i / 10))
    const a = signFlipTest(d, { seed: "x" })
    expect(a.exact).toBe(false)
    expect(signFlipTest(d, { seed: "x" })).toEqual(a)
    // The exact p of the first 16 of them against 16 (Monte Carlo with 20 000 samples has sd ≤ 0.0036).
    const exact16 = signFlipTest(d.slice(0, 16)).p
    const mc16 = signFlipTest(d.slice(0, 16).concat([0]), { seed: "y" }).p
    expect(Math.abs(mc16 - exact16)).toBeLessThan(0.015)
    const same = signFlipTest(
      Array.from({ length: 20 }, () => 0.1),
      { seed: 1 }
    )
    expect(same.p).toBeCloseTo(1 / 20_001, 12)
  })

  test("degenerate: one pair, all zero, NaN", () => {
    expect(signFlipTest([0.4]).p).toBe(1)
    expect(signFlipTest([0, 0, 0, 0]).p).toBe(1)
    expect(() => signFlipTest([0.1, Number.NaN])).toThrow("NaN")
    expect(() => signFlipTest([])).toThrow("empty sample")
  })
})
