/**
 * Seeds needed to detect a paired difference: the normal approximation for a paired (one-sample)
 * two-sided test of mean zero (e.g. Chow, Shao & Wang, "Sample Size Calculations in Clinical
 * Research", 2nd ed., §3.1): n = ⌈((z_{1−α/2} + z_{power}) · sd / δ)²⌉, with sd the standard
 * deviation of the per-seed differences. It is an approximation: it ignores that sd is itself
 * estimated from few pairs (a t-based calculation would ask for a few more seeds), so read it as
 * "about this many", not as a guarantee.
 */
import { checkFinite, checkLevel } from "./check.ts"

// Acklam's rational approximation of the inverse normal CDF (P. J. Acklam, 2003; relative error
// below 1.15e-9 over (0, 1)): a central rational function and two tail ones.
const A = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
const C = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
const P_LOW = 0.02425

const tail = (p: number): number => {
  const q = Math.sqrt(-2 * Math.log(p))
  return (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) / ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1)
}

/** z such that Φ(z) = p, for p in (0, 1). */
export const normalQuantile = (p: number): number => {
  checkLevel(p, "normalQuantile: p")
  if (p < P_LOW) return tail(p)
  if (p > 1 - P_LOW) return -tail(1 - p)
  const q = p - 0.5
  const r = q * q
  return ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) / (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1)
}

export interface PowerOptions {
  /** The difference to detect, on the score's scale (default 0.05: five points of success). */
  readonly delta?: number
  /** Two-sided significance level (default 0.05). */
  readonly alpha?: number
  /** Probability of detecting `delta` when it is real (default 0.8). */
  readonly power?: number
}

/**
 * Seeds (pairs) needed to detect `delta` at the given power, from the observed sd of the paired
 * differences. Null when the sd is unknown (null: fewer than two pairs). At least 2: a paired
 * test needs two pairs to estimate its own variance, even when the observed sd is 0.
 */
export const seedsForPower = (sd: number | null, options: PowerOptions = {}): number | null => {
  if (sd === null) return null
  checkFinite(sd, "seedsForPower: sd")
  if (sd < 0) throw new RangeError(`seedsForPower: sd must be >= 0, got ${sd}`)
  const delta = options.delta ?? 0.05
  if (!(delta > 0 && Number.isFinite(delta))) throw new RangeError(`seedsForPower: delta must be a finite number > 0, got ${String(delta)}`)
  const alpha = options.alpha ?? 0.05
  const power = options.power ?? 0.8
  checkLevel(alpha, "seedsForPower: alpha")
  checkLevel(power, "seedsForPower: power")
  const z = normalQuantile(1 - alpha / 2) + normalQuantile(power)
  return Math.max(2, Math.ceil(((z * sd) / delta) ** 2))
}
