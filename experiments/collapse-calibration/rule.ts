/**
 * The collapse track's per-seed gate (docs/results/calibration.md §5, fixed before any calibration
 * run): a seed rises then falls when its validation success peaks above step 0 after step 0, its
 * last-3 mean ends at least 10 points below that peak, and its first evaluation after step 0 is
 * not 10 or more points below step 0 (a blow-up). A setting passes on at least two thirds of its
 * seeds, with MI-Est falling (fact accuracy where MI-Est is saturated at 90% of its bound).
 */
import type { CurvePoint } from "../../plugins/leaderboard/statistics/scores.ts"

/** Gate constants, as written in docs/results/calibration.md §5 before any run. */
export const FALL = 0.1
export const BLOWUP = 0.1
export const SHARE = 2 / 3
export const SATURATED = 0.9

export interface SeedGate {
  readonly seed: number
  readonly curve: ReadonlyArray<CurvePoint>
  readonly step0: number
  readonly peak: number
  readonly peakStep: number
  readonly last3: number
  readonly first: number
  readonly blowUp: boolean
  readonly rises: boolean
  readonly falls: boolean
  readonly pass: boolean
}

/** The per-seed gate on a validation curve (points at steps 0, e, …, T; at least 4 points). */
export const seedGate = (seed: number, curve: ReadonlyArray<CurvePoint>): SeedGate | null => {
  if (curve.length < 4 || curve[0]!.step !== 0) return null
  const step0 = curve[0]!.value
  const after = curve.slice(1)
  const best = after.reduce((b, p) => (p.value > b.value ? p : b), after[0]!)
  const last3 = curve.slice(-3).reduce((s, p) => s + p.value, 0) / 3
  const first = after[0]!.value
  const blowUp = first <= step0 - BLOWUP + 1e-9
  const rises = best.value > step0
  const falls = last3 <= best.value - FALL + 1e-9
  return { seed, curve, step0, peak: best.value, peakStep: best.step, last3, first, blowUp, rises, falls, pass: rises && falls && !blowUp }
}
