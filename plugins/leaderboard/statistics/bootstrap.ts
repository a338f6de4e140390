/**
 * Percentile bootstrap of a mean (Efron & Tibshirani, "An Introduction to the Bootstrap", 1993,
 * ch. 6 and §13.3): draw B resamples of the n values with replacement, take each resample's mean,
 * and read the interval off the (1−level)/2 and (1+level)/2 quantiles of those B means. This is
 * the interval rliable reports by default (Agarwal et al. 2021, `method="percentile"`).
 * Resampling is seeded (core/rng.ts), so the same input and seed give the same interval on every
 * runtime. Quantiles interpolate linearly (Hyndman & Fan 1996 type 7, numpy's default).
 */
import { Rng } from "../../../core/host.ts"
import { checkLevel, checkResamples, checkSample } from "./check.ts"

/** Resamples per interval unless told otherwise: enough for a Holm-adjusted 99.8% interval's tails. */
export const DEFAULT_RESAMPLES = 10_000
export const DEFAULT_LEVEL = 0.95

export interface BootstrapOptions {
  /** B, the number of resamples (default 10 000). */
  readonly resamples?: number
  /** Coverage of the interval (default 0.95). */
  readonly level?: number
  /** Seed of the resampling stream (a number or a label; default 0). */
  readonly seed?: number | string
}

/** A mean with its percentile-bootstrap interval; lo/hi null when one value leaves nothing to resample. */
export interface MeanInterval {
  readonly mean: number
  readonly n: number
  readonly lo: number | null
  readonly hi: number | null
  readonly level: number
  readonly note?: string
}

/** The plain mean; empty or non-finite input is an error. */
export const sampleMean = (xs: ArrayLike<number>): number => {
  checkSample(xs, "sampleMean")
  let s = 0
  for (let i = 0; i < xs.length; i++) s += xs[i]!
  return s / xs.length
}

/** The q-quantile of ascending `sorted` values, linear interpolation between order statistics (type 7). */
export const percentile = (sorted: ArrayLike<number>, q: number): number => {
  checkSample(sorted, "percentile")
  if (!(q >= 0 && q <= 1)) throw new RangeError(`percentile: q must be in [0, 1], got ${String(q)}`)
  const h = (sorted.length - 1) * q
  const f = Math.floor(h)
  const lo = sorted[f]!
  return f + 1 < sorted.length ? lo + (h - f) * (sorted[f + 1]! - lo) : lo
}

/** B resample means of `xs` (each: n draws with replacement), sorted ascending. */
export const bootstrapMeans = (xs: ArrayLike<number>, resamples: number, rng: Rng): Float64Array => {
  checkSample(xs, "bootstrapMeans")
  checkResamples(resamples, "bootstrapMeans")
  const n = xs.length
  const out = new Float64Array(resamples)
  for (let b = 0; b < resamples; b++) {
    let s = 0
    for (let i = 0; i < n; i++) s += xs[rng.int(n)]!
    out[b] = s / n
  }
  return out.sort()
}

/** The percentile interval of a sorted bootstrap distribution at the given coverage. */
export const percentileInterval = (sortedStats: ArrayLike<number>, level: number): { lo: number; hi: number } => {
  checkLevel(level, "percentileInterval: level")
  const tail = (1 - level) / 2
  return { lo: percentile(sortedStats, tail), hi: percentile(sortedStats, 1 - tail) }
}

/**
 * Mean of `xs` with its 95% (or `level`) percentile-bootstrap interval. One value: the interval
 * is null (resampling one value always gives it back, which says nothing about spread). All
 * values equal: a zero-width interval, correctly (there is no spread to resample).
 */
export const bootstrapMeanInterval = (xs: ArrayLike<number>, options: BootstrapOptions = {}): MeanInterval => {
  checkSample(xs, "bootstrapMeanInterval")
  const level = options.level ?? DEFAULT_LEVEL
  checkLevel(level, "bootstrapMeanInterval: level")
  const mean = sampleMean(xs)
  if (xs.length < 2) return { mean, n: xs.length, lo: null, hi: null, level, note: "one value: no interval" }
  const means = bootstrapMeans(xs, options.resamples ?? DEFAULT_RESAMPLES, new Rng(options.seed ?? 0))
  return { mean, n: xs.length, ...percentileInterval(means, level), level }
}
