/**
 * The collapse warning and the reference code's early-stopping rules, on the metric history
 * of a run (one record per logged step, docs/metrics.md names). Pure: the trainer calls it
 * after each metrics line, prints `collapseAnnouncement` (only when a warning first appears or
 * changes kind) and stops when `stop` is set.
 * - Template collapse (RAGEN-2 §3): an MI proxy falls by ≥ miDrop (relative) from its best
 *   while policy entropy holds (has not fallen by more than entropyTolerance, relative, since
 *   that best step) — entropy alone would not see it.
 * - Reasoning fidelity (docs/design.md §10, the earliest signal): reasoning/fact_accuracy falls by
 *   ≥ factDrop (absolute) from its best.
 * - Early stopping, the rules of the reference trainer (mll-lab-nu/RAGEN
 *   ragen/trainer/agent_trainer.py `fit`), each off unless its threshold is set:
 *   reward-variance collapse: the baseline is the mean of rvMetric over the first
 *   rvBaselineSteps non-empty steps; stop when the last rvPatience non-empty steps after it are
 *   all below rvFraction × baseline (reference: 10 steps, 0.1×, `rollout/in_group_reward_std`);
 *   empty filter: stop after emptyPatience consecutive steps whose filter kept nothing
 *   (reference: rollout_filter_empty_stop_steps, 5 in config/base.yaml); low validation: stop
 *   when valMetric is below valThreshold at valPatience consecutive validations (reference:
 *   success < 0.01 five times). rvThreshold is an absolute variant of the first rule.
 */
import { Schema } from "effect"
import { withDefault as dflt } from "../contracts/defaults.ts"

type Line = Readonly<Record<string, number | null | undefined>>

const Frac = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

export const CollapseThresholds = Schema.Struct({
  /** MI metrics watched (the first one present in the history is used). */
  miMetrics: dflt(Schema.Array(Schema.String), ["mi/probe_first_turn/mi_est", "mi/first_turn/mi_est", "mi/trajectory/mi_est"]),
  miDrop: dflt(Frac, 0.2),
  entropyMetric: dflt(Schema.String, "train/entropy"),
  entropyTolerance: dflt(Frac, 0.1),
  factMetric: dflt(Schema.String, "reasoning/fact_accuracy"),
  factDrop: dflt(Frac, 0.2),
  /** Early stop on reward-variance collapse (pre-filter mean group spread, in the filter's metric). */
  rvMetric: dflt(Schema.String, "filter/rv_mean"),
  /** Stop when rvMetric stays below this fraction of its baseline (reference: 0.1); null = off. */
  rvFraction: dflt(Schema.NullOr(Frac), null),
  /** Non-empty steps whose mean is the baseline (reference: 10). */
  rvBaselineSteps: dflt(PosInt, 10),
  /** Consecutive non-empty steps below the bound that stop the run (reference: 10). */
  rvPatience: dflt(PosInt, 10),
  /** Absolute variant: stop when rvMetric stays below this for rvPatience steps; null = off. */
  rvThreshold: dflt(Schema.NullOr(Schema.Finite), null),
  /** 1 on a step whose filter kept nothing. */
  emptyMetric: dflt(Schema.String, "filter/empty"),
  /** Stop after this many consecutive empty-filter steps (reference: 5); null = off. */
  emptyPatience: dflt(Schema.NullOr(PosInt), null),
  valMetric: dflt(Schema.String, "val/success@0.5"),
  /** Stop when valMetric is below this at valPatience consecutive validations (reference: 0.01); null = off. */
  valThreshold: dflt(Schema.NullOr(Schema.Finite), null),
  valPatience: dflt(PosInt, 5),
  /** Validations before this step do not count (reference: none, 0). */
  valWarmup: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 0)
})
export type CollapseThresholds = typeof CollapseThresholds.Type

/** The reference trainer's early-stopping settings, for `--set collapse.<key>=<value>` or a config. */
export const referenceEarlyStop = { rvFraction: 0.1, rvBaselineSteps: 10, rvPatience: 10, emptyPatience: 5, valThreshold: 0.01, valPatience: 5 } as const

/** The defaults, decoded (for callers that do not take user thresholds). */
export const defaultCollapseThresholds: CollapseThresholds = Schema.decodeUnknownSync(CollapseThresholds)({})

/** What a warning is about; the trainer prints a warning when its set of kinds changes. */
export type CollapseKind = "template-collapse" | "reasoning-fidelity"
export type EarlyStopKind = "reward-variance" | "empty-filter" | "low-validation"

