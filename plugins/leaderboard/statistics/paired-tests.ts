/**
 * Two paired tests of "the mean per-seed difference is 0" that hold their level at 3–12 seeds,
 * and the t interval.
 *
 * - Sign-flip permutation test (Fisher, "The Design of Experiments", 1935, §21; Good,
 *   "Permutation Tests", 2nd ed., §3.1): under the null of a filter that changes nothing, the two
 *   runs of a seed are exchangeable, so each difference is as likely to have either sign. The
 *   statistic is |Σ d_i|; p is the share of the 2^n sign patterns whose |Σ ±|d_i|| reaches the
 *   observed one. Exact (every pattern) up to EXACT_MAX_PAIRS, enumerated in Gray-code order (one
 *   sign changes per pattern); beyond, B seeded random patterns with p = (1 + hits)/(B + 1)
 *   (Davison & Hinkley 1997 §4.2.1), which is still a valid p. Its p can never be below 2/2^n:
 *   with 5 seeds, 0.0625.
 * - Paired t-test (Student 1908): t = mean / (sd/√n), two-sided p from Student's t with n − 1
 *   degrees of freedom (student-t.ts); the interval mean ± t_{(1+level)/2, n−1}·sd/√n.
 */
import { Rng } from "../../../core/host.ts"
import { checkLevel, checkSample } from "./check.ts"
import { tQuantile, tTwoSided } from "./student-t.ts"

/** Up to this many pairs the sign-flip test enumerates every pattern (2^16 = 65 536). */
export const EXACT_MAX_PAIRS = 16
/** Random sign patterns beyond EXACT_MAX_PAIRS. */
export const SIGN_FLIP_SAMPLES = 20_000

/**
 * Sums this close count as equal: differences of success rates carry float noise
 * (0.3 − 0.2 = 0.09999999999999998), which must not decide whether a pattern reaches the observed sum.
 */
const RELATIVE_TOLERANCE = 1e-9
/**
 * And this close per pair, absolutely: compact records keep 6 significant digits, so a tie between
 * run folders (|Δ| equal) must stay a tie when the same runs are read from their records.
 */
const ABSOLUTE_TOLERANCE_PER_PAIR = 1e-6

export interface TestResult {
  /** Two-sided p. */
  readonly p: number
  /** The smallest p this test can give at this n (sign-flip: 2/2^n exact; t: 0). */
  readonly minP: number
  /** Whether p is exact (every pattern) rather than Monte Carlo. */
  readonly exact: boolean
}

/** The smallest two-sided sign-flip p at n pairs: the observed pattern and its mirror, 2/2^n (1/(B+1)·2 beyond). */
export const signFlipMinP = (n: number, samples = SIGN_FLIP_SAMPLES): number => (n <= EXACT_MAX_PAIRS ? Math.min(1, 2 / 2 ** n) : 1 / (samples + 1))

const unbiasedVariance = (xs: ArrayLike<number>, mean: number): number => {
  let s2 = 0
  for (let i = 0; i < xs.length; i++) s2 += (xs[i]! - mean) ** 2
  return s2 / (xs.length - 1)
}

const meanOf = (xs: ArrayLike<number>): number => {
  let s = 0
  for (let i = 0; i < xs.length; i++) s += xs[i]!
  return s / xs.length
}

/** The exact or Monte Carlo sign-flip test of mean 0 (see the header). One pair: p = 1. */
export const signFlipTest = (deltas: ArrayLike<number>, options: { seed?: number | string; samples?: number } = {}): TestResult => {
  checkSample(deltas, "signFlipTest")
  const n = deltas.length
  const abs = Float64Array.from(deltas as ArrayLike<number>, Math.abs)
  let observed = 0
  let scale = 0
  for (let i = 0; i < n; i++) {
    observed += deltas[i]!
    scale += abs[i]!
  }
  if (scale === 0) return { p: 1, minP: signFlipMinP(n), exact: n <= EXACT_MAX_PAIRS }
  const reach = Math.abs(observed) - Math.max(RELATIVE_TOLERANCE * scale, ABSOLUTE_TOLERANCE_PER_PAIR * n)
  if (n <= EXACT_MAX_PAIRS) {
    // A pattern and its mirror reach alike, so the last sign stays + and the 2^(n−1) others are
    // enumerated in Gray-code order: pattern k ^ (k >> 1) differs from the one before in one bit,
    // the lowest set bit of k (bit set = that difference negated).
    let sum = scale
    let hits = sum >= reach ? 1 : 0
    let negated = 0
    const half = 2 ** (n - 1)
    for (let k = 1; k < half; k++) {
      const bit = 31 - Math.clz32(k & -k)
      negated ^= 1 << bit
      sum += negated & (1 << bit) ? -2 * abs[bit]! : 2 * abs[bit]!
      if (sum >= reach || sum <= -reach) hits++
    }
    return { p: Math.min(1, hits / half), minP: signFlipMinP(n), exact: true }
  }
  const samples = options.samples ?? SIGN_FLIP_SAMPLES
  const rng = new Rng(options.seed ?? 0)
  let hits = 0
  for (let b = 0; b < samples; b++) {
    let sum = 0
    for (let i = 0; i < n; i++) sum += rng.float() < 0.5 ? abs[i]! : -abs[i]!
    if (Math.abs(sum) >= reach) hits++
  }
  return { p: Math.min(1, (1 + hits) / (samples + 1)), minP: signFlipMinP(n, samples), exact: false }
}

/** The paired t statistic, its degrees of freedom and two-sided p. Needs 2 pairs; all differences equal: p = 1 at 0, else 0. */
export const pairedTTest = (deltas: ArrayLike<number>): TestResult & { t: number; df: number } => {
  checkSample(deltas, "pairedTTest")
  const n = deltas.length
  if (n < 2) throw new RangeError("pairedTTest: need at least 2 pairs")
  const mean = meanOf(deltas)
  const se = Math.sqrt(unbiasedVariance(deltas, mean) / n)
  const df = n - 1
  if (se <= 1e-15 * Math.max(1, Math.abs(mean))) {
    const zero = Math.abs(mean) <= 1e-15
    return { t: zero ? 0 : Math.sign(mean) * Infinity, df, p: zero ? 1 : 0, minP: 0, exact: true }
  }
  const t = mean / se
  return { t, df, p: tTwoSided(t, df), minP: 0, exact: true }
}

/** mean ± t_{(1+level)/2, n−1}·sd/√n; null with one pair. */
export const tInterval = (deltas: ArrayLike<number>, level: number): { lo: number; hi: number } | null => {
  checkSample(deltas, "tInterval")
  checkLevel(level, "tInterval: level")
  const n = deltas.length
  if (n < 2) return null
  const mean = meanOf(deltas)
  const half = tQuantile((1 + level) / 2, n - 1) * Math.sqrt(unbiasedVariance(deltas, mean) / n)
  return { lo: mean - half, hi: mean + half }
}
