/**
 * The replication report's statistics, the leaderboard's calibrated ones
 * (plugins/leaderboard/statistics): a mean over a few seeds or runs gets its 95% t interval and
 * the exact sign-flip p of "the mean is 0"; a mean over settings (the mean of the settings'
 * means) gets a t interval with Welch–Satterthwaite degrees of freedom and the stratified
 * sign-flip p (signs flipped within every setting). The percentile bootstrap stays only for
 * statistics of many units (slopes, correlations: stratifiedStatistic).
 *
 * Verdict on one interval (decide): p ≤ α in the claimed direction → reproduced; the other way →
 * not reproduced; otherwise inconclusive at n (and "n cannot separate" when the smallest p the
 * test can give at n is above α). A claim pooled over settings (decideEachSetting) is reproduced
 * only when it holds in each setting (Holm over the claim's settings); settings that disagree
 * make it mixed. Every Monte Carlo stream is seeded by a label naming what it tests, so the report
 * is the same on every run of the script.
 */
import { Rng } from "../../../core/host.ts"
import { DEFAULT_LEVEL, DEFAULT_RESAMPLES, percentileInterval, sampleMean } from "../statistics/bootstrap.ts"
import { pairBySeed, type SeedScore } from "../statistics/paired.ts"
import { signFlipTest, tInterval } from "../statistics/paired-tests.ts"
import { tQuantile } from "../statistics/student-t.ts"
import { pairedVerdicts } from "../statistics/verdicts.ts"

/** Family-wise α of a claim's tests (each claim on its own; Holm over its settings). */
export const ALPHA = 0.05

export interface Interval {
  readonly value: number
  readonly lo: number | null
  readonly hi: number | null
  /** Units the interval is over (pairs, runs). */
  readonly n: number
  /** Stratified intervals: the units of the smallest stratum (setting). */
  readonly minStratum?: number
  readonly level: number
  /** Two-sided sign-flip p of "the mean is 0", and the smallest p the test can give at n (absent for bootstrap statistics). */
  readonly p?: number
  readonly minP?: number
}

export type VerdictKind = "reproduced" | "not reproduced" | "not supported" | "mixed" | "inconclusive" | "not run"

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

/**
 * The decision on one interval whose claimed direction is `claimed`: by its sign-flip p where it
 * has one (the interval's side where it is a bootstrap statistic without a p).
 */
export const decide = (iv: Interval | null, claimed: "above" | "below", what: string): Verdict => {
  const n = iv?.n ?? 0
  if (!iv || n === 0) return { kind: "not run", n: 0, why: `no runs for ${what}` }
  if (iv.p === undefined) {
    const side = sideOf(iv)
    if (side === claimed) return { kind: "reproduced", n, why: `the interval of ${what} lies ${claimed} 0` }
    if (side === "above" || side === "below") return { kind: "not reproduced", n, why: `the interval of ${what} lies ${side} 0` }
    return { kind: "inconclusive", n, why: `the interval of ${what} includes 0` }
  }
  if (iv.minP! > ALPHA) return { kind: "inconclusive", n, why: `n = ${n} cannot separate ${what} (the smallest sign-flip p at n = ${n} is ${iv.minP!.toPrecision(3)} > ${ALPHA})` }
  const side = iv.value > 0 ? "above" : "below"
  if (iv.p > ALPHA) return { kind: "inconclusive", n, why: `${what}: sign-flip p = ${iv.p.toFixed(3)} > ${ALPHA}` }
  if (side === claimed) return { kind: "reproduced", n, why: `${what} lies ${claimed} 0 (sign-flip p = ${iv.p.toFixed(4)})` }
  return { kind: "not reproduced", n, why: `${what} lies ${side} 0 (sign-flip p = ${iv.p.toFixed(4)})` }
}

