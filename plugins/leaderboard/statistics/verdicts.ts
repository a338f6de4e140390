/**
 * The leaderboard's verdict on each paired comparison against `none`, and the page's family.
 *
 * - p: the paired test chosen by the calibration (calibration.ts; docs/leaderboard.md shows the
 *   table): PAIRED_TEST.
 * - Family: Holm's step-down procedure over the page's comparisons (plugins/leaderboard/statistics/paired.ts
 *   `holm`). A comparison whose smallest attainable p is above α can never be rejected, at any
 *   family size; it leaves the family, so that it does not make the others pay for it (Tarone,
 *   "A modified Bonferroni method for discrete data", Biometrics 1990: only testable hypotheses
 *   count). With the sign-flip test that is every comparison of ≤ 5 pairs.
 * - Interval: the t interval at the comparison's Holm level (95% outside the family).
 * - Verdict: better / worse when Holm rejects (by the sign of the mean); cannot-separate when even
 *   the most extreme result at its n could not have passed — its smallest attainable p is above
 *   the most lenient threshold Holm reached on this page, α/(m − r) with r rejections; else
 *   not-separated.
 * - A reference (the noise floor) is tested alone at α and never joins the family.
 */
import { holm } from "./paired.ts"
import { type PowerOptions, seedsForPower } from "./power.ts"
import { checkLevel, checkSample } from "./check.ts"
import { pairedTTest, signFlipTest, type TestResult, tInterval } from "./paired-tests.ts"
import { tQuantile } from "./student-t.ts"

export type PairedTest = "sign-flip" | "t"

/** The test every leaderboard and replication p-value uses (chosen by calibration.ts; see its header). */
export const PAIRED_TEST: PairedTest = "sign-flip"

export type Verdict = "better" | "worse" | "not-separated" | "cannot-separate"

export interface VerdictComparison {
  /** Per-seed differences (filter − baseline). */
  readonly deltas: ReadonlyArray<number>
  /** Seed of a Monte Carlo sign-flip stream (beyond 16 pairs). */
  readonly seed: number | string
  /** False for a reference (the noise floor): tested alone at α, never in the family. Default true. */
  readonly inFamily?: boolean
}

export interface VerdictResult {
  readonly n: number
  readonly mean: number
  /** Unbiased sd of the differences; null with one pair. */
  readonly sd: number | null
  /** The t interval at `level`; null with one pair. */
  readonly lo: number | null
  readonly hi: number | null
  readonly level: number
  /** Two-sided p of PAIRED_TEST (null with one pair) and Holm-adjusted (null outside the family). */
  readonly p: number | null
  readonly pHolm: number | null
  /** The smallest p the test can give at this n. */
  readonly minP: number | null
  readonly separated: boolean
  readonly inFamily: boolean
  readonly verdict: Verdict
  /**
   * Seeds to detect a 5-point difference at 80% power under the page's Holm: the two-sided test at
   * the page's first Holm threshold α/m (m: the page's comparisons with two pairs or more), never
   * below what the test needs to reject there at all. Not the unadjusted α: a comparison among m
   * must pass α/m when the others are null. A reference (the noise floor), tested alone, at α.
   */
  readonly seedsNeeded: number | null
  readonly note?: string
}

export interface VerdictOptions {
  readonly alpha?: number
  readonly test?: PairedTest
  readonly power?: PowerOptions
}

/** One comparison's p under `test` (null with one pair). */
export const testOf = (deltas: ReadonlyArray<number>, test: PairedTest, seed: number | string): TestResult | null =>
  deltas.length < 2 ? null : test === "t" ? pairedTTest(deltas) : signFlipTest(deltas, { seed })

/** Pairs the test needs before its smallest p can reach `threshold` (t: 2). */
export const pairsToReject = (test: PairedTest, threshold: number): number => {
  if (test === "t") return 2
  let n = 2
  while (2 / 2 ** n > threshold && n < 60) n++
  return n
}

