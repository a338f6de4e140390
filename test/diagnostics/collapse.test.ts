import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { collapseAnnouncement, collapseCheck, CollapseThresholds, referenceEarlyStop } from "../../core/diagnostics/collapse.ts"
import { decodeSync } from "../../core/schema/decode.ts"

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
    const h = [
      { step: 1, "reasoning/fact_accuracy": 0.99 },
      { step: 2, "reasoning/fact_accuracy": 0.7 }
    ]
    const c = collapseCheck(h)
    expect(c.warning).toBe(true)
    expect(c.reason).toContain("reasoning/fact_accuracy")
    expect(collapseCheck(h, { factDrop: 0.5 }).warning).toBe(false)
  })
  test("kinds: template collapse and reasoning fidelity are told apart", () => {
    const h = hist([1.0, 1.1, 0.85], [1, 1, 1], (i) => ({ "reasoning/fact_accuracy": [0.99, 0.9, 0.5][i]! }))
    expect(collapseCheck(h).kinds).toEqual(["template-collapse", "reasoning-fidelity"])
    expect(collapseCheck(hist([1.0, 1.1, 0.85], [1, 1, 1])).kinds).toEqual(["template-collapse"])
    expect(collapseCheck([]).kinds).toEqual([])
  })
  test("the warning is announced when it first appears or changes kind, not on every step", () => {
    // docs/design.md §10's collapse: fact accuracy 0.99 → 0.16 over steps while MI holds.
    const fact = [0.99, 0.99, 0.7, 0.5, 0.3, 0.16]
    const lines = fact.map((f, i) => ({ step: i + 1, "reasoning/fact_accuracy": f, "mi/first_turn/mi_est": i < 5 ? 1 : 0.7, "train/entropy": 1 }))
    let prev: ReturnType<typeof collapseCheck> | undefined
    const printed: Array<[number, string]> = []
    for (let i = 0; i < lines.length; i++) {
      const cur = collapseCheck(lines.slice(0, i + 1))
      const line = collapseAnnouncement(prev, cur)
      if (line) printed.push([i + 1, line.split(":")[1]!.trim()])
      prev = cur
    }
    // Step 3: fidelity first (0.99 → 0.7); steps 4–5 the same kind (silent); step 6 template collapse joins.
    expect(printed).toEqual([
      [3, "reasoning fidelity"],
      [6, "template collapse"]
    ])
  })
  test("early stopping is off by default; unknown threshold keys are rejected (strict)", () => {
    const rv = Array.from({ length: 30 }, (_, i) => ({ step: i + 1, "filter/rv_mean": i < 10 ? 1 : 0.01, "filter/empty": 1, "val/success@0.5": 0 }))
    expect(collapseCheck(rv).stop).toBe(false)
    const bad = decodeSync(CollapseThresholds, { rvFractoin: 0.1 })
    expect(bad.ok).toBe(false)
    expect(bad.ok ? "" : bad.message).toContain("rvFraction")
    expect(Schema.decodeUnknownSync(CollapseThresholds)(referenceEarlyStop)).toMatchObject(referenceEarlyStop)
  })
  test("reward variance below 0.1× its baseline (mean of the first 10 non-empty steps) for 10 steps stops", () => {
    const series = (tail: number[], empties: number[] = []) => [...Array(10).fill(0.5), ...tail].map((v, i) => ({ step: i + 1, "filter/rv_mean": v, "filter/empty": empties.includes(i + 1) ? 1 : 0 }))
    const low = Array(10).fill(0.04) // 0.04 < 0.1 × 0.5
    expect(collapseCheck(series(low), referenceEarlyStop).stop).toBe(true)
    expect(collapseCheck(series(low), referenceEarlyStop).stopKinds).toEqual(["reward-variance"])
    expect(collapseCheck(series(low.slice(1)), referenceEarlyStop).stop).toBe(false) // 9 steps
    expect(collapseCheck(series([...low.slice(0, 9), 0.06]), referenceEarlyStop).stop).toBe(false) // last at 0.06 ≥ 0.05
    // Empty steps do not count: the 10th low value sits on an empty step, so only 9 non-empty lows.
    expect(collapseCheck(series(low, [20]), { rvFraction: 0.1 }).stop).toBe(false)
    // Absolute variant.
    expect(collapseCheck(series(low), { rvThreshold: 0.05 }).stop).toBe(true)
  })
  test("N consecutive empty-filter steps stop (reference: 5)", () => {
    const e = (flags: number[]) => flags.map((f, i) => ({ step: i + 1, "filter/empty": f }))
    expect(collapseCheck(e([0, 1, 1, 1, 1, 1]), referenceEarlyStop).stopKinds).toEqual(["empty-filter"])
    expect(collapseCheck(e([1, 1, 1, 1, 0, 1]), referenceEarlyStop).stop).toBe(false)
    expect(collapseCheck(e([1, 1]), { emptyPatience: 2 }).stop).toBe(true)
  })
  test("validation success below 0.01 at 5 consecutive validations stops (reference)", () => {
    const v = (xs: number[]) => xs.map((x, i) => ({ step: 10 * (i + 1), "val/success@0.5": x }))
    expect(collapseCheck(v([0, 0, 0, 0, 0]), referenceEarlyStop).stopKinds).toEqual(["low-validation"])
    expect(collapseCheck(v([0, 0, 0, 0, 0.02]), referenceEarlyStop).stop).toBe(false)
    expect(collapseCheck(v([0, 0.5, 0, 0, 0, 0]), referenceEarlyStop).stop).toBe(false)
    const c = collapseCheck(v([0, 0, 0]), { valThreshold: 0.2, valPatience: 3 })
    expect(c.stop).toBe(true)
    expect(c.stopReason).toContain("val/success@0.5")
    // Warm-up: validations before valWarmup do not count.
    expect(collapseCheck(v([0, 0, 0]), { valThreshold: 0.2, valPatience: 3, valWarmup: 20 }).stop).toBe(false)
  })
})