/** One setting's test inside a pooled claim. */
export interface SettingTest {
  readonly label: string
  readonly n: number
  readonly iv: Interval
  /** holds: separated in the claimed direction; contradicts: separated the other way; open: not separated; cannot: n cannot separate at the claim's family size. */
  readonly outcome: "holds" | "contradicts" | "open" | "cannot"
}

/**
 * A claim pooled over settings: each setting's values tested (sign-flip, Holm over the claim's
 * settings), reproduced only when it holds in every setting; holds in some and contradicted in
 * others → mixed; contradicted and never holding → not reproduced; else inconclusive.
 */
export const decideEachSetting = (
  settings: ReadonlyArray<{ label: string; values: ReadonlyArray<number> }>,
  claimed: "above" | "below",
  what: string,
  seed: string
): { verdict: Verdict; tests: SettingTest[] } => {
  const used = settings.filter((s) => s.values.length > 0)
  const results = pairedVerdicts(used.map((s, i) => ({ deltas: s.values, seed: `${seed} ${i} ${s.label}` })))
  const tests: SettingTest[] = used.map((s, i) => {
    const r = results[i]!
    const dir = r.mean > 0 ? "above" : "below"
    const outcome = r.verdict === "cannot-separate" ? "cannot" : r.separated ? (dir === claimed ? "holds" : "contradicts") : "open"
    return { label: s.label, n: r.n, iv: { value: r.mean, lo: r.lo, hi: r.hi, n: r.n, level: r.level, ...(r.p !== null ? { p: r.p, minP: r.minP! } : {}) }, outcome }
  })
  return { verdict: verdictOfOutcomes(tests, claimed, what), tests }
}

/** The pooled verdict from each setting's outcome (see decideEachSetting). */
export const verdictOfOutcomes = (tests: ReadonlyArray<Pick<SettingTest, "n" | "outcome">>, claimed: "above" | "below", what: string): Verdict => {
  const n = tests.reduce((a, t) => a + t.n, 0)
  const count = (o: SettingTest["outcome"]) => tests.filter((t) => t.outcome === o).length
  const k = tests.length
  const of = `of ${k} setting${k === 1 ? "" : "s"}`
  if (k === 0) return notRun(`no setting has ${what}`)
  if (count("holds") === k) return { kind: "reproduced", n, why: `${what} lies ${claimed} 0 in each of ${k} setting${k === 1 ? "" : "s"} (sign-flip, Holm over the settings)` }
  if (count("holds") > 0 && count("contradicts") > 0) return { kind: "mixed", n, why: `${what} holds in ${count("holds")} and is contradicted in ${count("contradicts")} ${of}` }
  if (count("contradicts") > 0) return { kind: "not reproduced", n, why: `${what} is contradicted in ${count("contradicts")} ${of} and holds in none` }
  const smallest = Math.min(...tests.map((t) => t.n))
  if (count("cannot") === k)
    return {
      kind: "inconclusive",
      n,
      why: `no setting can separate ${what} at its seeds (n = ${smallest} in a setting; the sign-flip test needs 6 pairs at α = 0.05, more under Holm over ${k} settings)`,
      perSetting: smallest
    }
  return { kind: "inconclusive", n, why: `${what} holds in ${count("holds")} ${of}; ${count("open")} not separated, ${count("cannot")} cannot separate at their n` }
}

/**
 * A claim pooled over settings whose settings leave it open (inconclusive) while the pooled
 * difference lies against the claim (its stratified sign-flip p ≤ α): **not supported**, never
 * "inconclusive" — the data speak against the claim, though no single setting contradicts it
 * after Holm. A pooled difference for the claim leaves the verdict as the settings give it (the
 * claim is reproduced only where it holds in each setting).
 */
export const againstPooled = (v: Verdict, pooled: Interval | null, claimed: "above" | "below", what: string): Verdict => {
  if (v.kind !== "inconclusive" || !pooled || pooled.p === undefined || pooled.p > ALPHA) return v
  const side = pooled.value > 0 ? "above" : "below"
  if (side === claimed) return v
  return {
    kind: "not supported",
    n: v.n,
    why: `${what} pooled over the settings lies ${side} 0, against the claim (stratified sign-flip p = ${pooled.p.toFixed(3)}); in the settings: ${v.why}`
  }
}

