import { describe, expect, test } from "bun:test"
import { c1TopPRaisesSuccess, c4QuartilesDecline, c5PromptBeatsTrajectory, c6AdvantageShrinksWithSlip } from "../../plugins/leaderboard/replication/filter-claims.ts"
import { type Fake, jitter, numbersIn, LINEAR_TOP_P, NONE, PAPER_TOP_P, quartile, rising, views, WITHIN_GROUP } from "./fixtures.ts"

// Eight seeds: with two settings (Holm over 2) the exact sign-flip test needs 7 same-sign pairs (2/2^7 ≤ 0.05/2).
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8]
const ENVS = [
  { env: "envs/sokoban-v1", base: 0.3 },
  { env: "envs/frozenlake-v1", base: 0.6, envOptions: { successRate: 1 } }
]

/** none and the paper's top-p on two envs, top-p's peak = none's + delta (± a small seed jitter). */
const c1Runs = (delta: number, seeds = SEEDS, envs = ENVS): Fake[] =>
  envs.flatMap((e, ei) =>
    seeds.flatMap((seed) => [
      { env: e.env, envOptions: e.envOptions, ...NONE, seed, success: rising(e.base + jitter(seed, ei, 0.05)) },
      { env: e.env, envOptions: e.envOptions, ...PAPER_TOP_P, seed, success: rising(e.base + jitter(seed, ei, 0.05) + delta + jitter(seed, ei + 7, 0.01)) }
    ])
  )

describe("C1: top-p raises average success (Table 4)", () => {
  test("top-p 0.1 above none on every seed: reproduced in each setting, the mean area difference by hand", () => {
    const r = c1TopPRaisesSuccess(views(c1Runs(0.1)))
    expect(r.verdict.kind).toBe("reproduced")
    expect(r.verdict.n).toBe(16)
    expect(r.verdict.why).toContain("in each of 2 settings")
    // The area of rising(peak) is the mean of (0.7, 0.8, 0.9, 1)·peak = 0.85·peak: each pair's area difference is 0.85·(0.1 ± 0.01).
    const [value, lo, hi] = numbersIn(r.numbers[0]!)
    expect(r.numbers[0]).toStartWith("Δ area")
    expect(value!).toBeCloseTo(0.085, 2)
    expect(lo!).toBeGreaterThan(0.075)
    expect(hi!).toBeLessThan(0.095)
    // The stratified sign-flip p: 16 same-sign pairs, 2/2^16.
    expect(r.numbers[0]).toEndWith("p <0.001")
    expect(r.numbers[2]).toStartWith("Δ peak (paper's) +0.1")
    expect(r.runs.length).toBe(32)
    expect(r.n).toBe("16 seed pairs over 2 settings")
  })

  test("top-p 0.1 below none: not reproduced", () => {
    expect(c1TopPRaisesSuccess(views(c1Runs(-0.1))).verdict.kind).toBe("not reproduced")
  })

  test("mixed signs across seeds: inconclusive at n", () => {
    const runs = c1Runs(0).map((f, i) => (f.filter === PAPER_TOP_P.filter ? { ...f, success: rising(Math.max(...f.success) + (i % 4 < 2 ? 0.1 : -0.1)) } : f))
    const r = c1TopPRaisesSuccess(views(runs))
    expect(r.verdict.kind).toBe("inconclusive")
    expect(r.verdict.n).toBe(16)
  })

  test("open in every setting but the pooled difference against the claim: not supported, never inconclusive", () => {
    // Six seeds per setting cannot pass Holm over 2 (2/2^6 > 0.05/2), but the 12 pooled pairs, all against top-p, give 2/2^12.
    const r = c1TopPRaisesSuccess(views(c1Runs(-0.1, [1, 2, 3, 4, 5, 6])))
    expect(r.verdict.kind).toBe("not supported")
    expect(r.verdict.why).toContain("pooled over the settings lies below 0, against the claim")
    expect(r.numbers[0]).toStartWith("Δ area −0.08")
    // The same pooled difference in the claim's direction stays inconclusive: reproduced needs every setting.
    expect(c1TopPRaisesSuccess(views(c1Runs(0.1, [1, 2, 3, 4, 5, 6]))).verdict.kind).toBe("inconclusive")
  })

  test("two seed pairs: inconclusive at n = 2 even though both favour top-p", () => {
    const r = c1TopPRaisesSuccess(views(c1Runs(0.2, [1, 2], ENVS.slice(0, 1))))
    expect(r.verdict).toMatchObject({ kind: "inconclusive", n: 2 })
  })

  test("two settings of six seeds cannot separate under Holm over 2 (2/2^6 > 0.05/2), though all favour top-p; seven can", () => {
    const six = [1, 2, 3, 4, 5, 6]
    const r = c1TopPRaisesSuccess(views(c1Runs(0.2, six)))
    expect(r.verdict).toMatchObject({ kind: "inconclusive", n: 12, perSetting: 6 })
    expect(r.verdict.why).toContain("no setting can separate")
    expect(c1TopPRaisesSuccess(views(c1Runs(0.2, [...six, 7]))).verdict).toMatchObject({ kind: "reproduced", n: 14 })
  })

  test("holding in one setting and contradicted in the other: mixed", () => {
    const runs = c1Runs(0.1).map((f) => (f.filter === PAPER_TOP_P.filter && f.env === ENVS[1]!.env ? { ...f, success: f.success.map((x) => x - 0.2) } : f))
    expect(c1TopPRaisesSuccess(views(runs)).verdict.kind).toBe("mixed")
  })

  test("no top-p runs: not run; the noise floor and failed runs never count", () => {
    expect(c1TopPRaisesSuccess(views(c1Runs(0.1).filter((f) => f.filter === "filters/none"))).verdict.kind).toBe("not run")
    // The same runs on another sampling stream (the noise floor), or failed: nothing to compare.
    const floor = c1Runs(0.1).map((f) => ({ ...f, train: { samplingStream: 1 } }))
    expect(c1TopPRaisesSuccess(views(floor)).verdict.kind).toBe("not run")
    const failed = c1Runs(0.1).map((f) => ({ ...f, status: "failed" as const }))
    expect(c1TopPRaisesSuccess(views(failed)).verdict.kind).toBe("not run")
  })

  test("Table 4's nofilter arm (top-p-softmax 1.0, include zero) is the baseline; runs of other settings never pair", () => {
    const nofilter = c1Runs(0.1).map((f) => (f.filter === "filters/none" ? { ...f, filter: "filters/top-p-softmax", filterOptions: { p: 1, includeZero: true } } : f))
    expect(c1TopPRaisesSuccess(views(nofilter)).verdict.kind).toBe("reproduced")
    // top-p at another learning rate than none: no pair.
    const apart = c1Runs(0.1).map((f) => (f.filter === PAPER_TOP_P.filter ? { ...f, lr: 1e-3 } : f))
    expect(c1TopPRaisesSuccess(views(apart)).verdict.kind).toBe("not run")
  })
})

