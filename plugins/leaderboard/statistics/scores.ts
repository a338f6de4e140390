/**
 * A run's score, two ways, from its validation curve (the headline validation success at each
 * evaluation step): the peak over evaluations, as the paper reports it (RAGEN-2 tables), and the
 * mean of the last 3 evaluations, the end of training. The peak of k noisy evaluations grows
 * with k even when nothing is learnt (the max of k draws is biased upward), so the two can
 * disagree; the last-3 mean is the less biased of the two (Agarwal et al. 2021 report final
 * scores for the same reason).
 */
import { checkFinite } from "./check.ts"

export interface CurvePoint {
  readonly step: number
  readonly value: number
}

/** Lines of a metrics file: a step and metric values (non-numbers are skipped). */
export type MetricLines = ReadonlyArray<Readonly<Record<string, number | null | undefined>>>

/**
 * The (step, value) points of one metric, sorted by step; a step logged twice keeps its last
 * value (a resumed run may repeat the step it resumed from). NaN or ±Infinity is an error.
 */
export const curveOf = (lines: MetricLines, metric: string): CurvePoint[] => {
  const byStep = new Map<number, number>()
  lines.forEach((l, i) => {
    const v = l[metric]
    const step = l.step
    if (typeof v !== "number" || typeof step !== "number") return
    checkFinite(v, `curveOf: line ${i} ${metric}`)
    checkFinite(step, `curveOf: line ${i} step`)
    byStep.set(step, v)
  })
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([step, value]) => ({ step, value }))
}

const checkCurve = (curve: ReadonlyArray<CurvePoint>, what: string): void => {
  if (curve.length === 0) throw new RangeError(`${what}: the curve has no evaluations`)
  curve.forEach((p, i) => checkFinite(p.value, `${what}: point ${i}`))
}

/** The highest value of the curve (the paper's "peak validation success"). */
export const peakScore = (curve: ReadonlyArray<CurvePoint>): number => {
  checkCurve(curve, "peakScore")
  let best = -Infinity
  for (const p of curve) if (p.value > best) best = p.value
  return best
}

/** How many final evaluations the end-of-training score averages. */
export const LAST_EVALS = 3

/** Mean of the last `k` evaluations by step (all of them when there are fewer than k). */
export const lastMeanScore = (curve: ReadonlyArray<CurvePoint>, k = LAST_EVALS): number => {
  checkCurve(curve, "lastMeanScore")
  if (!(Number.isInteger(k) && k >= 1)) throw new RangeError(`lastMeanScore: k must be an integer >= 1, got ${String(k)}`)
  const sorted = [...curve].sort((a, b) => a.step - b.step)
  const tail = sorted.slice(-k)
  return tail.reduce((a, p) => a + p.value, 0) / tail.length
}

/** Success at step 0 (the warm start, as the run's stream validates it); null when the curve has no step-0 evaluation. */
export const startScore = (curve: ReadonlyArray<CurvePoint>): number | null => (curve[0]?.step === 0 ? curve[0].value : null)

/**
 * The area under the validation curve, as the mean of the evaluations after the first step (the
 * shared warm start, equal in every arm of a seed): not biased upward by picking a maximum, and
 * it sees a collapse that the peak hides. Null when the curve has no evaluation after its first step.
 */
export const areaScore = (curve: ReadonlyArray<CurvePoint>): number | null => {
  checkCurve(curve, "areaScore")
  const first = Math.min(...curve.map((p) => p.step))
  const after = curve.filter((p) => p.step > first)
  return after.length ? after.reduce((a, p) => a + p.value, 0) / after.length : null
}
