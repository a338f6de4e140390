/**
 * Confidence intervals of an evaluation (95%):
 * - success rate: the Wilson score interval (Wilson 1927; Brown, Cai & DasGupta 2001 recommend
 *   it over the normal interval for small n and rates near 0 or 1);
 *   centre (p + z²/2n)/(1 + z²/n), half-width z·sqrt(p(1−p)/n + z²/4n²)/(1 + z²/n), z = 1.96.
 * - mean return: the percentile bootstrap (Efron 1979; as rliable reports intervals), B
 *   resamples of the episodes with replacement drawn from our seeded Rng, the 2.5% and 97.5%
 *   quantiles of the resampled means (linear interpolation between order statistics).
 */
import { Rng } from "../../core/host.ts"

export const Z95 = 1.959963984540054

export interface Interval {
  readonly mean: number
  readonly lo: number
  readonly hi: number
  readonly n: number
}

export const wilson = (successes: number, n: number, z = Z95): Interval => {
  if (n === 0) return { mean: 0, lo: 0, hi: 1, n }
  const p = successes / n
  const z2 = z * z
  const denom = 1 + z2 / n
  const centre = (p + z2 / (2 * n)) / denom
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom
  return { mean: p, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half), n }
}

/** Quantile q of sorted xs (type 7, numpy's default). */
export const quantileSorted = (xs: ArrayLike<number>, q: number): number => {
  const h = (xs.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.min(xs.length - 1, lo + 1)
  return xs[lo]! + (h - lo) * (xs[hi]! - xs[lo]!)
}

export const bootstrapMean = (xs: ReadonlyArray<number>, seed: number, resamples = 2000): Interval => {
  const n = xs.length
  if (n === 0) return { mean: 0, lo: 0, hi: 0, n }
  const mean = xs.reduce((a, b) => a + b, 0) / n
  const rng = new Rng(seed).split("bootstrap")
  const means = new Float64Array(resamples)
  for (let b = 0; b < resamples; b++) {
    let s = 0
    for (let i = 0; i < n; i++) s += xs[rng.int(n)]!
    means[b] = s / n
  }
  means.sort()
  return { mean, lo: quantileSorted(means, 0.025), hi: quantileSorted(means, 0.975), n }
}
