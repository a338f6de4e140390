/**
 * Which diagnostics predict the outcome of a run (the paper's Fig. 8: Spearman correlation of
 * each MI-family and entropy metric with final task success, across runs). Pure: the runs'
 * metric lines and targets in, one row per metric out; `ragen-bench analyze` does the IO.
 * A metric's value for a run is the one logged at the chosen step, or the latest one logged
 * before it (the MI proxies are logged only every diagEvery steps); by default its first
 * logged value (the earliest step at which a diagnostic could warn).
 */
import { bootstrapSpearman, spearman } from "./spearman.ts"

type Line = Readonly<Record<string, number | null | undefined>>

export interface RunPoint {
  /** Run id (folder name), for messages. */
  readonly id: string
  /** metrics.jsonl lines in step order. */
  readonly lines: ReadonlyArray<Line>
  /** The outcome the diagnostics are correlated with (final validation success). */
  readonly target: number
}

/** The diagnostics analyze looks at by default: mi/*, reasoning/*, filter/* and the policy entropy. */
export const isDiagnostic = (name: string): boolean => /^(mi|reasoning|filter)\//.test(name) || name === "policy/entropy" || name === "train/entropy"

/** Every metric name logged by any of the runs (without "step"), sorted. */
export const metricNames = (runs: ReadonlyArray<RunPoint>): string[] => {
  const names = new Set<string>()
  for (const r of runs) for (const l of r.lines) for (const [k, v] of Object.entries(l)) if (k !== "step" && typeof v === "number") names.add(k)
  return [...names].sort()
}

/** The value of `name` at `step` or the latest logged before it; with no step, the first logged. */
export const valueAt = (lines: ReadonlyArray<Line>, name: string, step?: number): { step: number; value: number } | undefined => {
  let found: { step: number; value: number } | undefined
  for (const l of lines) {
    const v = l[name]
    const s = l["step"]
    if (typeof v !== "number" || !Number.isFinite(v) || typeof s !== "number") continue
    if (step === undefined) return { step: s, value: v }
    if (s > step) break
    found = { step: s, value: v }
  }
  return found
}

export interface CorrelationRow {
  readonly metric: string
  /** Runs that logged the metric by the chosen step. */
  readonly n: number
  /** Spearman's ρ; NaN when n < 2 or either side is constant. */
  readonly rho: number
  /** Percentile bootstrap interval of ρ. */
  readonly lo: number
  readonly hi: number
  /** Range of the steps the values came from (they differ when runs log at different steps). */
  readonly stepMin: number
  readonly stepMax: number
}

export interface CorrelateOptions {
  readonly step?: number
  readonly resamples?: number
  readonly seed?: number
  readonly level?: number
}

export const correlate = (runs: ReadonlyArray<RunPoint>, metrics: ReadonlyArray<string>, o: CorrelateOptions = {}): CorrelationRow[] =>
  metrics.map((metric) => {
    const x: number[] = []
    const y: number[] = []
    let stepMin = Infinity
    let stepMax = -Infinity
    for (const r of runs) {
      const v = valueAt(r.lines, metric, o.step)
      if (!v) continue
      x.push(v.value)
      y.push(r.target)
      stepMin = Math.min(stepMin, v.step)
      stepMax = Math.max(stepMax, v.step)
    }
    const ci = bootstrapSpearman(x, y, { resamples: o.resamples ?? 1000, seed: o.seed ?? 12345, level: o.level ?? 0.95 })
    return {
      metric,
      n: x.length,
      rho: spearman(x, y),
      lo: ci.lo,
      hi: ci.hi,
      stepMin: x.length > 0 ? stepMin : Number.NaN,
      stepMax: x.length > 0 ? stepMax : Number.NaN
    }
  })
