/**
 * Calibration of the verdict procedure (verdicts.ts) by simulation: per-seed differences drawn
 * from a true null (mean 0) — normal, heavy-tailed (Student t, 3 df), skewed (centred
 * exponential), and the discrete difference of two binomial validation successes over 128 or
 * 256 episodes — at n = 3…12 seeds, run through the same code the leaderboard runs:
 *
 * - one comparison: the false-positive rate at α (p ≤ α) for each test, and the coverage of the
 *   95% t interval (at mean 0 the interval covers the truth exactly when it holds 0; the t
 *   interval is location-equivariant, so this is its coverage at any true mean);
 * - a page of m null comparisons with Holm: the family-wise false-positive rate (any
 *   "better"/"worse" on the page);
 * - power: the share of pages on which a true effect δ at paired sd σ is separated.
 *
 * Every draw comes from a seeded stream (core/rng.ts) named by what it simulates, so a table is
 * the same on every run. The Monte Carlo standard error of a rate r over R repetitions is
 * √(r(1−r)/R).
 */
import { Rng } from "../../../core/host.ts"
import { pairedTTest, signFlipTest } from "./paired-tests.ts"
import { PAIRED_TEST, type PairedTest, pairedVerdicts } from "./verdicts.ts"

export interface NullDistribution {
  readonly name: string
  /** One per-seed difference with mean 0. */
  readonly draw: (rng: Rng) => number
  /** Not symmetric about 0: the sign-flip test's exchangeability does not hold (reported, not asserted). */
  readonly asymmetric?: boolean
}

/** Success rates of a seed: 0.2, 0.3, …, 0.9 (the range validation success spans on the suite's envs). */
const RATES = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
const EPISODES = [128, 256]

/** CDF of Binomial(k, p), from the pmf's recurrence P(j+1) = P(j)·(k−j)/(j+1)·p/(1−p). */
const binomialCdf = (k: number, p: number): Float64Array => {
  const cdf = new Float64Array(k + 1)
  let pmf = (1 - p) ** k
  let acc = 0
  for (let j = 0; j <= k; j++) {
    acc += pmf
    cdf[j] = acc
    pmf *= ((k - j) / (j + 1)) * (p / (1 - p))
  }
  return cdf
}
const CDFS = EPISODES.map((k) => RATES.map((p) => binomialCdf(k, p)))

/** Binomial(k, p) / k by inversion: the first j with CDF(j) > u (binary search; exact up to float rounding of the CDF). */
const binomialRate = (rng: Rng, cdf: Float64Array): number => {
  const u = rng.float() * cdf[cdf.length - 1]!
  let lo = 0
  let hi = cdf.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cdf[mid]! > u) hi = mid
    else lo = mid + 1
  }
  return lo / (cdf.length - 1)
}

/**
 * Both tests are scale-free; the continuous nulls are drawn at a scale of 5 points of success
 * (the order of the suite's paired sd), so that the seeds-for-power figure computed on the way
 * stays in the range it has on real pages.
 */
const SCALE = 0.05

export const NULLS: ReadonlyArray<NullDistribution> = [
  { name: "normal", draw: (rng) => SCALE * rng.normal() },
  {
    name: "t (3 df)",
    draw: (rng) => {
      const z = rng.normal()
      const chi = rng.normal() ** 2 + rng.normal() ** 2 + rng.normal() ** 2
      return (SCALE * z) / Math.sqrt(chi / 3)
    }
  },
  // Each arm's score skewed (exponential noise around the seed's level): the difference of exchangeable arms is symmetric again.
  { name: "skewed arms (Exp − Exp)", draw: (rng) => SCALE * (Math.log(1 - rng.float()) - Math.log(1 - rng.float())) },
  // Skewness 2 in the difference itself: exp(1) − 1 has mean 0 and a long right tail. Arms that a
  // filter leaves exchangeable cannot produce it; it is here because no test of a mean holds its
  // level over all such nulls at small n (Bahadur & Savage, Ann. Math. Statist. 1956).
  { name: "skewed Δ (Exp − 1)", draw: (rng) => SCALE * (-Math.log(1 - rng.float()) - 1), asymmetric: true },
  {
    // Both arms of a seed validate on k ∈ {128, 256} episodes at the same success rate p ∈ {0.2, …, 0.9} (the seed's level).
    name: "binomial Δ (128–256 episodes)",
    draw: (rng) => {
      const cdf = CDFS[rng.int(EPISODES.length)]![rng.int(RATES.length)]!
      return binomialRate(rng, cdf) - binomialRate(rng, cdf)
    }
  }
]

