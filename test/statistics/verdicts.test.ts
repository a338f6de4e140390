import { describe, expect, test } from "bun:test"
import { pairedVerdicts, pairsToReject, seedsNeededFor } from "../../plugins/leaderboard/statistics/verdicts.ts"

const up6 = [0.01, 0.02, 0.03, 0.04, 0.05, 0.06]

describe("paired verdicts (sign-flip, Holm, t interval)", () => {
  test("one comparison of 6 same-sign pairs: p = 2/64 ≤ 0.05 → better; negated → worse", () => {
    const [a] = pairedVerdicts([{ deltas: up6, seed: 1 }])
    expect(a!.p).toBeCloseTo(0.03125, 12)
    expect(a!.pHolm).toBeCloseTo(0.03125, 12)
    expect(a!.verdict).toBe("better")
    expect(a!.level).toBeCloseTo(0.95, 12)
    // t interval by hand: mean 0.035, sd 0.018708, t_{.975,5} = 2.570582: ± 0.019633.
    expect(a!.lo).toBeCloseTo(0.035 - 2.5705818 * (0.0187083 / Math.sqrt(6)), 6)
    const [b] = pairedVerdicts([{ deltas: up6.map((x) => -x), seed: 1 }])
    expect(b!.verdict).toBe("worse")
  })

  test("three such comparisons: Holm's first threshold 0.05/3 < 2/64, so n = 6 cannot separate at this family size", () => {
    const r = pairedVerdicts([0, 1, 2].map((seed) => ({ deltas: up6, seed })))
    for (const x of r) {
      expect(x.separated).toBe(false)
      expect(x.inFamily).toBe(true)
      expect(x.verdict).toBe("cannot-separate")
      expect(x.pHolm).toBeCloseTo(0.09375, 12)
    }
  })

  test("5 pairs: smallest p 0.0625 > α, out of the family at any size (Tarone), cannot-separate", () => {
    const [five, eight] = pairedVerdicts([
      { deltas: [0.1, 0.2, 0.1, 0.3, 0.2], seed: 1 },
      { deltas: [0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.1, 0.1], seed: 2 }
    ])
    expect(five!.inFamily).toBe(false)
    expect(five!.verdict).toBe("cannot-separate")
    expect(five!.pHolm).toBeNull()
    // The 8-pair one is alone in its family: p = 2/256 ≤ 0.05.
    expect(eight!.inFamily).toBe(true)
    expect(eight!.p).toBeCloseTo(2 / 256, 12)
    expect(eight!.verdict).toBe("better")
  })

  test("Holm step-down: the first rejected, the second tested at α/1 and not separated", () => {
    const [a, b] = pairedVerdicts([
      { deltas: [1, 2, 3, 4, 5, 6, 7, 8], seed: 1 },
      { deltas: [1, -1, 2, -2, 3, -3, 4, -4], seed: 2 }
    ])
    expect(a!.verdict).toBe("better")
    expect(a!.level).toBeCloseTo(1 - 0.05 / 2, 12)
    expect(b!.p).toBe(1)
    expect(b!.level).toBeCloseTo(0.95, 12)
    expect(b!.verdict).toBe("not-separated")
  })

  test("a reference (noise floor) is tested alone at α and never joins the family", () => {
    const [floor, f] = pairedVerdicts([
      { deltas: up6, seed: 1, inFamily: false },
      { deltas: up6, seed: 2 }
    ])
    expect(floor!.inFamily).toBe(false)
    expect(floor!.pHolm).toBeNull()
    expect(floor!.verdict).toBe("better")
    expect(f!.pHolm).toBeCloseTo(0.03125, 12)
  })

  test("seeds for ±5: t-based, and never below what the test needs at the family's first threshold", () => {
    // Effect size δ/sd = 0.5: the exact noncentral-t power (scipy.stats.nct) first reaches 0.8 at n = 34 (0.7954 at 33).
    expect(seedsNeededFor(0.1, "t", 0.05)).toBe(34)
    expect(seedsNeededFor(0, "t", 0.05)).toBe(2)
    // Sign-flip at α = 0.05 needs 2/2^n ≤ 0.05: n = 6; at 0.05/12: n = 9.
    expect(pairsToReject("sign-flip", 0.05)).toBe(6)
    expect(pairsToReject("sign-flip", 0.05 / 12)).toBe(9)
    expect(seedsNeededFor(0, "sign-flip", 0.05)).toBe(6)
    const [x] = pairedVerdicts([{ deltas: [0.05, 0.05, 0.05], seed: 1 }])
    expect(x!.seedsNeeded).toBe(6)
    // Three comparisons of 5 pairs: none is testable, but with more seeds all three would be: 2/2^7 ≤ 0.05/3 < 2/2^6.
    const page = pairedVerdicts([0, 1, 2].map((seed) => ({ deltas: [0.05, 0.05, 0.05, 0.05, 0.05], seed })))
    for (const v of page) expect(v.seedsNeeded).toBe(7)
  })

  test("degenerate: one pair, all equal, NaN", () => {
    const [one] = pairedVerdicts([{ deltas: [0.2], seed: 1 }])
    expect(one).toMatchObject({ n: 1, lo: null, p: null, verdict: "cannot-separate", inFamily: false })
    const [zero] = pairedVerdicts([{ deltas: [0, 0, 0, 0, 0, 0], seed: 1 }])
    expect(zero!.p).toBe(1)
    expect(zero!.verdict).toBe("not-separated")
    expect(() => pairedVerdicts([{ deltas: [0.1, Number.NaN], seed: 1 }])).toThrow("NaN")
    expect(() => pairedVerdicts([{ deltas: [0.1, 0.2], seed: 1 }], { alpha: 1 })).toThrow("alpha")
    expect(pairedVerdicts([])).toEqual([])
  })
})
