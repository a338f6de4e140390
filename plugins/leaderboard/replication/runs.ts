/**
 * The replication report's view of a run: what a claim selects runs by (env, algorithm, filter
 * and its options, seed, the settings it pairs within) and the curves it reads.
 *
 * Curves are read at evaluation steps only (the steps whose line has val/success@0.5: what a
 * compact record keeps, core/results/compact.ts), so a run folder and its compact record give
 * the same numbers.
 */
import { canonicalJson, type RunRead, SUCCESS_METRIC } from "../../../core/host.ts"
import { type CurvePoint, curveOf, startScore } from "../statistics/scores.ts"
import { envName, last3Of, peakOf, samplingStreamOf } from "../build.ts"
import { areaOf, keptOf } from "../run-scores.ts"

type Config = RunRead["config"]["config"]

export interface RunView {
  readonly run: RunRead
  readonly runId: string
  readonly env: string
  readonly algo: string
  /** The filter's local id ("top-p-softmax"). */
  readonly filter: string
  readonly filterOptions: Readonly<Record<string, unknown>>
  readonly seed: number
  /** train.samplingStream: ≠ 0 is the noise floor, never part of a claim. */
  readonly stream: number
  /** Runs with the same group differ only in seed and filter (and stream): the unit of pairing. */
  readonly group: string
  readonly semantics: number
  readonly codeVersion: string
  readonly complete: boolean
  readonly wallSeconds: number | null
  /** Peak validation success (the paper's score) and the mean of the last 3 evaluations. */
  readonly peak: number | null
  readonly last3: number | null
  /** The area under the validation curve (mean success over the evaluations after step 0): the filter claims' endpoint. */
  readonly auc: number | null
  /** Validation success at step 0 (null without a step-0 evaluation): where the area's rise is measured from. */
  readonly start: number | null
  /** Zero-spread groups' mean fraction (null where not logged) and whether success is 0 at every evaluation: "does not learn". */
  readonly zeroSpread: number | null
  readonly allZero: boolean
}