const sample = (dist: NullDistribution, n: number, rng: Rng, shift = 0): number[] => Array.from({ length: n }, () => dist.draw(rng) + shift)

export interface SingleCalibration {
  readonly distribution: string
  readonly n: number
  readonly reps: number
  /** Share of nulls with p ≤ α, per test. */
  readonly fprSignFlip: number
  readonly fprT: number
  /** Share of 95% t intervals that hold the true mean 0. */
  readonly coverageT: number
}

/** One comparison at a time: R nulls of n pairs through pairedVerdicts with the chosen test, and the other test's p (see the header). */
export const calibrateSingle = (dist: NullDistribution, n: number, reps: number, alpha = 0.05): SingleCalibration => {
  const rng = new Rng(`calibration:single:${dist.name}:${n}`)
  let sf = 0
  let t = 0
  let covered = 0
  for (let r = 0; r < reps; r++) {
    const deltas = sample(dist, n, rng)
    const [v] = pairedVerdicts([{ deltas, seed: r }], { alpha, test: PAIRED_TEST })
    const other = PAIRED_TEST === "t" ? signFlipTest(deltas).p <= alpha : pairedTTest(deltas).p <= alpha
    if (PAIRED_TEST === "t" ? other : v!.separated) sf++
    if (PAIRED_TEST === "t" ? v!.separated : other) t++
    // Alone on its page the interval is read at 1 − α (the t interval).
    if (v!.lo! <= 0 && v!.hi! >= 0) covered++
  }
  return { distribution: dist.name, n, reps, fprSignFlip: sf / reps, fprT: t / reps, coverageT: covered / reps }
}

/** Share of R pages of m comparisons (n pairs each, every one shifted by `effect`) with at least one separated. */
export const pageRejectionRate = (dist: NullDistribution, n: number, m: number, reps: number, test: PairedTest, effect = 0, alpha = 0.05): number => {
  const rng = new Rng(`calibration:page:${dist.name}:${n}:${m}:${effect}`)
  let any = 0
  for (let r = 0; r < reps; r++) {
    const page = Array.from({ length: m }, (_, i) => ({ deltas: sample(dist, n, rng, effect), seed: i }))
    if (pairedVerdicts(page, { alpha, test }).some((v) => v.separated)) any++
  }
  return any / reps
}

/** Monte Carlo standard error of a rate r over `reps` repetitions. */
export const mcse = (rate: number, reps: number): number => Math.sqrt((rate * (1 - rate)) / reps)

/**
 * Power on a page: one comparison with true mean `effect` among m − 1 null ones, every per-seed
 * difference normal with sd `sd` (the suite's measured paired sd), n pairs each; the share of
 * pages on which that comparison is separated in the right direction.
 */
export const powerOnPage = (sd: number, effect: number, n: number, m: number, reps: number, test: PairedTest = PAIRED_TEST, alpha = 0.05): number => {
  const rng = new Rng(`calibration:power:${sd}:${effect}:${n}:${m}`)
  let hit = 0
  for (let r = 0; r < reps; r++) {
    const page = Array.from({ length: m }, (_, i) => ({ deltas: Array.from({ length: n }, () => sd * rng.normal() + (i === 0 ? effect : 0)), seed: i }))
    if (pairedVerdicts(page, { alpha, test })[0]!.verdict === (effect >= 0 ? "better" : "worse")) hit++
  }
  return hit / reps
}
