/**
 * Paired comparisons against a baseline. Runs that share a seed share the warm start, the
 * training instances and the random streams, so a filter's run and the baseline's run of the
 * same seed form a pair and the per-seed difference removes what the seed contributes (a paired
 * design; Efron & Tibshirani 1993 §16.4 bootstrap the differences, not the two samples).
 *
 * Per comparison: the mean of the per-seed differences, its percentile-bootstrap interval
 * (bootstrap.ts), and a two-sided bootstrap p-value by inverting the percentile interval
 * (p = 2·min(P*(mean* ≤ 0), P*(mean* ≥ 0)), with the +1 of Davison & Hinkley 1997 §4.2 so that
 * a finite B never claims p = 0): the smallest α at which the (1−α) interval would still
 * exclude zero. Over a family of comparisons, Holm's step-down procedure (Holm, "A simple
 * sequentially rejective multiple test procedure", Scand. J. Statist. 1979) controls the
 * chance of any false "separated" at α; each comparison's interval is reported at its Holm
 * level 1 − α/(m − k) (k its 0-based rank by p), so "separated" and "the interval excludes 0"
 * say the same thing.
 */
import { Rng } from "../../../core/rng.ts"
import { bootstrapMeans, DEFAULT_LEVEL, DEFAULT_RESAMPLES, percentileInterval, sampleMean } from "./bootstrap.ts"
import { checkLevel, checkResamples, checkSample } from "./check.ts"
import { seedsForPower, type PowerOptions } from "./power.ts"

export interface SeedScore {
  readonly seed: number
  readonly value: number
}

export interface Pairing {
  /** Seeds both sides have, ascending. */
  readonly seeds: number[]
  /** a − b per shared seed, in the order of `seeds`. */
  readonly deltas: number[]
  /** Seeds only one side has (left out of the comparison). */
  readonly onlyA: number[]
  readonly onlyB: number[]
}

/** Pairs two sets of per-seed scores by seed; a seed listed twice on one side is an error. */
export const pairBySeed = (a: ReadonlyArray<SeedScore>, b: ReadonlyArray<SeedScore>): Pairing => {
  const index = (xs: ReadonlyArray<SeedScore>, side: string): Map<number, number> => {
    const m = new Map<number, number>()
    for (const { seed, value } of xs) {
      if (m.has(seed)) throw new RangeError(`pairBySeed: seed ${seed} appears twice on side ${side}`)
      checkSample([value], `pairBySeed: side ${side}, seed ${seed}`)
      m.set(seed, value)
    }
    return m
  }
  const ma = index(a, "a")
  const mb = index(b, "b")
  const seeds = [...ma.keys()].filter((s) => mb.has(s)).sort((x, y) => x - y)
  return {
    seeds,
    deltas: seeds.map((s) => ma.get(s)! - mb.get(s)!),
    onlyA: [...ma.keys()].filter((s) => !mb.has(s)).sort((x, y) => x - y),
    onlyB: [...mb.keys()].filter((s) => !ma.has(s)).sort((x, y) => x - y)
  }
}

/**
 * Resample means this close to 0 count as 0: differences of success rates carry float noise
 * (0.3 − 0.2 = 0.09999999999999998), which must not decide on which side of zero a mean of +0.1
 * and −0.1 falls.
 */
export const ZERO_TOLERANCE = 1e-12

/** Two-sided p-value of "the mean is 0" from a bootstrap distribution of the mean (see the header). */
export const bootstrapPValue = (stats: ArrayLike<number>): number => {
  checkSample(stats, "bootstrapPValue")
  let below = 0
  let above = 0
  for (let i = 0; i < stats.length; i++) {
    if (stats[i]! <= ZERO_TOLERANCE) below++
    if (stats[i]! >= -ZERO_TOLERANCE) above++
  }
  return Math.min(1, (2 * (1 + Math.min(below, above))) / (stats.length + 1))
}

export interface HolmResult {
  readonly p: number
  /** Holm-adjusted p: max over ranks j ≤ k of min(1, (m − j)·p_(j)). */
  readonly adjusted: number
  readonly reject: boolean
  /** The coverage at which this comparison's interval is read: 1 − α/(m − k). */
  readonly level: number
}

/** Holm's step-down procedure over p-values (results in input order). */
export const holm = (ps: ReadonlyArray<number>, alpha = 0.05): HolmResult[] => {
  checkLevel(alpha, "holm: alpha")
  if (ps.length === 0) return []
  checkSample(ps, "holm: p-values")
  for (const p of ps) if (p < 0 || p > 1) throw new RangeError(`holm: p-value ${p} is outside [0, 1]`)
  const m = ps.length
  const order = ps.map((_, i) => i).sort((i, j) => ps[i]! - ps[j]! || i - j)
  const out = new Array<HolmResult>(m)
  let running = 0
  let rejecting = true
  order.forEach((i, k) => {
    const p = ps[i]!
    running = Math.max(running, Math.min(1, (m - k) * p))
    rejecting = rejecting && p <= alpha / (m - k)
    out[i] = { p, adjusted: running, reject: rejecting, level: 1 - alpha / (m - k) }
  })
  return out
}

