/**
 * The collapse warning and the reference code's early-stopping rules, on the metric history
 * of a run (one record per logged step, docs/metrics.md names). Pure: the trainer calls it
 * after each metrics line and logs the warning; it stops when `stop` is set.
 * - Template collapse (RAGEN-2 §3): an MI proxy falls by ≥ miDrop (relative) from its best
 *   while policy entropy holds (has not fallen by more than entropyTolerance, relative, since
 *   that best step) — entropy alone would not see it.
 * - Reasoning fidelity (DESIGN.md §10, the earliest signal): reasoning/fact_accuracy falls by
 *   ≥ factDrop (absolute) from its best.
 * - Early stopping (RAGEN reference code): reward-variance collapse, filter/rv_mean below
 *   rvThreshold for rvPatience consecutive logged steps; low validation success, val/success
 *   below valThreshold once step ≥ valWarmup. Both off unless their threshold is set.
 */
import { Effect, Schema } from "effect"

type Line = Readonly<Record<string, number | null | undefined>>

const dflt = <S extends Schema.Top>(s: S, v: S["Encoded"]) => s.pipe(Schema.withDecodingDefault(Effect.succeed(v)))
const Frac = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

export const CollapseThresholds = Schema.Struct({
  /** MI metrics watched (the first one present in the history is used). */
  miMetrics: dflt(Schema.Array(Schema.String), ["mi/probe_first_turn/mi_est", "mi/first_turn/mi_est", "mi/trajectory/mi_est"]),
  miDrop: dflt(Frac, 0.2),
  entropyMetric: dflt(Schema.String, "train/entropy"),
  entropyTolerance: dflt(Frac, 0.1),
  factMetric: dflt(Schema.String, "reasoning/fact_accuracy"),
  factDrop: dflt(Frac, 0.2),
  rvMetric: dflt(Schema.String, "filter/rv_mean"),
  rvThreshold: dflt(Schema.NullOr(Schema.Finite), null),
  rvPatience: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), 5),
  valMetric: dflt(Schema.String, "val/success@0.5"),
  valThreshold: dflt(Schema.NullOr(Schema.Finite), null),
  valWarmup: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 50)
})
export type CollapseThresholds = typeof CollapseThresholds.Type

/** The defaults, decoded (for callers that do not take user thresholds). */
export const defaultCollapseThresholds: CollapseThresholds = Schema.decodeUnknownSync(CollapseThresholds)({})

export interface CollapseCheck {
  readonly warning: boolean
  /** Why (empty when no warning); several reasons are joined with "; ". */
  readonly reason: string
  /** An early-stopping rule fired. */
  readonly stop: boolean
  readonly stopReason: string
}

const valuesOf = (history: ReadonlyArray<Line>, name: string): Array<{ i: number; v: number }> => {
  const out: Array<{ i: number; v: number }> = []
  history.forEach((l, i) => {
    const v = l[name]
    if (typeof v === "number" && Number.isFinite(v)) out.push({ i, v })
  })
  return out
}

/** The logged value of `name` at or before line i (undefined when none). */
const valueAtOrBefore = (history: ReadonlyArray<Line>, name: string, i: number): number | undefined => {
  for (let k = i; k >= 0; k--) {
    const v = history[k]![name]
    if (typeof v === "number" && Number.isFinite(v)) return v
  }
  return undefined
}

const fmt = (x: number) => Number(x.toPrecision(4))

export const collapseCheck = (history: ReadonlyArray<Line>, thresholds: Partial<CollapseThresholds> = {}): CollapseCheck => {
  const t: CollapseThresholds = { ...defaultCollapseThresholds, ...thresholds }
  const reasons: string[] = []
  const stops: string[] = []

  const miName = t.miMetrics.find((m) => valuesOf(history, m).length > 0)
  if (miName) {
    const mi = valuesOf(history, miName)
    const best = mi.reduce((a, b) => (b.v > a.v ? b : a))
    const cur = mi[mi.length - 1]!
    const drop = best.v > 0 ? (best.v - cur.v) / best.v : 0
    if (cur.i > best.i && drop >= t.miDrop) {
      const eBest = valueAtOrBefore(history, t.entropyMetric, best.i)
      const eCur = valueAtOrBefore(history, t.entropyMetric, history.length - 1)
      const holds = eBest === undefined || eCur === undefined || eCur >= eBest * (1 - t.entropyTolerance)
      if (holds) {
        const ent = eBest !== undefined && eCur !== undefined ? ` while ${t.entropyMetric} holds (${fmt(eBest)} → ${fmt(eCur)})` : ` (${t.entropyMetric} not logged)`
        reasons.push(`template collapse: ${miName} fell ${fmt(100 * drop)}% from its best ${fmt(best.v)} to ${fmt(cur.v)}${ent}`)
      }
    }
  }

  const fact = valuesOf(history, t.factMetric)
  if (fact.length > 0) {
    const best = fact.reduce((a, b) => (b.v > a.v ? b : a))
    const cur = fact[fact.length - 1]!
    if (cur.i > best.i && best.v - cur.v >= t.factDrop) {
      reasons.push(`reasoning fidelity: ${t.factMetric} fell from ${fmt(best.v)} to ${fmt(cur.v)}`)
    }
  }

  if (t.rvThreshold !== null) {
    const rv = valuesOf(history, t.rvMetric)
    const tail = rv.slice(-t.rvPatience)
    if (tail.length === t.rvPatience && tail.every((x) => x.v < t.rvThreshold!)) {
      stops.push(`reward-variance collapse: ${t.rvMetric} below ${t.rvThreshold} for ${t.rvPatience} consecutive logged steps`)
    }
  }

  if (t.valThreshold !== null) {
    const val = valuesOf(history, t.valMetric)
    const last = val[val.length - 1]
    const step = last ? history[last.i]!["step"] : undefined
    if (last && typeof step === "number" && step >= t.valWarmup && last.v < t.valThreshold) {
      stops.push(`low validation success: ${t.valMetric} ${fmt(last.v)} < ${t.valThreshold} at step ${step} (warm-up ${t.valWarmup})`)
    }
  }

  return { warning: reasons.length > 0, reason: reasons.join("; "), stop: stops.length > 0, stopReason: stops.join("; ") }
}
