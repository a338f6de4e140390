/**
 * Student's t distribution, computed here: its CDF through the regularized incomplete beta
 * function, P(|T_ν| > t) = I_{ν/(ν+t²)}(ν/2, 1/2) (Abramowitz & Stegun 26.7.1 with 26.5.27), and
 * its quantile by bisection on that CDF. I_x(a, b) is evaluated by its continued fraction with
 * the modified Lentz method (A&S 26.5.8; the form of Press et al., "Numerical Recipes", §6.4),
 * ln Γ by Lanczos' series (g = 7, 9 terms; C. Lanczos, SIAM J. Numer. Anal. 1964). Accurate to
 * about 1e-12 for the ν (1–1000) and probabilities a paired comparison needs.
 */
import { checkFinite, checkLevel } from "../../../core/statistics/check.ts"

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7
]

/** ln Γ(x) for x > 0. */
export const logGamma = (x: number): number => {
  if (!(x > 0)) throw new RangeError(`logGamma: x must be > 0, got ${String(x)}`)
  // Reflection keeps the series where it converges fast: Γ(x)Γ(1−x) = π / sin(πx).
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  const z = x - 1
  let a = LANCZOS[0]!
  const t = z + 7.5
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i)
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a)
}

const TINY = 1e-300
const EPS = 1e-15

/** The continued fraction of I_x(a, b) (converges fast for x < (a+1)/(a+b+2)). */
const betaFraction = (x: number, a: number, b: number): number => {
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < TINY) d = TINY
  d = 1 / d
  let h = d
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m
    for (const num of [(m * (b - m) * x) / ((a + m2 - 1) * (a + m2)), (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))]) {
      d = 1 + num * d
      if (Math.abs(d) < TINY) d = TINY
      c = 1 + num / c
      if (Math.abs(c) < TINY) c = TINY
      d = 1 / d
      h *= d * c
    }
    if (Math.abs(d * c - 1) < EPS) return h
  }
  return h
}

/** The regularized incomplete beta function I_x(a, b), x in [0, 1], a, b > 0. */
export const incompleteBeta = (x: number, a: number, b: number): number => {
  if (!(x >= 0 && x <= 1)) throw new RangeError(`incompleteBeta: x must be in [0, 1], got ${String(x)}`)
  if (!(a > 0 && b > 0)) throw new RangeError(`incompleteBeta: a and b must be > 0, got ${a}, ${b}`)
  if (x === 0 || x === 1) return x
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  // The symmetry I_x(a, b) = 1 − I_{1−x}(b, a) keeps the fraction in its fast region.
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b
}

const checkDf = (df: number, what: string): void => {
  if (!(df > 0 && Number.isFinite(df))) throw new RangeError(`${what}: degrees of freedom must be a finite number > 0, got ${String(df)}`)
}

/** P(|T_ν| ≥ |t|): the two-sided tail probability of Student's t with ν = df. */
export const tTwoSided = (t: number, df: number): number => {
  checkDf(df, "tTwoSided")
  if (Number.isNaN(t)) throw new RangeError("tTwoSided: t is NaN")
  if (!Number.isFinite(t)) return 0
  return incompleteBeta(df / (df + t * t), df / 2, 0.5)
}

/** P(T_ν ≤ t). */
export const tCdf = (t: number, df: number): number => {
  const tail = tTwoSided(t, df) / 2
  return t >= 0 ? 1 - tail : tail
}

/** Quantiles already computed (a page asks for the same few levels and df again and again). */
const quantiles = new Map<number, Map<number, number>>()

/** The q-quantile of Student's t with ν = df (q in (0, 1)): bisection on the CDF to 1e-12. */
export const tQuantile = (q: number, df: number): number => {
  checkLevel(q, "tQuantile: q")
  checkDf(df, "tQuantile")
  const byDf = quantiles.get(q) ?? new Map<number, number>()
  const known = byDf.get(df)
  if (known !== undefined) return known
  const t = bisectQuantile(q, df)
  if (quantiles.size < 1000 && byDf.size < 1000) quantiles.set(q, byDf.set(df, t))
  return t
}

const bisectQuantile = (q: number, df: number): number => {
  if (q === 0.5) return 0
  // Bracket [0, hi] on |t|: double hi until the tail is small enough.
  const tail = q > 0.5 ? 1 - q : q
  let hi = 1
  while (tTwoSided(hi, df) / 2 > tail) hi *= 2
  let lo = 0
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2
    if (tTwoSided(mid, df) / 2 > tail) lo = mid
    else hi = mid
  }
  const t = (lo + hi) / 2
  checkFinite(t, "tQuantile")
  return q > 0.5 ? t : -t
}