describe("C5: prompt-level beats trajectory-level filtering (Table 7)", () => {
  const runs = (delta: number, seeds = [1, 2, 3, 4, 5, 6]): Fake[] =>
    seeds.flatMap((seed) => [
      { ...LINEAR_TOP_P, seed, success: rising(0.3 + jitter(seed, 1, 0.05) + delta) },
      { ...WITHIN_GROUP, seed, success: rising(0.3 + jitter(seed, 1, 0.05) + jitter(seed, 2, 0.01)) },
      { ...NONE, seed, success: rising(0.9) }
    ])
  test("top-p above within-group: reproduced; below: not reproduced", () => {
    expect(c5PromptBeatsTrajectory(views(runs(0.1))).verdict.kind).toBe("reproduced")
    expect(c5PromptBeatsTrajectory(views(runs(-0.1))).verdict.kind).toBe("not reproduced")
  })
  test("two seeds: inconclusive; no within-group runs: not run", () => {
    expect(c5PromptBeatsTrajectory(views(runs(0.1, [1, 2]))).verdict).toMatchObject({ kind: "inconclusive", n: 2 })
    expect(c5PromptBeatsTrajectory(views(runs(0.1).filter((f) => f.filter !== WITHIN_GROUP.filter))).verdict.kind).toBe("not run")
  })
})

