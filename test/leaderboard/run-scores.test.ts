import { describe, expect, test } from "bun:test"
import type { RunRead } from "../../core/results/store.ts"
import { areaOf, keptOf, scoreRun } from "../../plugins/leaderboard/run-scores.ts"

/** The parts of a run these functions read: P and the metrics lines. */
const run = (P: number, lines: Array<Record<string, number | null>>): RunRead => ({ config: { config: { P } }, metrics: { lines } }) as unknown as RunRead

describe("a run's kept fractions and scores", () => {
  test("kept fractions by hand: groups, non-zero-spread groups, zero-spread groups", () => {
    // P = 8. Step 1: kept 6 of 8, 2 zero-spread groups, 1 non-zero one dropped → non-zero kept 1 − 1/6.
    // Step 2: kept 8 of 8, 0 zero-spread, none dropped → 1. Step 3: all 8 zero-spread → no non-zero figure.
    const r = run(8, [
      { step: 1, "filter/kept_ratio": 0.75, "filter/zero_variance_groups": 2, "filter/dropped_nonzero": 1 },
      { step: 2, "filter/kept_ratio": 1, "filter/zero_variance_groups": 0, "filter/dropped_nonzero": 0 },
      { step: 3, "filter/kept_ratio": 0.5, "filter/zero_variance_groups": 8, "filter/dropped_nonzero": 0 }
    ])
    const k = keptOf(r)
    expect(k.groups!).toBeCloseTo((0.75 + 1 + 0.5) / 3, 12)
    expect(k.nonZeroSpread!).toBeCloseTo((5 / 6 + 1) / 2, 12)
    expect(k.zeroSpread!).toBeCloseTo((2 / 8 + 0 + 1) / 3, 12)
  })

  test("not logged: null (a compact record of before filter/dropped_nonzero was kept has no non-zero figure)", () => {
    expect(keptOf(run(8, [{ step: 1, "val/success@0.5": 0.5 }]))).toEqual({ groups: null, nonZeroSpread: null, zeroSpread: null })
    expect(keptOf(run(8, [{ step: 1, "filter/kept_ratio": 1, "filter/zero_variance_groups": 3 }]))).toEqual({ groups: 1, nonZeroSpread: null, zeroSpread: 3 / 8 })
  })

  test("scores: area over the evaluations after step 0, last-3, all-zero", () => {
    const r = run(
      8,
      [0.9, 0.5, 0.7, 0.6].map((v, i) => ({ step: 10 * i, "val/success@0.5": v }))
    )
    expect(areaOf(r)!).toBeCloseTo(0.6, 12)
    const s = scoreRun(r, 3, 0.9)
    expect(s.seed).toBe(3)
    expect(s.last3!).toBeCloseTo(0.6, 12)
    expect(s.factAuc).toBeNull()
    expect(s.allZero).toBe(false)
    expect(
      scoreRun(
        run(
          8,
          [0, 1, 2].map((i) => ({ step: i, "val/success@0.5": 0 }))
        ),
        1,
        0
      ).allZero
    ).toBe(true)
  })
})
