import { describe, expect, test } from "bun:test"
import { bootstrapMeanInterval, bootstrapMeans, percentile, percentileInterval } from "../../plugins/leaderboard/statistics/bootstrap.ts"
import { Rng } from "../../core/rng.ts"
import { exactBootstrapMean, exactQuantile, ksDistance } from "./naive.ts"

describe("percentile bootstrap of a mean", () => {
  test("percentile interpolates linearly between order statistics (type 7)", () => {
    // [10, 20, 30, 40]: h = 3q; q = 0.5 → h = 1.5 → 20 + 0.5·10 = 25; q = 0.1 → h = 0.3 → 10 + 0.3·10 = 13.
    expect(percentile([10, 20, 30, 40], 0.5)).toBeCloseTo(25, 12)
    expect(percentile([10, 20, 30, 40], 0.1)).toBeCloseTo(13, 12)
    expect(percentile([10, 20, 30, 40], 0)).toBe(10)
    expect(percentile([10, 20, 30, 40], 1)).toBe(40)
    // 1001 values 0..1000: the 2.5% and 97.5% quantiles are 25 and 975 exactly.
    const xs = Array.from({ length: 1001 }, (_, i) => i)
    const ci = percentileInterval(xs, 0.95)
    expect(ci.lo).toBeCloseTo(25, 9)
    expect(ci.hi).toBeCloseTo(975, 9)
  })

  test("the bootstrap distribution of the mean matches exact enumeration of all n^n resamples", () => {
    const xs = [0, 1, 3, 7]
    const exact = exactBootstrapMean(xs) // 256 equally likely resamples
    const dist = bootstrapMeans(xs, 20_000, new Rng(11))
    // Dvoretzky–Kiefer–Wolfowitz: P(sup |F_B − F| > 0.015) ≤ 2·exp(−2·20000·0.015²) ≈ 2e−4.
    expect(ksDistance(dist, exact)).toBeLessThan(0.015)
    const ci = bootstrapMeanInterval(xs, { resamples: 20_000, seed: 11 })
    expect(ci.mean).toBe(2.75)
    // Each endpoint lies between the exact distribution's quantiles one point either side of its own.
    expect(ci.lo!).toBeGreaterThanOrEqual(exactQuantile(exact, 0.015))
    expect(ci.lo!).toBeLessThanOrEqual(exactQuantile(exact, 0.035))
    expect(ci.hi!).toBeGreaterThanOrEqual(exactQuantile(exact, 0.965))
    expect(ci.hi!).toBeLessThanOrEqual(exactQuantile(exact, 0.985))
  })

  test("seeded: the same seed gives the same interval, another seed a slightly different one", () => {
    const xs = [0.21, 0.53, 0.44, 0.97, 0.38, 0.12, 0.66, 0.71, 0.05, 0.29, 0.83, 0.47]
    const a = bootstrapMeanInterval(xs, { seed: "row-1" })
    expect(bootstrapMeanInterval(xs, { seed: "row-1" })).toEqual(a)
    const b = bootstrapMeanInterval(xs, { seed: "row-2" })
    expect(b.mean).toBe(a.mean)
    expect(Math.abs(b.lo! - a.lo!)).toBeLessThan(0.05)
    expect(b.lo === a.lo && b.hi === a.hi).toBe(false)
  })

  test("degenerate inputs: one value → no interval with a note; all equal → zero width; empty and NaN → errors", () => {
    const one = bootstrapMeanInterval([0.4])
    expect(one).toEqual({ mean: 0.4, n: 1, lo: null, hi: null, level: 0.95, note: "one value: no interval" })
    const same = bootstrapMeanInterval([0.3, 0.3, 0.3])
    expect(same.lo).toBe(same.mean)
    expect(same.hi).toBe(same.mean)
    expect(() => bootstrapMeanInterval([])).toThrow("empty sample")
    expect(() => bootstrapMeanInterval([0.1, Number.NaN])).toThrow("value 1 is NaN")
    expect(() => bootstrapMeanInterval([0.1, Infinity])).toThrow("not a finite number")
    expect(() => bootstrapMeanInterval([0.1, 0.2], { level: 1 })).toThrow("level must be in (0, 1)")
    expect(() => bootstrapMeans([0.1, 0.2], 0, new Rng(1))).toThrow("resamples must be an integer")
  })
})
