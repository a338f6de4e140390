/**
 * The replication report's statistics, built on plugins/leaderboard/statistics: means with percentile-bootstrap
 * intervals over runs or seeds, the stratified bootstrap over settings (Agarwal et al. 2021:
 * resample within each stratum, keep every stratum), and the verdict rule.
 *
 * Verdict: at least MIN_N units (pairs, runs), at least MIN_N in every setting of a stratified
 * interval (a percentile interval from two values per setting is the range of two numbers, far
 * narrower than 95%), and a 95% interval that excludes 0 in the claimed direction → reproduced;
 * excludes it the other way → not reproduced; otherwise inconclusive at n. Every bootstrap is seeded by a label naming what it resamples, so the report is the same on
 * every run of the script.
 */
import { Rng } from "../../../core/rng.ts"
import { bootstrapMeanInterval, DEFAULT_LEVEL, DEFAULT_RESAMPLES, percentileInterval, sampleMean } from "../statistics/bootstrap.ts"
import { stratifiedBootstrap } from "../statistics/iqm.ts"
import { pairBySeed, type SeedScore } from "../statistics/paired.ts"

/** Fewer units than this never decide a claim: an interval from two values says little. */
export const MIN_N = 3

export interface Interval {
  readonly value: number
  readonly lo: number | null
  readonly hi: number | null
  /** Units the interval is over (pairs, runs). */
  readonly n: number
  /** Stratified intervals: the units of the smallest stratum (setting). */
  readonly minStratum?: number
  readonly level: number
}

export type VerdictKind = "reproduced" | "not reproduced" | "inconclusive" | "not run"

export interface Verdict {
  readonly kind: VerdictKind
  readonly n: number
  /** One line: why this verdict. */
  readonly why: string
  /** Set when the verdict is inconclusive because a setting has fewer than MIN_N seeds. */
  readonly perSetting?: number
}

export const verdictText = (v: Verdict): string => (v.kind !== "inconclusive" ? v.kind : `inconclusive at n = ${v.n}${v.perSetting !== undefined ? ` (${v.perSetting} seeds in a setting)` : ""}`)

/** Where an interval lies: above 0, below 0, across 0, or nothing to read. */
export type Side = "above" | "below" | "across" | "none"

export const sideOf = (iv: Interval | null): Side => (!iv || iv.lo === null || iv.hi === null ? "none" : iv.lo > 0 ? "above" : iv.hi < 0 ? "below" : "across")

/** The decision on one interval whose claimed direction is `claimed`. */
export const decide = (iv: Interval | null, claimed: "above" | "below", what: string): Verdict => {
  const n = iv?.n ?? 0
  if (!iv || n === 0) return { kind: "not run", n: 0, why: `no runs for ${what}` }
  if (n < MIN_N) return { kind: "inconclusive", n, why: `${n} < ${MIN_N} units for ${what}` }
  if (iv.minStratum !== undefined && iv.minStratum < MIN_N)
    return { kind: "inconclusive", n, why: `a setting has ${iv.minStratum} < ${MIN_N} seeds for ${what} (run more seeds)`, perSetting: iv.minStratum }
  const side = sideOf(iv)
  if (side === claimed) return { kind: "reproduced", n, why: `the interval of ${what} lies ${claimed} 0` }
  if (side === "above" || side === "below") return { kind: "not reproduced", n, why: `the interval of ${what} lies ${side} 0` }
  return { kind: "inconclusive", n, why: `the interval of ${what} includes 0` }
}

export const notRun = (why: string): Verdict => ({ kind: "not run", n: 0, why })

/** Mean over values with its 95% bootstrap interval (null bounds for one value). */
export const meanInterval = (xs: ReadonlyArray<number>, seed: string, level = DEFAULT_LEVEL): Interval | null => {
  if (xs.length === 0) return null
  const m = bootstrapMeanInterval(xs, { seed, level })
  return { value: m.mean, lo: m.lo, hi: m.hi, n: m.n, level }
}

/**
 * The mean over strata of each stratum's mean, with the stratified bootstrap (units resampled
 * within each stratum). No interval when no stratum has two units.
 */
