import { describe, expect, test } from "bun:test"
import { correlate, isDiagnostic, metricNames, valueAt } from "../../core/diagnostics/correlate.ts"

const lines = [
  { step: 0, "val/success@0.5": 0.2 },
  { step: 1, "mi/a": 3, x: null },
  { step: 5, "mi/a": 4 },
  { step: 10, "mi/a": 7 }
]

describe("correlate (analyze's core)", () => {
  test("valueAt: first logged, or at / latest before a step", () => {
    expect(valueAt(lines, "mi/a")).toEqual({ step: 1, value: 3 })
    expect(valueAt(lines, "mi/a", 5)).toEqual({ step: 5, value: 4 })
    expect(valueAt(lines, "mi/a", 9)).toEqual({ step: 5, value: 4 })
    expect(valueAt(lines, "mi/a", 0)).toBeUndefined()
    expect(valueAt(lines, "x")).toBeUndefined()
  })
  test("names and the diagnostic selection", () => {
    expect(metricNames([{ id: "r", lines, target: 0 }])).toEqual(["mi/a", "val/success@0.5"])
    expect(["mi/first_turn/mi_est", "reasoning/consistency", "filter/rv_mean", "policy/entropy", "train/entropy"].every(isDiagnostic)).toBe(true)
    expect(["train/success", "val/success@0.5", "perf/step_seconds"].some(isDiagnostic)).toBe(false)
  })
  test("n counts only runs that logged the metric by the step; ρ is Spearman with ties", () => {
    const runs = [
      { id: "a", lines: [{ step: 1, m: 1 }], target: 0.1 },
      { id: "b", lines: [{ step: 1, m: 2 }], target: 0.3 },
      { id: "c", lines: [{ step: 1, m: 3 }], target: 0.2 },
      { id: "d", lines: [{ step: 1, m: 4 }], target: 0.4 },
      { id: "e", lines: [{ step: 7, m: 0 }], target: 0.9 }
    ]
    const [row] = correlate(runs, ["m"], { step: 1, resamples: 200, seed: 1 })
    expect(row!.n).toBe(4)
    expect(row!.rho).toBeCloseTo(0.8, 12)
    // Four runs: resamples often repeat a run, so the 95% interval spans the whole range.
    expect([row!.lo, row!.hi]).toEqual([-1, 1])
    const [all] = correlate(runs, ["m"], { resamples: 200, seed: 1 })
    expect(all!.n).toBe(5)
    expect([all!.stepMin, all!.stepMax]).toEqual([1, 7])
    const [none] = correlate(runs, ["zzz"])
    expect(none!.n).toBe(0)
    expect(Number.isNaN(none!.rho)).toBe(true)
  })
})