export interface Comparison {
  /** Per-seed differences (filter − baseline). */
  readonly deltas: ReadonlyArray<number>
  /** Seed of this comparison's resampling stream (a label keeps it independent of the others on the page). */
  readonly seed: number | string
  /** False for a reference (the noise floor): reported at 95%, never corrected, never "separated". Default true. */
  readonly inFamily?: boolean
}

export interface PairedResult {
  /** Pairs (seeds both sides have). */
  readonly n: number
  readonly mean: number
  /** Unbiased sd of the differences; null for fewer than two pairs. */
  readonly sd: number | null
  readonly lo: number | null
  readonly hi: number | null
  /** Coverage of [lo, hi]: the Holm level in the family, 0.95 outside it. */
  readonly level: number
  /** Unadjusted bootstrap p; null for fewer than two pairs. */
  readonly p: number | null
  /** Holm-adjusted p; null outside the family. */
  readonly pHolm: number | null
  /** Holm rejects "mean difference 0" at α. */
  readonly separated: boolean
  /** Whether Holm counted it (in the family and at least two pairs). */
  readonly inFamily: boolean
  /** Seeds needed to detect a 5-point difference at 80% power (power.ts); null for fewer than two pairs. */
  readonly seedsNeeded: number | null
  readonly note?: string
}

export interface FamilyOptions {
  readonly alpha?: number
  readonly resamples?: number
  readonly power?: PowerOptions
  /** Pairs a comparison needs to join the Holm family (default MIN_PAIRS_TO_SEPARATE). */
  readonly minPairs?: number
}

/** Unbiased sd, shifted by the first value (exactly 0 when all values are equal; no cancellation for large values). */
const unbiasedSd = (xs: ReadonlyArray<number>): number => {
  const x0 = xs[0]!
  let s = 0
  let s2 = 0
  for (const x of xs) {
    s += x - x0
    s2 += (x - x0) ** 2
  }
  return Math.sqrt(Math.max(0, (s2 - (s * s) / xs.length) / (xs.length - 1)))
}

/** Pairs (seeds) a comparison needs to join the Holm family and possibly be marked separated. */
export const MIN_PAIRS_TO_SEPARATE = 4

/**
 * Every comparison of a page at once: bootstrap each one's mean difference, Holm over those in
 * the family with at least two pairs, and read each interval at its Holm level. A comparison with
 * one pair has a mean but no interval, p or power figure (a note says so); none is an error.
 */
export const pairedComparisons = (comparisons: ReadonlyArray<Comparison>, options: FamilyOptions = {}): PairedResult[] => {
  const alpha = options.alpha ?? 0.05
  checkLevel(alpha, "pairedComparisons: alpha")
  const resamples = options.resamples ?? DEFAULT_RESAMPLES
  checkResamples(resamples, "pairedComparisons")
  const minPairs = Math.max(2, options.minPairs ?? MIN_PAIRS_TO_SEPARATE)
  const dists = comparisons.map((c, i) => {
    checkSample(c.deltas, `pairedComparisons: comparison ${i}`)
    return c.deltas.length >= 2 ? bootstrapMeans(c.deltas, resamples, new Rng(c.seed)) : null
  })
  const ps = dists.map((d) => (d ? bootstrapPValue(d) : null))
  // Too few pairs for the percentile bootstrap to mean anything: two or three same-sign deltas
  // give p = 2/(B+1) whatever their spread. Such a comparison is shown but can never be "separated".
  const members = comparisons.map((c, i) => ((c.inFamily ?? true) && ps[i] !== null && c.deltas.length >= minPairs ? i : -1)).filter((i) => i >= 0)
  const tested = holm(
    members.map((i) => ps[i]!),
    alpha
  )
  const holmOf = new Map(members.map((i, k) => [i, tested[k]!]))
  return comparisons.map((c, i) => {
    const n = c.deltas.length
    const mean = sampleMean(c.deltas)
    const d = dists[i]
    if (!d) {
      return { n, mean, sd: null, lo: null, hi: null, level: DEFAULT_LEVEL, p: null, pHolm: null, separated: false, inFamily: false, seedsNeeded: null, note: "one pair: no interval, p or power" }
    }
    const h = holmOf.get(i)
    const level = h ? h.level : DEFAULT_LEVEL
    const sd = unbiasedSd(c.deltas)
    return {
      n,
      mean,
      sd,
      ...percentileInterval(d, level),
      level,
      p: ps[i]!,
      pHolm: h ? h.adjusted : null,
      separated: h ? h.reject : false,
      inFamily: h !== undefined,
      seedsNeeded: seedsForPower(sd, options.power)
    }
  })
}