export const stratifiedMeanInterval = (strata: ReadonlyArray<ReadonlyArray<number>>, seed: string, level = DEFAULT_LEVEL): Interval | null => {
  const used = strata.filter((s) => s.length > 0)
  if (used.length === 0) return null
  const stat = (t: ReadonlyArray<ReadonlyArray<number>>): number => sampleMean(t.map((s) => sampleMean(s)))
  const value = stat(used)
  const n = used.reduce((a, s) => a + s.length, 0)
  const minStratum = Math.min(...used.map((s) => s.length))
  if (used.every((s) => s.length < 2)) return { value, lo: null, hi: null, n, minStratum, level }
  const dist = stratifiedBootstrap(used, stat, DEFAULT_RESAMPLES, new Rng(seed))
  return { value, ...percentileInterval(dist, level), n, minStratum, level }
}

/**
 * A statistic of strata of records with its stratified-bootstrap interval: each stratum's records
 * resampled with replacement, the statistic recomputed. For statistics of more than one number
 * per unit (a slope over (x, Δ) points, a correlation).
 */
export const stratifiedStatistic = <T>(strata: ReadonlyArray<ReadonlyArray<T>>, statistic: (strata: ReadonlyArray<ReadonlyArray<T>>) => number, seed: string, level = DEFAULT_LEVEL): Interval => {
  const value = statistic(strata)
  const n = strata.reduce((a, s) => a + s.length, 0)
  const minStratum = Math.min(...strata.map((s) => s.length))
  if (strata.every((s) => s.length < 2)) return { value, lo: null, hi: null, n, minStratum, level }
  const rng = new Rng(seed)
  const dist = new Float64Array(DEFAULT_RESAMPLES)
  for (let b = 0; b < dist.length; b++) dist[b] = statistic(strata.map((s) => s.map(() => s[rng.int(s.length)]!)))
  dist.sort()
  return { value, ...percentileInterval(dist, level), n, minStratum, level }
}

/** Per-seed differences a − b over the seeds both have (pairBySeed; a seed seen twice on a side keeps its mean). */
export const pairedDeltas = (a: ReadonlyArray<SeedScore>, b: ReadonlyArray<SeedScore>): { seeds: number[]; deltas: number[] } => {
  const { seeds, deltas } = pairBySeed(meanBySeed(a), meanBySeed(b))
  return { seeds, deltas }
}

const meanBySeed = (xs: ReadonlyArray<SeedScore>): SeedScore[] => {
  const m = new Map<number, number[]>()
  for (const { seed, value } of xs) m.set(seed, [...(m.get(seed) ?? []), value])
  return [...m].map(([seed, vs]) => ({ seed, value: sampleMean(vs) }))
}

/** Ordinary least-squares slope of y on x; null when x has no spread. */
export const olsSlope = (points: ReadonlyArray<{ x: number; y: number }>): number | null => {
  if (points.length < 2) return null
  const mx = sampleMean(points.map((p) => p.x))
  const my = sampleMean(points.map((p) => p.y))
  let sxy = 0
  let sxx = 0
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my)
    sxx += (p.x - mx) ** 2
  }
  return sxx > 1e-15 ? sxy / sxx : null
}

// ---------- formatting ----------

const signed = (x: number, digits: number): string => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(digits)
const plain = (x: number, digits: number): string => (x < 0 ? "−" : "") + Math.abs(x).toFixed(digits)

/** "+0.052 [+0.010, +0.094]" (signed) or "0.520 [0.480, 0.560]"; "(no interval)" when it has none. */
export const fmtInterval = (iv: Interval | null, options: { digits?: number; signed?: boolean } = {}): string => {
  if (!iv) return "–"
  const d = options.digits ?? 3
  const f = options.signed === false ? (x: number) => plain(x, d) : (x: number) => signed(x, d)
  const ci = iv.lo === null || iv.hi === null ? " (no interval)" : ` [${f(iv.lo)}, ${f(iv.hi)}]`
  return `${f(iv.value)}${ci}`
}

export const fmtNumber = (x: number | null, digits = 3): string => (x === null ? "–" : plain(x, digits))

/** Seeds as ranges: [1, 2, 3, 5] → "1–3, 5". */
export const fmtSeeds = (seeds: Iterable<number>): string => {
  const s = [...new Set(seeds)].sort((a, b) => a - b)
  const parts: string[] = []
  for (let i = 0; i < s.length; ) {
    let j = i
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++
    parts.push(j === i ? `${s[i]}` : `${s[i]}–${s[j]}`)
    i = j + 1
  }
  return parts.length ? parts.join(", ") : "–"
}

/** Seconds as "1 h 05 min", "12 min", "40 s". */
export const fmtDuration = (seconds: number): string => {
  if (seconds < 60) return `${Math.round(seconds)} s`
  const min = Math.round(seconds / 60)
  if (min < 60) return `${min} min`
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, "0")} min`
}
