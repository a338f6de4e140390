/**
 * The collapse track's per-seed gate (docs/results/calibration.md §5, fixed before any calibration
 * run), as the calibration script reads it. The rule itself — rise above step 0, last-3 mean at
 * least 10 points below the peak, no blow-up — is the leaderboard's one copy
 * (plugins/leaderboard/statistics/collapse.ts `collapseOf`); this adds the seed and the fields the
 * gate's tables print. A setting passes on at least two thirds of its seeds, with MI-Est falling
 * (fact accuracy where MI-Est is saturated at 90% of its bound).
 */
import { collapseOf } from "../../plugins/leaderboard/statistics/collapse.ts"
import type { CurvePoint } from "../../plugins/leaderboard/statistics/scores.ts"

export { SHARE } from "../../plugins/leaderboard/statistics/collapse.ts"
/** MI-Est at this share of its bound (log N) or more counts as saturated: fact accuracy is read instead. */
export const SATURATED = 0.9

export interface SeedGate {
  readonly seed: number
  readonly curve: ReadonlyArray<CurvePoint>
  readonly step0: number
  readonly peak: number
  readonly peakStep: number
  readonly last3: number
  readonly blowUp: boolean
  readonly pass: boolean
}

/** The per-seed gate on a validation curve (points at steps 0, e, …, T; at least 4 points). */
export const seedGate = (seed: number, curve: ReadonlyArray<CurvePoint>): SeedGate | null => {
  const c = collapseOf(curve)
  return c === null ? null : { seed, curve, step0: c.step0, peak: c.peak, peakStep: c.peakStep, last3: c.last3, blowUp: c.kind === "blow-up", pass: c.kind === "collapses" }
}