export interface CollapseCheck {
  readonly warning: boolean
  /** Why (empty when no warning); several reasons are joined with "; ". */
  readonly reason: string
  /** The kinds of the reasons, in a fixed order (template-collapse, then reasoning-fidelity). */
  readonly kinds: ReadonlyArray<CollapseKind>
  /** An early-stopping rule fired. */
  readonly stop: boolean
  readonly stopReason: string
  readonly stopKinds: ReadonlyArray<EarlyStopKind>
}

/**
 * The line to print for this step's check, or undefined: a warning is announced when it first
 * appears or its kinds change (template collapse joins fidelity, say), not on every step while
 * it holds. `previous` is the check of the step before (undefined at the first step).
 */
export const collapseAnnouncement = (previous: CollapseCheck | undefined, current: CollapseCheck): string | undefined => {
  if (!current.warning) return undefined
  const before = previous?.warning ? previous.kinds.join("+") : ""
  return current.kinds.join("+") === before ? undefined : `collapse warning: ${current.reason}`
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
  const kinds: CollapseKind[] = []
  const stops: string[] = []
  const stopKinds: EarlyStopKind[] = []

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
        kinds.push("template-collapse")
      }
    }
  }

  const fact = valuesOf(history, t.factMetric)
  if (fact.length > 0) {
    const best = fact.reduce((a, b) => (b.v > a.v ? b : a))
    const cur = fact[fact.length - 1]!
    if (cur.i > best.i && best.v - cur.v >= t.factDrop) {
      reasons.push(`reasoning fidelity: ${t.factMetric} fell from ${fmt(best.v)} to ${fmt(cur.v)}`)
      kinds.push("reasoning-fidelity")
    }
  }

  const empty = (i: number) => history[i]![t.emptyMetric] === 1
  const stepOf = (i: number) => history[i]!["step"]

  if (t.rvFraction !== null || t.rvThreshold !== null) {
    // The reference records the spread of non-empty steps only (an empty step `continue`s first).
    const rv = valuesOf(history, t.rvMetric).filter((x) => !empty(x.i))
    if (t.rvFraction !== null && rv.length >= t.rvBaselineSteps + t.rvPatience) {
      const baseline = rv.slice(0, t.rvBaselineSteps).reduce((a, x) => a + x.v, 0) / t.rvBaselineSteps
      const bound = t.rvFraction * baseline
      if (rv.slice(-t.rvPatience).every((x) => x.v < bound)) {
        stops.push(
          `reward-variance collapse: ${t.rvMetric} below ${t.rvFraction} × its baseline ${fmt(baseline)} (mean of the first ${t.rvBaselineSteps} non-empty steps) for ${t.rvPatience} consecutive steps`
        )
        stopKinds.push("reward-variance")
      }
    }
    if (t.rvThreshold !== null && rv.length >= t.rvPatience && rv.slice(-t.rvPatience).every((x) => x.v < t.rvThreshold!)) {
      stops.push(`reward-variance collapse: ${t.rvMetric} below ${t.rvThreshold} for ${t.rvPatience} consecutive non-empty steps`)
      if (!stopKinds.includes("reward-variance")) stopKinds.push("reward-variance")
    }
  }

  if (t.emptyPatience !== null) {
    let run = 0
    for (let i = history.length - 1; i >= 0 && empty(i); i--) run++
    if (run >= t.emptyPatience) {
      stops.push(`empty filter: nothing kept for ${run} consecutive steps (${t.emptyMetric}; emptyPatience ${t.emptyPatience})`)
      stopKinds.push("empty-filter")
    }
  }

  if (t.valThreshold !== null) {
    const val = valuesOf(history, t.valMetric).filter((x) => {
      const step = stepOf(x.i)
      return typeof step !== "number" || step >= t.valWarmup
    })
    let run = 0
    for (let k = val.length - 1; k >= 0 && val[k]!.v < t.valThreshold; k--) run++
    if (run >= t.valPatience) {
      const last = val[val.length - 1]!
      stops.push(`low validation success: ${t.valMetric} below ${t.valThreshold} at ${run} consecutive validations (last ${fmt(last.v)} at step ${stepOf(last.i)})`)
      stopKinds.push("low-validation")
    }
  }

  return { warning: reasons.length > 0, reason: reasons.join("; "), kinds, stop: stops.length > 0, stopReason: stops.join("; "), stopKinds }
}
