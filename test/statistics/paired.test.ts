import { describe, expect, test } from "bun:test"
import { bootstrapMeans } from "../../plugins/leaderboard/statistics/bootstrap.ts"
import { bootstrapPValue, holm, pairBySeed, pairedComparisons } from "../../plugins/leaderboard/statistics/paired.ts"
import { Rng } from "../../core/rng.ts"
import { cdf, exactBootstrapMean, naiveHolmRejects } from "./naive.ts"

/** Exact two-sided p by enumeration: 2·min(P(mean* ≤ 0), P(mean* ≥ 0)) over all n^n resamples. */
const exactP = (deltas: number[]): number => {
  const atoms = exactBootstrapMean(deltas)
  const ge = atoms.filter((a) => a.value >= -1e-12).reduce((s, a) => s + a.prob, 0)
  return Math.min(1, 2 * Math.min(cdf(atoms, 0), ge))
}

describe("paired differences against a baseline", () => {
  test("pairing by seed keeps only the seeds both have and says which are unpaired", () => {
    const a = [
      { seed: 3, value: 0.9 },
      { seed: 1, value: 0.5 },
      { seed: 2, value: 0.7 }
    ]
    const b = [
      { seed: 1, value: 0.4 },
      { seed: 2, value: 0.8 },
      { seed: 4, value: 0.1 }
    ]
    const p = pairBySeed(a, b)
    expect(p.seeds).toEqual([1, 2])
    expect(p.deltas[0]).toBeCloseTo(0.1, 12) // 0.5 − 0.4
    expect(p.deltas[1]).toBeCloseTo(-0.1, 12) // 0.7 − 0.8
    expect(p.onlyA).toEqual([3])
    expect(p.onlyB).toEqual([4])
    expect(() => pairBySeed([...a, { seed: 1, value: 0 }], b)).toThrow("seed 1 appears twice")
    expect(() => pairBySeed([{ seed: 1, value: Number.NaN }], b)).toThrow("NaN")
  })

  test("Holm on the textbook example p = [0.01, 0.04, 0.03, 0.005] at α 0.05", () => {
    // Sorted: 0.005 ≤ 0.05/4 = 0.0125 reject; 0.01 ≤ 0.05/3 = 0.0167 reject; 0.03 > 0.05/2 = 0.025 stop.
    // Adjusted: 4·0.005 = 0.02; max(0.02, 3·0.01) = 0.03; max(0.03, 2·0.03) = 0.06; max(0.06, 1·0.04) = 0.06.
    const ps = [0.01, 0.04, 0.03, 0.005]
    const h = holm(ps, 0.05)
    expect(h.map((r) => r.reject)).toEqual([true, false, false, true])
    expect(h.map((r) => r.reject)).toEqual(naiveHolmRejects(ps, 0.05))
    ;[0.03, 0.06, 0.06, 0.02].forEach((x, i) => expect(h[i]!.adjusted).toBeCloseTo(x, 12))
    // Levels 1 − α/(m − k): ranks 1, 0, 2, 3 of p → 1 − 0.05/3, 1 − 0.05/1, 1 − 0.05/2, 1 − 0.05/4.
    ;[1 - 0.05 / 3, 1 - 0.05, 1 - 0.05 / 2, 1 - 0.05 / 4].forEach((x, i) => expect(h[i]!.level).toBeCloseTo(x, 12))
    // A second textbook case: all below α but Holm stops at the first failure.
    // p = [0.02, 0.021, 0.022]: 0.02 > 0.05/3 = 0.0167 → nothing rejected, though each p < 0.05.
    expect(holm([0.02, 0.021, 0.022]).map((r) => r.reject)).toEqual([false, false, false])
    expect(holm([])).toEqual([])
    expect(() => holm([0.5, Number.NaN])).toThrow("NaN")
    expect(() => holm([1.5])).toThrow("outside [0, 1]")
  })

  test("bootstrap p matches the exact p of enumerating all n^n resamples", () => {
    // deltas [0.1, 0.2, 0.05, −0.02]: exact P(mean* ≤ 0) = 5/256 = 0.01953 → p = 0.0390625.
    for (const deltas of [
      [0.1, 0.2, 0.05, -0.02],
      [0.1, 0.15, -0.05, 0.2],
      [0.3, 0.2, 0.1, -0.25]
    ]) {
      const p = bootstrapPValue(bootstrapMeans(deltas, 20_000, new Rng(5)))
      // Monte Carlo sd of a proportion near 0.04 at B = 20000 is 0.0014; of 0.48, 0.0035 (times 2 for p).
      expect(Math.abs(p - exactP(deltas))).toBeLessThan(0.012)
    }
    expect(exactP([0.1, 0.2, 0.05, -0.02])).toBeCloseTo(0.0390625, 12)
    // All differences zero: every resample mean is 0, p = 1.
    expect(bootstrapPValue(new Float64Array(100))).toBe(1)
    // Float noise around 0 counts as 0: means of ±1e-17 are ties with 0 (p = 1, not about ½).
    expect(bootstrapPValue(Float64Array.from([-0.1, -1e-17, -1e-17, 1e-17, 0.1]))).toBe(1)
    // All resample means positive: p = 2·(1 + 0)/(B + 1), never 0.
    expect(bootstrapPValue(new Float64Array(99).fill(0.1))).toBeCloseTo(0.02, 12)
  })

  test("a family: separated only where Holm rejects; p < 0.05 alone is not enough; intervals at the Holm level", () => {
    const family = [
      { deltas: [0.1, 0.2, 0.05, -0.02], seed: "A" }, // exact p 0.039
      { deltas: [0.1, 0.12, 0.08, 0.11, 0.09], seed: "B" }, // every difference positive: p = 2/(B + 1)
      { deltas: [0.3, 0.2, 0.1, -0.25], seed: "C" }, // exact p 0.477
      { deltas: [0.01, -0.01, 0.02, -0.02], seed: "floor", inFamily: false }, // a reference
      { deltas: [0.4], seed: "one" } // one pair
    ]
    const r = pairedComparisons(family)
    const [a, b, c, floor, one] = r
    // Holm over m = 3 (A, B, C): B 0.0002 ≤ 0.05/3 reject; A 0.039 > 0.05/2 stop.
    expect(a!.p!).toBeLessThan(0.05)
    expect(a!.separated).toBe(false)
    expect(b!.separated).toBe(true)
    expect(c!.separated).toBe(false)
    expect(r.map((x) => x.separated)).toEqual(naiveHolmRejects([a!.p!, b!.p!, c!.p!], 0.05).concat([false, false]))
    expect(b!.level).toBeCloseTo(1 - 0.05 / 3, 12)
    expect(a!.level).toBeCloseTo(1 - 0.05 / 2, 12)
    expect(c!.level).toBeCloseTo(1 - 0.05, 12)
    expect(a!.pHolm!).toBeCloseTo(Math.max(3 * b!.p!, 2 * a!.p!), 12)
    // Separated ⇔ the Holm-level interval excludes 0, here.
    for (const x of [a!, b!, c!]) expect(x.separated).toBe(x.lo! > 0 || x.hi! < 0)
    // The same deltas with their unadjusted 95% interval: A's excludes 0, its Holm interval does not.
    const alone = pairedComparisons([{ deltas: family[0]!.deltas, seed: "A", inFamily: false }])[0]!
    expect(alone.lo!).toBeGreaterThan(0)
    expect(a!.lo!).toBeLessThanOrEqual(0)
    // The reference: 95% interval, a p, never Holm-adjusted or separated.
    expect(floor!.inFamily).toBe(false)
    expect(floor!.level).toBe(0.95)
    expect(floor!.pHolm).toBeNull()
    expect(floor!.separated).toBe(false)
    expect(floor!.mean).toBeCloseTo(0, 12)
    // One pair: a mean, nothing else.
    expect(one).toEqual({
      n: 1,
      mean: 0.4,
      sd: null,
      lo: null,
      hi: null,
      level: 0.95,
      p: null,
      pHolm: null,
      separated: false,
      inFamily: false,
      seedsNeeded: null,
      note: "one pair: no interval, p or power"
    })
    // sd of B's deltas by hand: mean 0.1, squares 0 + 0.0004 + 0.0004 + 0.0001 + 0.0001 = 0.001, /4 → sd 0.0158114.
    expect(b!.sd!).toBeCloseTo(0.0158114, 6)
    // seeds: (2.801585·0.0158114/0.05)² = 0.785 → at least 2.
    expect(b!.seedsNeeded).toBe(2)
    // Deterministic: the same family gives the same numbers.
    expect(pairedComparisons(family)).toEqual(r)
  })

  test("property: a separated comparison's Holm-level interval always excludes 0", () => {
    // Random families of 2–8 comparisons of 2–8 pairs, some shifted away from 0 (an argument from the
    // definitions: p ≤ α' means fewer than (B − 1)·α'/2 resample means are ≤ 0, so the α'/2 quantile is > 0).
    const rng = new Rng(21)
    let separated = 0
    for (let f = 0; f < 40; f++) {
      const family = Array.from({ length: 2 + rng.int(7) }, (_, i) => {
        const shift = rng.bool(0.5) ? 0.1 * (rng.bool() ? 1 : -1) : 0
        return { deltas: Array.from({ length: 2 + rng.int(7) }, () => shift + 0.05 * rng.normal()), seed: `${f}:${i}` }
      })
      for (const r of pairedComparisons(family, { resamples: 2000 })) {
        if (!r.separated) continue
        separated++
        expect(r.lo! > 0 || r.hi! < 0).toBe(true)
      }
    }
    expect(separated).toBeGreaterThan(10)
  })

  test("degenerate: all differences equal → zero-width interval; NaN and empty rejected", () => {
    const [same] = pairedComparisons([{ deltas: [0.1, 0.1, 0.1], seed: 1 }])
    expect(same!.lo).toBeCloseTo(0.1, 12)
    expect(same!.hi).toBe(same!.lo)
    expect(same!.sd).toBe(0)
    const [zero] = pairedComparisons([{ deltas: [0, 0, 0], seed: 1 }])
    expect(zero!.p).toBe(1)
    expect(zero!.separated).toBe(false)
    expect(() => pairedComparisons([{ deltas: [0.1, Number.NaN], seed: 1 }])).toThrow("NaN")
    expect(() => pairedComparisons([{ deltas: [], seed: 1 }])).toThrow("empty sample")
  })
})
