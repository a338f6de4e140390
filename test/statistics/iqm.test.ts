import { describe, expect, test } from "bun:test"
import { iqm, iqmInterval, stratifiedBootstrap } from "../../plugins/leaderboard/statistics/iqm.ts"
import { Rng } from "../../core/rng.ts"
import { exactQuantile, exactStratified, ksDistance, naiveIqm } from "./naive.ts"

describe("interquartile mean with the stratified bootstrap", () => {
  test("IQM by hand and against a naive trimmed mean", () => {
    // 1..8: cut ⌊8/4⌋ = 2 from each end → mean(3, 4, 5, 6) = 4.5.
    expect(iqm([8, 1, 7, 2, 6, 3, 5, 4])).toBe(4.5)
    // 5 values: cut ⌊1.25⌋ = 1 → mean(0.2, 0.3, 0.9) = 0.466667 (the outlier 100 is cut).
    expect(iqm([0.3, 100, 0.2, 0.9, -5])).toBeCloseTo(1.4 / 3, 12)
    // Fewer than 4 values: nothing is cut, the plain mean.
    expect(iqm([0.1, 0.5, 0.9])).toBeCloseTo(0.5, 12)
    expect(iqm([0.7])).toBe(0.7)
    const rng = new Rng(3)
    for (let n = 1; n <= 13; n++) {
      const xs = Array.from({ length: n }, () => Math.round(rng.float() * 20) / 20)
      expect(iqm(xs)).toBeCloseTo(naiveIqm(xs), 12)
    }
  })

  test("the stratified bootstrap resamples within each task: its distribution matches exact enumeration", () => {
    // Two tasks of 3 runs: 27 × 27 = 729 equally likely stratified resamples.
    const tasks = [
      [0.1, 0.4, 0.9],
      [0.0, 0.5, 0.6]
    ]
    const stat = (t: number[][]) => naiveIqm(t.flat())
    const exact = exactStratified(tasks, stat)
    const dist = stratifiedBootstrap(tasks, (t) => iqm(t.flat()), 20_000, new Rng(8))
    // DKW at ε = 0.015, B = 20000: failure probability ≈ 2e−4 (and the stream is fixed).
    expect(ksDistance(dist, exact)).toBeLessThan(0.015)
    const ci = iqmInterval(tasks, { resamples: 20_000, seed: 8 })
    // All six: sorted 0, 0.1, 0.4, 0.5, 0.6, 0.9, cut 1 each end → mean(0.1, 0.4, 0.5, 0.6) = 0.4.
    expect(ci.value).toBeCloseTo(0.4, 12)
    expect(ci.lo!).toBeGreaterThanOrEqual(exactQuantile(exact, 0.015))
    expect(ci.lo!).toBeLessThanOrEqual(exactQuantile(exact, 0.035))
    expect(ci.hi!).toBeGreaterThanOrEqual(exactQuantile(exact, 0.965))
    expect(ci.hi!).toBeLessThanOrEqual(exactQuantile(exact, 0.985))
    expect(ci.tasks).toBe(2)
    expect(ci.runs).toBe(6)
  })

  test("stratification keeps every task: a resample never drops a task's runs entirely", () => {
    // Task 0 always scores 0, task 1 always 1: any stratified resample has three 0s and three 1s,
    // so the IQM (cut 1 each end: 0, 0, 1, 1) is always exactly 0.5. An unstratified bootstrap would vary.
    const dist = stratifiedBootstrap(
      [
        [0, 0, 0],
        [1, 1, 1]
      ],
      (t) => iqm(t.flat()),
      500,
      new Rng(1)
    )
    expect(dist[0]).toBe(0.5)
    expect(dist[dist.length - 1]).toBe(0.5)
  })

  test("degenerate: one run per task → no interval; all equal → zero width; empty and NaN rejected", () => {
    const one = iqmInterval([[0.3], [0.5]])
    expect(one.value).toBeCloseTo(0.4, 12)
    expect(one.lo).toBeNull()
    expect(one.note).toBe("one run per task: no interval")
    const same = iqmInterval([
      [0.2, 0.2],
      [0.2, 0.2, 0.2]
    ])
    expect(same.value).toBeCloseTo(0.2, 12)
    expect(same.lo).toBe(same.value)
    expect(same.hi).toBe(same.value)
    expect(() => iqm([])).toThrow("empty sample")
    expect(() => iqmInterval([])).toThrow("no tasks")
    expect(() => iqmInterval([[0.1], []])).toThrow("task 1: empty sample")
    expect(() => iqmInterval([[0.1, Number.NaN]])).toThrow("NaN")
  })
})