/**
 * Seeds to detect δ (default 5 points) at the given power from the observed sd, by the t form of
 * the paired sample-size formula, the smallest n with n ≥ ((t_{1−α/2, n−1} + t_{power, n−1})·sd/δ)²
 * (Chow, Shao & Wang 2008 §3.1; the normal form in plugins/leaderboard/statistics/power.ts asks for a seed or two fewer),
 * and never fewer than the test needs to reject at `threshold` at all.
 */
export const seedsNeededFor = (sd: number, test: PairedTest, threshold: number, options: PowerOptions = {}): number => {
  const delta = options.delta ?? 0.05
  const alpha = options.alpha ?? 0.05
  const power = options.power ?? 0.8
  // The smallest n ≥ the normal form's answer at which the t form is satisfied (t quantiles exceed
  // z, so the answer is never below it); beyond a few hundred seeds the two agree.
  let n = seedsForPower(sd, options) ?? 2
  const needs = (k: number): number => (((tQuantile(1 - alpha / 2, k - 1) + tQuantile(power, k - 1)) * sd) / delta) ** 2
  while (n < 500 && needs(n) > n) n++
  return Math.max(n, pairsToReject(test, threshold))
}

const sdOf = (xs: ReadonlyArray<number>): number => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1))
}

/** Every comparison of a page at once (see the header); results in input order. */
export const pairedVerdicts = (comparisons: ReadonlyArray<VerdictComparison>, options: VerdictOptions = {}): VerdictResult[] => {
  const alpha = options.alpha ?? 0.05
  checkLevel(alpha, "pairedVerdicts: alpha")
  const test = options.test ?? PAIRED_TEST
  const tests = comparisons.map((c, i) => {
    checkSample(c.deltas, `pairedVerdicts: comparison ${i}`)
    return testOf(c.deltas, test, c.seed)
  })
  const members = comparisons.map((c, i) => ((c.inFamily ?? true) && tests[i] !== null && tests[i]!.minP <= alpha ? i : -1)).filter((i) => i >= 0)
  const tested = holm(
    members.map((i) => tests[i]!.p),
    alpha
  )
  const holmOf = new Map(members.map((i, k) => [i, tested[k]!]))
  const rejected = tested.filter((h) => h.reject).length
  // The family a comparison would face with enough seeds: every in-family comparison with two pairs or more.
  const candidates = Math.max(1, comparisons.filter((c) => (c.inFamily ?? true) && c.deltas.length >= 2).length)
  // The most lenient threshold any comparison faced: α/(m − r) after r rejections (α when nothing was tested).
  const lenient = members.length > rejected ? alpha / (members.length - rejected) : alpha
  return comparisons.map((c, i) => {
    const n = c.deltas.length
    const mean = c.deltas.reduce((a, b) => a + b, 0) / n
    const t = tests[i] ?? null
    if (t === null)
      return {
        n,
        mean,
        sd: null,
        lo: null,
        hi: null,
        level: 1 - alpha,
        p: null,
        pHolm: null,
        minP: null,
        separated: false,
        inFamily: false,
        verdict: "cannot-separate",
        seedsNeeded: null,
        note: "one pair: no interval or p"
      }
    const reference = !(c.inFamily ?? true)
    const h = holmOf.get(i)
    const level = h ? h.level : 1 - alpha
    const separated = h ? h.reject : reference && t.p <= alpha
    const threshold = reference ? alpha : lenient
    const verdict: Verdict = separated ? (mean > 0 ? "better" : "worse") : t.minP > threshold ? "cannot-separate" : "not-separated"
    const sd = sdOf(c.deltas)
    return {
      n,
      mean,
      sd,
      ...tInterval(c.deltas, level)!,
      level,
      p: t.p,
      pHolm: h ? h.adjusted : null,
      minP: t.minP,
      separated,
      inFamily: h !== undefined,
      verdict,
      // A reference is tested alone at α: its seeds are at α; a family member's at the page's first Holm threshold.
      seedsNeeded: reference ? seedsNeededFor(sd, test, alpha, options.power) : seedsNeededFor(sd, test, alpha / candidates, { ...options.power, alpha: options.power?.alpha ?? alpha / candidates })
    }
  })
}
