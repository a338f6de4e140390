import { describe, expect, test } from "bun:test"
import { collapseCheck } from "../../core/diagnostics/collapse.ts"

const hist = (mi: number[], ent: number[], extra: (i: number) => Record<string, number> = () => ({})) =>
  mi.map((m, i) => ({ step: i + 1, "mi/first_turn/mi_est": m, "train/entropy": ent[i]!, ...extra(i) }))

describe("collapseCheck", () => {
  test("warns when MI falls ≥ 20% from its best while entropy holds", () => {
    const c = collapseCheck(hist([1.0, 1.1, 0.85], [1.0, 1.0, 1.05]))
    expect(c.warning).toBe(true)
    expect(c.reason).toContain("mi/first_turn/mi_est")
    expect(c.stop).toBe(false)
  })
  test("no warning when entropy falls too (low-entropy collapse) or MI holds", () => {
    expect(collapseCheck(hist([1.0, 1.1, 0.85], [1.0, 1.0, 0.5])).warning).toBe(false)
    expect(collapseCheck(hist([1.0, 1.1, 1.0], [1.0, 1.0, 1.0])).warning).toBe(false)
    expect(collapseCheck([]).warning).toBe(false)
  })
  test("thresholds are options; the probe MI is preferred when logged", () => {
    expect(collapseCheck(hist([1.0, 0.95], [1, 1]), { miDrop: 0.04 }).warning).toBe(true)
    const h = hist([1.0, 0.5], [1, 1], (i) => ({ "mi/probe_first_turn/mi_est": [1, 0.99][i]! }))
    expect(collapseCheck(h).warning).toBe(false)
  })
  test("fact accuracy falling by ≥ factDrop warns", () => {
    const h = [{ step: 1, "reasoning/fact_accuracy": 0.99 }, { step: 2, "reasoning/fact_accuracy": 0.7 }]
    const c = collapseCheck(h)
    expect(c.warning).toBe(true)
    expect(c.reason).toContain("reasoning/fact_accuracy")
    expect(collapseCheck(h, { factDrop: 0.5 }).warning).toBe(false)
  })
  test("early stopping: reward-variance collapse for K consecutive steps, low validation success after warm-up", () => {
    const rv = [0.5, 0.01, 0.01, 0.01].map((v, i) => ({ step: i + 1, "filter/rv_mean": v }))
    expect(collapseCheck(rv).stop).toBe(false) // off by default
    expect(collapseCheck(rv, { rvThreshold: 0.05, rvPatience: 3 }).stop).toBe(true)
    expect(collapseCheck(rv, { rvThreshold: 0.05, rvPatience: 4 }).stop).toBe(false)
    const val = [{ step: 10, "val/success@0.5": 0.1 }, { step: 60, "val/success@0.5": 0.1 }]
    expect(collapseCheck(val.slice(0, 1), { valThreshold: 0.2 }).stop).toBe(false)
    const c = collapseCheck(val, { valThreshold: 0.2 })
    expect(c.stop).toBe(true)
    expect(c.stopReason).toContain("val/success@0.5")
  })
})