describe("C4: success and MI fall from Q1 to Q4 (Table 6)", () => {
  /** Quartile k's success and final MI: base − slope·k (slope > 0: falls from Q1 to Q4). */
  const runs = (slope: number, miSlope: number, seeds = [1, 2, 3, 4, 5, 6]): Fake[] =>
    seeds.flatMap((seed) =>
      [1, 2, 3, 4].map((k) => ({
        ...quartile(k),
        seed,
        success: rising(0.5 - slope * k + jitter(seed, k, 0.01)),
        curves: { "mi/first_turn/mi_est": [null, 1.5 - miSlope * k, 1.5 - miSlope * k, 1.5 - miSlope * k + jitter(seed, k, 0.01), 1.5 - miSlope * k] }
      }))
    )
  test("both fall: reproduced, with Q1 − Q4 of the area 0.85·3·slope and of the peak 3·slope", () => {
    const r = c4QuartilesDecline(views(runs(0.05, 0.2)))
    expect(r.verdict.kind).toBe("reproduced")
    expect(r.numbers[0]).toMatch(/^Q1 − Q4 area \+0\.12\d/)
    expect(r.numbers[2]).toMatch(/^Q1 − Q4 peak \(paper's\) \+0\.1[45]\d/)
    expect(r.numbers[3]).toMatch(/^Q1 − Q4 final MI \+0\.(59\d|60\d)/)
  })
  test("success rises from Q1 to Q4: not reproduced; MI rising alone: not reproduced", () => {
    expect(c4QuartilesDecline(views(runs(-0.05, 0.2))).verdict.kind).toBe("not reproduced")
    expect(c4QuartilesDecline(views(runs(0.05, -0.2))).verdict.kind).toBe("not reproduced")
  })
  test("two seeds: inconclusive; no Q4 runs: not run", () => {
    expect(c4QuartilesDecline(views(runs(0.05, 0.2, [1, 2]))).verdict).toMatchObject({ kind: "inconclusive", n: 2 })
    expect(c4QuartilesDecline(views(runs(0.05, 0.2).filter((f) => f.filterOptions?.lo !== 0.75))).verdict.kind).toBe("not run")
  })
})

describe("C6: top-p's advantage shrinks as slip rises (Fig. 9)", () => {
  const SLIPS = [0, 0.2, 0.5, 0.8, 1]
  /** Δ(top-p − none) at slip x = a + b·x. */
  const runs = (a: number, b: number, seeds = [1, 2, 3], slips = SLIPS): Fake[] =>
    slips.flatMap((slip, si) =>
      seeds.flatMap((seed) => [
        { env: "envs/frozenlake-v1", envOptions: { successRate: 1 - slip }, algo: "algorithms/grpo", ...NONE, seed, success: rising(0.6 - 0.4 * slip + jitter(seed, si, 0.02)) },
        {
          env: "envs/frozenlake-v1",
          envOptions: { successRate: 1 - slip },
          algo: "algorithms/grpo",
          ...LINEAR_TOP_P,
          seed,
          success: rising(0.6 - 0.4 * slip + jitter(seed, si, 0.02) + a + b * slip + jitter(seed, si + 11, 0.01))
        }
      ])
    )
  test("Δ = 0.1 − 0.1·slip: reproduced on the area, slope about −0.085 (the area of rising(peak) is 0.85·peak); the peak's slope beside it", () => {
    const r = c6AdvantageShrinksWithSlip(views(runs(0.1, -0.1)))
    expect(r.verdict.kind).toBe("reproduced")
    expect(r.verdict.why).toContain("the slope of the area difference")
    expect(r.numbers[0]).toMatch(/^slope of Δ area per unit slip −0\.0[789]\d/)
    expect(r.numbers[3]).toMatch(/^slope of Δ peak \(paper's\) per unit slip −0\.(09|10|11)\d/)
    expect(r.n).toBe("15 seed pairs over 5 slips (1 family)")
  })
  test("an advantage that grows with slip: not reproduced", () => {
    expect(c6AdvantageShrinksWithSlip(views(runs(0, 0.1))).verdict.kind).toBe("not reproduced")
  })
  test("two families (two lrs): each per-slip row names its lr and slip", () => {
    const both = [...runs(0.1, -0.1), ...runs(0.1, -0.1).map((f) => ({ ...f, lr: 1e-3 }))]
    const r = c6AdvantageShrinksWithSlip(views(both))
    expect(r.n).toBe("30 seed pairs over 5 slips (2 families)")
    const rows = r.details
      .join("\n")
      .split("\n")
      .filter((l) => l.startsWith("| frozenlake"))
    expect(rows.length).toBe(10)
    expect(new Set(rows.map((l) => l.split(" | ")[0])).size).toBe(10)
    expect(rows.filter((l) => l.includes("lr=0.001")).length).toBe(5)
  })
  test("one seed at two slips: inconclusive at n = 2; one slip only: not run", () => {
    expect(c6AdvantageShrinksWithSlip(views(runs(0.1, -0.1, [1], [0, 1]))).verdict).toMatchObject({ kind: "inconclusive", n: 2 })
    expect(c6AdvantageShrinksWithSlip(views(runs(0.1, -0.1, [1, 2, 3], [0]))).verdict.kind).toBe("not run")
  })
})
