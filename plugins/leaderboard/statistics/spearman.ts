/**
 * Spearman's rank correlation (C. Spearman, "The proof and measurement of association between two
 * things", Am. J. Psychol. 1904): Pearson's correlation of the ranks, tied values given their
 * average rank (fractional ranking, as scipy.stats.spearmanr computes it). Undefined (null) when
 * either side is constant: there is no order to correlate.
 *
 * Interval: the percentile bootstrap over pairs (resample the n (x, y) pairs with replacement and
 * recompute; Efron & Tibshirani 1993 §6 and ch. 13 bootstrap correlations this way), seeded
 * (core/rng.ts). A resample in which one side comes out constant has no correlation; it counts
 * as 0 (no association), which pulls the interval toward 0, never away from it. A contrast
 * |ρ(a, y)| − |ρ(b, y)| is resampled on the same pairs for both sides, so the two correlations'
 * shared noise cancels (a paired bootstrap).
 */
import { averageRanks, pick, resamplePairs, Rng, spearman as rankCorrelation } from "../../../core/host.ts"
import { DEFAULT_LEVEL, DEFAULT_RESAMPLES, type BootstrapOptions, percentileInterval } from "./bootstrap.ts"
import { checkLevel, checkResamples, checkSample } from "./check.ts"

/** Fewer pairs than this get no interval: two points always correlate at ±1. */
export const MIN_PAIRS_FOR_INTERVAL = 3

/** The ranks, the rank correlation and the resampling loop are the core's (`ragen-bench analyze` uses them too): one implementation. */
export { averageRanks }

const checkPairs = (x: ArrayLike<number>, y: ArrayLike<number>, what: string): void => {
  checkSample(x, `${what}: x`)
  checkSample(y, `${what}: y`)
  if (x.length !== y.length) throw new RangeError(`${what}: x has ${x.length} values, y has ${y.length}`)
}

/** Spearman's ρ of paired values; null when either side is constant (or there is one pair). */
export const spearman = (x: ArrayLike<number>, y: ArrayLike<number>): number | null => {
  checkPairs(x, y, "spearman")
  const rho = rankCorrelation(x, y)
  return Number.isNaN(rho) ? null : Math.max(-1, Math.min(1, rho))
}

/** ρ with its bootstrap interval; lo/hi null when ρ is undefined or there are too few pairs. */
export interface CorrelationInterval {
  readonly rho: number | null
  readonly n: number
  readonly lo: number | null
  readonly hi: number | null
  readonly level: number
  /** Resamples in which a side came out constant (counted as ρ = 0). */
  readonly degenerate: number
  readonly note?: string
}

/**
 * Bootstrap of a statistic of the pair indices (core's resamplePairs): an undefined (null)
 * statistic counts as 0; the distribution comes back sorted ascending.
 */
const bootstrapIndices = (n: number, statistic: (idx: Int32Array) => number | null, resamples: number, rng: Rng): { dist: Float64Array; degenerate: number } => {
  let degenerate = 0
  const dist = resamplePairs(
    n,
    (idx) => {
      const v = statistic(idx)
      if (v === null) degenerate++
      return v ?? 0
    },
    resamples,
    rng
  )
  return { dist: dist.sort(), degenerate }
}

/** Spearman's ρ with its percentile-bootstrap interval over pairs (see the header). */
export const spearmanInterval = (x: ArrayLike<number>, y: ArrayLike<number>, options: BootstrapOptions = {}): CorrelationInterval => {
  checkPairs(x, y, "spearmanInterval")
  const level = options.level ?? DEFAULT_LEVEL
  checkLevel(level, "spearmanInterval: level")
  const resamples = options.resamples ?? DEFAULT_RESAMPLES
  checkResamples(resamples, "spearmanInterval")
  const n = x.length
  const rho = spearman(x, y)
  if (rho === null) return { rho, n, lo: null, hi: null, level, degenerate: 0, note: "a side is constant: no correlation" }
  if (n < MIN_PAIRS_FOR_INTERVAL) return { rho, n, lo: null, hi: null, level, degenerate: 0, note: `${n} pairs: no interval` }
  const { dist, degenerate } = bootstrapIndices(n, (idx) => spearman(pick(x, idx), pick(y, idx)), resamples, new Rng(options.seed ?? 0))
  return { rho, n, ...percentileInterval(dist, level), level, degenerate }
}

/** |ρ(a, y)| − |ρ(b, y)| with its interval; value null when either correlation is undefined. */
export interface ContrastInterval {
  readonly value: number | null
  readonly rhoA: number | null
  readonly rhoB: number | null
  readonly n: number
  readonly lo: number | null
  readonly hi: number | null
  readonly level: number
  readonly degenerate: number
  readonly note?: string
}

/**
 * Which of two predictors a and b ranks with y more strongly: |ρ(a, y)| − |ρ(b, y)|, both
 * correlations recomputed on the same resampled pairs (an undefined one counts as 0).
 */
export const spearmanContrastInterval = (a: ArrayLike<number>, b: ArrayLike<number>, y: ArrayLike<number>, options: BootstrapOptions = {}): ContrastInterval => {
  checkPairs(a, y, "spearmanContrastInterval: a")
  checkPairs(b, y, "spearmanContrastInterval: b")
  const level = options.level ?? DEFAULT_LEVEL
  checkLevel(level, "spearmanContrastInterval: level")
  const resamples = options.resamples ?? DEFAULT_RESAMPLES
  checkResamples(resamples, "spearmanContrastInterval")
  const n = y.length
  const rhoA = spearman(a, y)
  const rhoB = spearman(b, y)
  const base = { rhoA, rhoB, n, level }
  if (rhoA === null || rhoB === null) return { ...base, value: null, lo: null, hi: null, degenerate: 0, note: "a side is constant: no correlation" }
  const value = Math.abs(rhoA) - Math.abs(rhoB)
  if (n < MIN_PAIRS_FOR_INTERVAL) return { ...base, value, lo: null, hi: null, degenerate: 0, note: `${n} pairs: no interval` }
  let degenerate = 0
  const stat = (idx: Int32Array): number => {
    const ys = pick(y, idx)
    const ra = spearman(pick(a, idx), ys)
    const rb = spearman(pick(b, idx), ys)
    if (ra === null || rb === null) degenerate++
    return Math.abs(ra ?? 0) - Math.abs(rb ?? 0)
  }
  const { dist } = bootstrapIndices(n, stat, resamples, new Rng(options.seed ?? 0))
  return { ...base, value, ...percentileInterval(dist, level), degenerate }
}
