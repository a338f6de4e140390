/**
 * The verdict procedure (plugins/leaderboard/statistics/verdicts.ts) on simulated nulls at
 * n = 3…12 seeds: one comparison, and pages of 6, 12 or 24 comparisons with Holm. Seeded, so
 * the figures are the same on every run; the Monte Carlo standard error (MCSE) of a rate r over
 * R repetitions is √(r(1−r)/R), and each bound below allows 3 of them above α. The full table
 * (every distribution × n, both tests, more repetitions) is docs/leaderboard.md's, from
 * `bun plugins/leaderboard/statistics/calibration-table.ts`.
 */
import { describe, expect, test } from "bun:test"
import { calibrateSingle, mcse, NULLS, pageRejectionRate } from "../../plugins/leaderboard/statistics/calibration.ts"

const ALPHA = 0.05
const NS = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
const SINGLE_REPS = 2000
const PAGE_REPS = 300
const PAGE_SIZES = [6, 12, 24]
const symmetric = NULLS.filter((d) => !d.asymmetric)
const asymmetric = NULLS.filter((d) => d.asymmetric)

describe("calibration of the verdicts on simulated nulls", () => {
  // Computed once for the first two tests (a few seconds of CPU).
  const single = NULLS.flatMap((d) => NS.map((n) => calibrateSingle(d, n, SINGLE_REPS, ALPHA)))

  // The t interval over-covers under heavy tails (t, 3 df: up to 97.3% at n = 3–5 in the full
  // table): conservative, so the upper side allows 3 points; it never falls 2 points short.
  test("one comparison: false-positive rate ≤ α within 3 MCSE, t interval coverage ≥ 93% and ≤ 98% (symmetric nulls)", () => {
    const bound = ALPHA + 3 * mcse(ALPHA, SINGLE_REPS) // 0.0646 at R = 2000
    for (const c of single.filter((x) => symmetric.some((d) => d.name === x.distribution))) {
      expect({ ...c, ok: c.fprSignFlip <= bound }).toMatchObject({ ok: true })
      expect({ ...c, ok: c.coverageT >= 0.93 && c.coverageT <= 0.98 }).toMatchObject({ ok: true })
    }
    // Pooled over the n that can reject at all (6…12): 28 000 nulls, MCSE 0.0013.
    const pooled = single.filter((x) => x.n >= 6 && symmetric.some((d) => d.name === x.distribution))
    const rate = pooled.reduce((a, c) => a + c.fprSignFlip, 0) / pooled.length
    expect(rate).toBeLessThanOrEqual(ALPHA + 3 * mcse(ALPHA, pooled.length * SINGLE_REPS))
    expect(rate).toBeGreaterThan(0.02) // the test is not vacuous: it does reject nulls at about its level
  })

  test("skewed differences (no symmetry): neither test holds α; the sign-flip's rate is never above the t-test's by more than 3 MCSE", () => {
    for (const c of single.filter((x) => asymmetric.some((d) => d.name === x.distribution))) {
      expect({ ...c, ok: c.fprSignFlip <= c.fprT + 3 * mcse(c.fprT, SINGLE_REPS) }).toMatchObject({ ok: true })
    }
  })

  test("pages of 6–24 null comparisons with Holm: family-wise false-positive rate ≤ α within MCSE", () => {
    const rates = symmetric.flatMap((d) => NS.map((n, i) => ({ d: d.name, n, m: PAGE_SIZES[i % 3]!, rate: pageRejectionRate(d, n, PAGE_SIZES[i % 3]!, PAGE_REPS, "sign-flip") })))
    for (const r of rates) expect({ ...r, ok: r.rate <= ALPHA + 3.5 * mcse(ALPHA, PAGE_REPS) }).toMatchObject({ ok: true })
    // 5 pairs or fewer: the smallest sign-flip p is 1/16 > α, so nothing on such a page can be separated.
    for (const r of rates.filter((x) => x.n <= 5)) expect(r.rate).toBe(0)
    const reachable = rates.filter((x) => x.n >= 6)
    const pooled = reachable.reduce((a, r) => a + r.rate, 0) / reachable.length
    expect(pooled).toBeLessThanOrEqual(ALPHA + 3 * mcse(ALPHA, reachable.length * PAGE_REPS))
  }, 120_000)
})
