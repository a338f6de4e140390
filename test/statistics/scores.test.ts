import { describe, expect, test } from "bun:test"
import { areaScore, curveOf, lastMeanScore, peakScore } from "../../core/statistics/scores.ts"

describe("a run's score two ways", () => {
  const lines = [
    { step: 0, "val/success@0.5": 0.1, "train/loss": 1 },
    { step: 1, "train/loss": 0.9 },
    { step: 10, "val/success@0.5": 0.6 },
    { step: 20, "val/success@0.5": 0.3 },
    { step: 30, "val/success@0.5": null },
    { step: 40, "val/success@0.5": 0.4 },
    // A resumed run repeats its step 40: the last value wins.
    { step: 40, "val/success@0.5": 0.5 }
  ]

  test("the curve keeps numeric evaluations by step", () => {
    expect(curveOf(lines, "val/success@0.5")).toEqual([
      { step: 0, value: 0.1 },
      { step: 10, value: 0.6 },
      { step: 20, value: 0.3 },
      { step: 40, value: 0.5 }
    ])
  })

  test("peak and last-3 mean by hand", () => {
    const curve = curveOf(lines, "val/success@0.5")
    // Peak: max(0.1, 0.6, 0.3, 0.5) = 0.6.
    expect(peakScore(curve)).toBe(0.6)
    // Last 3 by step: (0.6 + 0.3 + 0.5)/3 = 0.466667.
    expect(lastMeanScore(curve)).toBeCloseTo(1.4 / 3, 12)
    // Out of step order in the input: still the last three by step.
    expect(lastMeanScore([curve[3]!, curve[0]!, curve[2]!, curve[1]!])).toBeCloseTo(1.4 / 3, 12)
    // Fewer than 3 evaluations: the mean of those there are ((0.1 + 0.6)/2).
    expect(lastMeanScore(curve.slice(0, 2))).toBeCloseTo(0.35, 12)
    // One evaluation: both scores are that value.
    expect(peakScore(curve.slice(0, 1))).toBe(0.1)
    expect(lastMeanScore(curve.slice(0, 1))).toBe(0.1)
  })

  test("empty curves and non-finite values are errors", () => {
    expect(() => peakScore([])).toThrow("no evaluations")
    expect(() => lastMeanScore([])).toThrow("no evaluations")
    expect(() => peakScore([{ step: 0, value: Number.NaN }])).toThrow("not a finite number")
    expect(() => curveOf([{ step: 0, m: Number.POSITIVE_INFINITY }], "m")).toThrow("not a finite number")
    expect(() => lastMeanScore([{ step: 0, value: 1 }], 0)).toThrow("k must be")
  })

  test("area: the mean of the evaluations after the first step, by hand; none after it → null", () => {
    // Steps 0, 10, 20, 30 with 0.9 (the shared warm start), 0.5, 0.7, 0.6: (0.5 + 0.7 + 0.6)/3 = 0.6, whatever step 0 holds.
    const curve = [
      { step: 20, value: 0.7 },
      { step: 0, value: 0.9 },
      { step: 10, value: 0.5 },
      { step: 30, value: 0.6 }
    ]
    expect(areaScore(curve)).toBeCloseTo(0.6, 12)
    // A collapse the peak does not see: peak 0.9 either way, area 0.6 against 0.1.
    expect(areaScore(curve.map((p) => (p.step === 0 ? p : { ...p, value: 0.1 })))).toBeCloseTo(0.1, 12)
    expect(areaScore([{ step: 0, value: 0.4 }])).toBeNull()
    expect(
      areaScore([
        { step: 5, value: 0.4 },
        { step: 5, value: 0.4 }
      ])
    ).toBeNull()
    expect(() => areaScore([])).toThrow("no evaluations")
    expect(() =>
      areaScore([
        { step: 0, value: 0 },
        { step: 1, value: Number.NaN }
      ])
    ).toThrow("not a finite number")
  })
})