const localId = (id: string): string => id.replace(/^.*\//, "")

/** The config without what a pairing group leaves free: seed, filter, its options, the sampling stream. */
export const pairingConfig = (c: Config): Omit<Config, "seed" | "filter" | "filterOptions"> => {
  const { seed: _s, filter: _f, filterOptions: _fo, ...rest } = c
  const { samplingStream: _ss, ...train } = (rest.train ?? {}) as Record<string, unknown>
  return { ...rest, train }
}

export const viewOf = (run: RunRead): RunView => {
  const c = run.config.config
  const curve = curveOf(run.metrics.lines, SUCCESS_METRIC)
  return {
    run,
    runId: run.config.runId,
    env: envName(c.env),
    algo: localId(c.algo),
    filter: localId(c.filter),
    filterOptions: c.filterOptions,
    seed: c.seed,
    stream: samplingStreamOf(c),
    group: canonicalJson({ config: pairingConfig(c), semantics: run.config.semantics }),
    semantics: run.config.semantics,
    codeVersion: run.config.codeVersion,
    complete: run.summary?.status === "complete",
    wallSeconds: run.summary ? run.summary.wallSeconds : null,
    peak: peakOf(run),
    last3: last3Of(run),
    auc: areaOf(run),
    start: startScore(curve),
    zeroSpread: keptOf(run).zeroSpread,
    allZero: curve.every((p) => p.value === 0)
  }
}

const num = (o: Readonly<Record<string, unknown>>, k: string): number | undefined => (typeof o[k] === "number" ? (o[k] as number) : undefined)

/** No filter: `none`, or top-p-softmax at p ≥ 1 with zero-spread groups included (Table 4's "nofilter" arm keeps every group). */
export const isNoFilter = (v: RunView): boolean => v.filter === "none" || (v.filter === "top-p-softmax" && (num(v.filterOptions, "p") ?? 0) >= 1 && v.filterOptions.includeZero === true)

/** The paper's top-p (Table 4): softmax, p = 0.9, zero-spread groups included. */
export const isPaperTopP = (v: RunView): boolean => v.filter === "top-p-softmax" && num(v.filterOptions, "p") === 0.9 && v.filterOptions.includeZero === true

/** Linear top-p at 0.9 (Table 7's and Fig. 9's presets, §10's). */
export const isLinearTopP = (v: RunView): boolean => v.filter === "top-p" && num(v.filterOptions, "p") === 0.9

/** Any top-p that filters (p < 1), linear first: the prompt-level filter of Table 7 and Fig. 9. */
export const topPRank = (v: RunView): number | null => (isLinearTopP(v) ? 0 : isPaperTopP(v) ? 1 : null)

export const isWithinGroup = (v: RunView): boolean => v.filter === "within-group"

/** The quartile of a quantile filter keeping [lo, lo + 0.25): 1 = highest reward spread … 4; null otherwise. */
export const quartileOf = (v: RunView): number | null => {
  if (v.filter !== "quantile") return null
  const lo = num(v.filterOptions, "lo")
  const hi = num(v.filterOptions, "hi")
  if (lo === undefined || hi === undefined || Math.abs(hi - lo - 0.25) > 1e-9) return null
  const q = Math.round(lo / 0.25)
  return Math.abs(q * 0.25 - lo) < 1e-9 && q >= 0 && q <= 3 ? q + 1 : null
}

/** Runs a claim may use: complete, not the noise floor. */
export const eligible = (v: RunView): boolean => v.complete && v.stream === 0

export const groupBy = <T, K>(xs: ReadonlyArray<T>, key: (x: T) => K): Map<K, T[]> => {
  const m = new Map<K, T[]>()
  for (const x of xs) {
    const k = key(x)
    const list = m.get(k)
    if (list) list.push(x)
    else m.set(k, [x])
  }
  return m
}

/** Steps at which the run was evaluated (its val/success@0.5 is a number), ascending. */
export const evalSteps = (run: RunRead): number[] => curveOf(run.metrics.lines, SUCCESS_METRIC).map((p) => p.step)

/** A metric's points at evaluation steps (see the header). */
export const evalCurve = (run: RunRead, metric: string): CurvePoint[] => {
  const steps = new Set(evalSteps(run))
  return curveOf(run.metrics.lines, metric).filter((p) => steps.has(p.step))
}

/** Mean of the last k points of a curve; null for an empty one. */
export const lastMean = (curve: ReadonlyArray<CurvePoint>, k = 3): number | null => {
  if (curve.length === 0) return null
  const tail = curve.slice(-k)
  return tail.reduce((a, p) => a + p.value, 0) / tail.length
}

/** Dotted leaves of an object, values as canonical JSON. */
const leaves = (v: unknown, prefix: string, out: Map<string, string>): void => {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    for (const k of Object.keys(v as object).sort()) leaves((v as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out)
  } else out.set(prefix, canonicalJson(v))
}

/**
 * The settings whose values differ between pairing groups of the same env and algorithm, per
 * group as sorted `key=value` strings (e.g. `lr=0.001`, `algoOptions.variant=dr-grpo`).
 */
export const groupSettings = (views: ReadonlyArray<RunView>): Map<string, string[]> => {
  const firsts = [...groupBy(views, (v) => v.group).values()].map((vs) => vs[0]!)
  const out = new Map<string, string[]>()
  for (const same of groupBy(firsts, (v) => `${v.env} ${v.algo}`).values()) {
    const maps = same.map((v) => {
      // The env's version stays in: one family's rows may run on two (metamathqa-v1, -v2).
      const { algo: _a, ...rest } = pairingConfig(v.run.config.config)
      const m = new Map<string, string>()
      leaves({ ...rest, semantics: v.semantics }, "", m)
      return m
    })
    const keys = new Set(maps.flatMap((m) => [...m.keys()]))
    const varying = [...keys].filter((k) => new Set(maps.map((m) => m.get(k) ?? "∅")).size > 1).sort()
    same.forEach((v, i) =>
      out.set(
        v.group,
        varying.map((k) => `${k}=${(maps[i]!.get(k) ?? "-").replace(/^"|"$/g, "")}`)
      )
    )
  }
  return out
}

/** A short label per pairing group: env and algorithm, plus at most `max` of its groupSettings. */
export const groupLabels = (views: ReadonlyArray<RunView>, max = 3): Map<string, string> => {
  const firsts = new Map(views.map((v) => [v.group, v]))
  const out = new Map<string, string>()
  for (const [group, settings] of groupSettings(views)) {
    const v = firsts.get(group)!
    const more = settings.length > max ? ` +${settings.length - max} more` : ""
    out.set(group, [`${v.env} ${v.algo}`, ...settings.slice(0, max)].join(" ") + more)
  }
  return out
}
