/**
 * Does training without a filter rise above where it started? Per seed, a score (the area under the
 * validation curve, or last-3) minus the same run's step-0 success (the shared warm start validated
 * by that seed's sampling stream), tested with the page's calibrated paired test: the exact
 * sign-flip test of mean 0, with a 95% t interval. "Rises" when the mean is above 0 and p ≤ α;
 * "does not rise" when it is not although n could have shown it; undecided when n is too small
 * for the test ever to reach α (a 2-seed page is not told its env cannot learn).
 *
 * Used by the leaderboard (rows where none does not rise leave IQM, P(improvement) and the
 * ranking: docs/decisions.md#issue-25) and by plugins/leaderboard/analysis/learning.ts.
 */
import { signFlipTest, tInterval } from "./paired-tests.ts"

export interface Rise {
  readonly n: number
  readonly mean: number
  /** 95% t interval; null with one seed. */
  readonly lo: number | null
  readonly hi: number | null
  readonly p: number
  /** true: rises; false: does not, at a testable n; null: n too small to tell. */
  readonly rises: boolean | null
}

export const riseOf = (deltas: ReadonlyArray<number>, alpha = 0.05, seed: number | string = "rise"): Rise | null => {
  const xs = deltas.filter((x) => Number.isFinite(x))
  if (xs.length === 0) return null
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length
  const ci = xs.length >= 2 ? tInterval(xs, 0.95) : null
  const test = signFlipTest(xs, { seed })
  const rises = test.minP > alpha ? null : mean > 0 && test.p <= alpha
  return { n: xs.length, mean, lo: ci?.lo ?? null, hi: ci?.hi ?? null, p: test.p, rises }
}

/** None's rise to the area: area − step-0 success per run, where both are known. */
export const areaRiseOf = (runs: ReadonlyArray<{ readonly auc: number | null; readonly start: number | null }>, alpha = 0.05, seed: number | string = "none-rise"): Rise | null =>
  riseOf(
    runs.flatMap((r) => (r.auc !== null && r.start !== null ? [r.auc - r.start] : [])),
    alpha,
    seed
  )

/** "+4.7 points [1.8, 7.1], p = 0.004 (n = 12)". */
export const riseText = (r: Rise): string => {
  // Rounded first, so that a mean of −0.0001 reads "+0.0", not "-0.0".
  const pts = (x: number) => (Math.round(1000 * x) / 10 || 0).toFixed(1)
  const interval = r.lo === null || r.hi === null ? "" : ` [${pts(r.lo)}, ${pts(r.hi)}]`
  const mean = pts(r.mean)
  return `${mean.startsWith("-") ? "" : "+"}${mean} points${interval}, p = ${r.p < 0.001 ? r.p.toExponential(1) : r.p.toFixed(3)} (n = ${r.n})`
}
