/**
 * Does a run rise and then collapse? The collapse track's per-seed gate (docs/results/calibration.md
 * §5, issue 39, written before any calibration run), on a run's validation-success curve at its
 * evaluation steps:
 *
 * - rises: its peak after step 0 is above its step-0 success;
 * - falls: the mean of its last 3 evaluations ends at least FALL (10 points) below that peak;
 * - blow-up: its first evaluation after step 0 is already BLOWUP (10 points) or more below step 0
 *   — an immediate fall, not a collapse, whatever follows.
 *
 * A run collapses when it rises, falls and is not a blow-up. A setting collapses when at least
 * SHARE (two thirds) of its runs do. (The track's gate adds that MI-Est falls over the run; the
 * replication report splits runs and settings on the success curve alone and shows the diagnostics
 * beside it.) Needs a step-0 evaluation and at least 3 more: with fewer, nothing is decided.
 *
 * The one copy of the rule: experiments/collapse-calibration/rule.ts reads the track's gate through it.
 */
import type { CurvePoint } from "./scores.ts"

export const FALL = 0.1
export const BLOWUP = 0.1
export const SHARE = 2 / 3

export type CollapseKind = "collapses" | "blow-up" | "no collapse"

export interface Collapse {
  readonly kind: CollapseKind
  readonly step0: number
  readonly peak: number
  readonly peakStep: number
  readonly last3: number
}

/** The gate on one run's curve (points in step order, the first at step 0); null with fewer than 4 points or no step 0. */
export const collapseOf = (curve: ReadonlyArray<CurvePoint>): Collapse | null => {
  if (curve.length < 4 || curve[0]!.step !== 0) return null
  const step0 = curve[0]!.value
  const after = curve.slice(1)
  const best = after.reduce((b, p) => (p.value > b.value ? p : b), after[0]!)
  const last3 = curve.slice(-3).reduce((s, p) => s + p.value, 0) / 3
  const blowUp = after[0]!.value <= step0 - BLOWUP + 1e-9
  const rises = best.value > step0
  const falls = last3 <= best.value - FALL + 1e-9
  const kind: CollapseKind = blowUp ? "blow-up" : rises && falls ? "collapses" : "no collapse"
  return { kind, step0, peak: best.value, peakStep: best.step, last3 }
}

/**
 * Whether a run's success falls at all: its last-3 mean ends at least FALL below its highest
 * evaluation, step 0 included — a collapse after a rise, a blow-up, or a slower fall from the
 * start. Null with fewer than 4 points or no step 0.
 */
export const successFalls = (curve: ReadonlyArray<CurvePoint>): boolean | null => {
  if (curve.length < 4 || curve[0]!.step !== 0) return null
  const top = Math.max(...curve.map((p) => p.value))
  return curve.slice(-3).reduce((s, p) => s + p.value, 0) / 3 <= top - FALL + 1e-9
}

/** A setting collapses when at least SHARE of its decided runs collapse (null when fewer than minRuns are decided). */
export const shareCollapses = (kinds: ReadonlyArray<CollapseKind | null>, minRuns = 1): { collapses: boolean; runs: number; collapsed: number } | null => {
  const decided = kinds.filter((k): k is CollapseKind => k !== null)
  if (decided.length === 0 || decided.length < minRuns) return null
  const collapsed = decided.filter((k) => k === "collapses").length
  return { collapses: collapsed >= SHARE * decided.length - 1e-9, runs: decided.length, collapsed }
}

/** The same, from the runs' curves (null when none is decided). */
export const settingCollapses = (curves: ReadonlyArray<ReadonlyArray<CurvePoint>>): { collapses: boolean; runs: number; collapsed: number } | null =>
  shareCollapses(curves.map((c) => collapseOf(c)?.kind ?? null))
