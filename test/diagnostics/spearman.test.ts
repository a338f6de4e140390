import { describe, expect, test } from "bun:test"
import { averageRanks, bootstrapSpearman, spearman } from "../../core/diagnostics/spearman.ts"

describe("spearman", () => {
  test("average ranks for ties", () => {
    expect([...averageRanks([10, 20, 20, 5])]).toEqual([2, 3.5, 3.5, 1])
  })
  test("monotone ⇒ ±1; hand-computed with ties", () => {
    expect(spearman([1, 2, 3, 4], [10, 40, 90, 160])).toBeCloseTo(1, 14)
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 14)
    // ranks x [1,2,3,4], y [1, 2.5, 2.5, 4]: Pearson = 4.5 / sqrt(5 · 4.5)
    expect(spearman([1, 2, 3, 4], [0, 1, 1, 2])).toBeCloseTo(4.5 / Math.sqrt(5 * 4.5), 12)
    expect(Number.isNaN(spearman([1, 1, 1], [1, 2, 3]))).toBe(true)
  })
  test("bootstrap interval is seeded and brackets the estimate", () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    const y = [2, 1, 4, 3, 6, 5, 8, 7, 10, 9]
    const ci = bootstrapSpearman(x, y, { seed: 1, resamples: 500 })
    expect(ci).toEqual(bootstrapSpearman(x, y, { seed: 1, resamples: 500 }))
    const rho = spearman(x, y)
    // Pinned (our seeded Rng): the interval brackets ρ = 0.9394 and every resample was valid.
    expect(rho).toBeCloseTo(0.9393939393939394, 12)
    expect(ci.lo).toBeCloseTo(0.6829803921568628, 12)
    expect(ci.hi).toBeCloseTo(0.9874213836477987, 12)
    expect(ci.valid).toBe(500)
  })
})
