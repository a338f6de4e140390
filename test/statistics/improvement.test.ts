import { describe, expect, test } from "bun:test"
import { mannWhitneyProbability, probabilityOfImprovement, probabilityOfImprovementInterval } from "../../plugins/leaderboard/statistics/improvement.ts"
import { Rng } from "../../core/rng.ts"
import { allResamples, naiveProbGreater } from "./naive.ts"

describe("probability of improvement", () => {
  test("per task P(X > Y) + ½P(X = Y) by hand and against every-pair counting", () => {
    // x = [0.5, 0.7], y = [0.5, 0.6]: pairs (0.5,0.5) ½, (0.5,0.6) 0, (0.7,0.5) 1, (0.7,0.6) 1 → 2.5/4 = 0.625.
    expect(mannWhitneyProbability([0.5, 0.7], [0.5, 0.6])).toBeCloseTo(0.625, 12)
    // Identical samples: exactly ½.
    expect(mannWhitneyProbability([0.2, 0.4, 0.4], [0.2, 0.4, 0.4])).toBeCloseTo(0.5, 12)
    // Every x above every y: 1; below: 0.
    expect(mannWhitneyProbability([0.9, 0.8], [0.1, 0.2, 0.3])).toBe(1)
    expect(mannWhitneyProbability([0.1], [0.9])).toBe(0)
    const rng = new Rng(4)
    // Small samples (counted pair by pair) and large ones (> 256 pairs: the rank-sum path), with ties.
    for (let k = 0; k < 40; k++) {
      const size = k < 20 ? 6 : 40
      const x = Array.from({ length: 1 + rng.int(size) }, () => rng.int(5) / 4)
      const y = Array.from({ length: 1 + rng.int(size) }, () => rng.int(5) / 4)
      expect(mannWhitneyProbability(x, y)).toBeCloseTo(naiveProbGreater(x, y), 12)
    }
  })

  test("averaged over tasks (rliable): two tasks by hand", () => {
    // Task 1: 0.625 (above); task 2: x = [1], y = [0, 1] → (1 + ½)/2 = 0.75; mean = 0.6875.
    expect(
      probabilityOfImprovement(
        [[0.5, 0.7], [1]],
        [
          [0.5, 0.6],
          [0, 1]
        ]
      )
    ).toBeCloseTo(0.6875, 12)
    expect(() => probabilityOfImprovement([[1]], [[0], [1]])).toThrow("x has 1 tasks, y has 2")
  })

  test("its interval resamples x and y independently within each task: matches exact enumeration", () => {
    // One task, x and y of 3 runs each: 27 × 27 equally likely resample pairs.
    const x = [0.2, 0.5, 0.9]
    const y = [0.1, 0.5, 0.6]
    const values: number[] = []
    const rx = allResamples(3).map((i) => i.map((j) => x[j]!))
    const ry = allResamples(3).map((i) => i.map((j) => y[j]!))
    for (const a of rx) for (const b of ry) values.push(naiveProbGreater(a, b))
    values.sort((a, b) => a - b)
    // Exact 2.5% and 97.5% quantiles (type 7 over the 729 equally likely values is the same rule the library uses).
    const q = (p: number) => {
      const h = (values.length - 1) * p
      const f = Math.floor(h)
      return values[f]! + (h - f) * (values[Math.min(f + 1, values.length - 1)]! - values[f]!)
    }
    const ci = probabilityOfImprovementInterval([x], [y], { resamples: 40_000, seed: 2 })
    // P by hand: pairs > : (0.2,0.1) (0.5,0.1) (0.9,0.1) (0.9,0.5) (0.9,0.6) = 5, ties (0.5,0.5) = ½ → 5.5/9.
    expect(ci.value).toBeCloseTo(5.5 / 9, 12)
    expect(Math.abs(ci.lo! - q(0.025))).toBeLessThan(0.06)
    expect(Math.abs(ci.hi! - q(0.975))).toBeLessThan(0.06)
  })

  test("degenerate: one run per task and side → no interval; all equal → ½ with zero width; NaN rejected", () => {
    const one = probabilityOfImprovementInterval([[0.3]], [[0.2]])
    expect(one.value).toBe(1)
    expect(one.lo).toBeNull()
    const same = probabilityOfImprovementInterval([[0.4, 0.4]], [[0.4, 0.4, 0.4]])
    expect(same.value).toBe(0.5)
    expect(same.lo).toBe(0.5)
    expect(same.hi).toBe(0.5)
    expect(() => probabilityOfImprovement([[Number.NaN]], [[0]])).toThrow("NaN")
    expect(() => probabilityOfImprovement([[]], [[0]])).toThrow("empty sample")
  })
})
