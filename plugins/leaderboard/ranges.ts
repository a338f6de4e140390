/**
 * The leaderboard reads other people's result files: a value outside its metric's range (a share
 * above 1, a 1.7e308 that overflows a mean or a budget sum to Infinity) leaves its run out with a
 * problem naming the file, the key and the value, when the run is read — so the statistics only
 * ever see numbers whose sums and squares stay finite.
 */
import { matchMetricKey, type RunRead } from "../../core/host.ts"

/**
 * The largest magnitude any metric may hold. Real values stay far below (token sums of a
 * 100k-step run are ~1e10); 1e15 summed over the 2-million-line cap and squared stays finite.
 */
export const MAX_METRIC_MAGNITUDE = 1e15

/** Shares (docs/metrics.md says "(0–1"): the float error of a mean of shares aside, within [0, 1]. */
const SHARE_SLACK = 1e-9

const isShare = (key: string): boolean => matchMetricKey(key)?.meaning.includes("(0–1") ?? false

/** Why a metric value is out of range, or undefined when it is fine (null: not logged). */
export const valueProblem = (key: string, v: number | null | undefined, share = isShare(key)): string | undefined => {
  if (v === null || v === undefined) return undefined
  if (!Number.isFinite(v) || Math.abs(v) > MAX_METRIC_MAGNITUDE) return `${key} = ${v} is outside ±${MAX_METRIC_MAGNITUDE}`
  if (share && (v < -SHARE_SLACK || v > 1 + SHARE_SLACK)) return `${key} = ${v} is outside 0–1 (a share)`
  return undefined
}

const lineProblem = (line: Readonly<Record<string, number | null>>): string | undefined => {
  for (const k in line) {
    const why = valueProblem(k, line[k])
    if (why) return why
  }
  return undefined
}

/** The first out-of-range value of a run (its metrics lines, then its summary), with where it is. */
export const runRangeProblem = (run: RunRead, metricsName = "metrics.jsonl"): string | undefined => {
  const lines = run.metrics.lines
  for (let i = 0; i < lines.length; i++) {
    const why = lineProblem(lines[i]!)
    if (why) return `${metricsName} line ${i + 1}: ${why}; run left out`
  }
  // A compact record's per-run budget sums (core/results/compact.ts).
  const budget = (run as { readonly budget?: Readonly<Record<string, number | null>> }).budget
  const inBudget = budget ? lineProblem(budget) : undefined
  if (inBudget) return `budget: ${inBudget}; run left out`
  const s = run.summary
  if (!s) return undefined
  const why = valueProblem("peakValSuccess", s.peakValSuccess, true) ?? valueProblem("finalValSuccess", s.finalValSuccess, true) ?? lineProblem(s.final)
  return why ? `summary.json: ${why}; run left out` : undefined
}