/** A setting's outcome as a table cell. */
export const fmtOutcome = (t: SettingTest): string =>
  t.outcome === "cannot" ? `n = ${t.n} cannot separate` : `${t.outcome === "open" ? "not separated" : t.outcome}${t.iv.p !== undefined ? ` (p ${t.iv.p.toFixed(3)})` : ""}`

export const notRun = (why: string): Verdict => ({ kind: "not run", n: 0, why })

/** Mean over values with its 95% t interval and sign-flip p (null bounds for one value). */
export const meanInterval = (xs: ReadonlyArray<number>, seed: string, level = DEFAULT_LEVEL): Interval | null => {
  if (xs.length === 0) return null
  const iv = tInterval(xs, level)
  const t = signFlipTest(xs, { seed })
  return { value: sampleMean(xs), lo: iv?.lo ?? null, hi: iv?.hi ?? null, n: xs.length, level, p: t.p, minP: t.minP }
}

/**
 * The mean over strata of each stratum's mean, with a t interval (variance Σ sd_s²/n_s / S²,
 * Welch–Satterthwaite degrees of freedom) and the stratified sign-flip p: signs flipped within
 * every stratum, which is the plain sign-flip test of the values weighted 1/(S·n_s). No interval
 * when no stratum has two units.
 */
export const stratifiedMeanInterval = (strata: ReadonlyArray<ReadonlyArray<number>>, seed: string, level = DEFAULT_LEVEL): Interval | null => {
  const used = strata.filter((s) => s.length > 0)
  if (used.length === 0) return null
  const S = used.length
  const value = sampleMean(used.map((s) => sampleMean(s)))
  const n = used.reduce((a, s) => a + s.length, 0)
  const minStratum = Math.min(...used.map((s) => s.length))
  const t = signFlipTest(
    used.flatMap((s) => s.map((x) => x / (S * s.length))),
    { seed }
  )
  const parts = used.filter((s) => s.length >= 2).map((s) => ({ a: variance(s) / s.length / (S * S), df: s.length - 1 }))
  if (parts.length === 0) return { value, lo: null, hi: null, n, minStratum, level, p: t.p, minP: t.minP }
  const v = parts.reduce((a, p) => a + p.a, 0)
  const df = v > 0 ? (v * v) / parts.reduce((a, p) => a + (p.a * p.a) / p.df, 0) : 1
  const half = tQuantile((1 + level) / 2, Math.max(1, df)) * Math.sqrt(v)
  return { value, lo: value - half, hi: value + half, n, minStratum, level, p: t.p, minP: t.minP }
}

const variance = (xs: ReadonlyArray<number>): number => {
  const m = sampleMean(xs)
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)
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

/** "+0.052 [+0.010, +0.094] p 0.031" (signed) or "0.520 [0.480, 0.560]"; "(no interval)" when it has none. */
export const fmtInterval = (iv: Interval | null, options: { digits?: number; signed?: boolean } = {}): string => {
  if (!iv) return "–"
  const d = options.digits ?? 3
  const f = options.signed === false ? (x: number) => plain(x, d) : (x: number) => signed(x, d)
  const ci = iv.lo === null || iv.hi === null ? " (no interval)" : ` [${f(iv.lo)}, ${f(iv.hi)}]`
  // The sign-flip p where the interval has one: what the verdict reads.
  // (Unsigned values are levels, not differences: a test of "the mean is 0" says nothing there.)
  const p = iv.p === undefined || options.signed === false ? "" : ` p ${iv.p < 0.001 ? "<0.001" : iv.p.toFixed(3)}`
  return `${f(iv.value)}${ci}${p}`
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
