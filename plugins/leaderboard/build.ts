/**
 * The leaderboard build: result folders → a Leaderboard (plugins/leaderboard/schema.ts).
 * Every file is read through its Schema (core/results/store.ts readRun); a file that does
 * not decode is reported by path and field and its run left out — never read as zeros
 * (the BALROG lesson, STYLE.md). `buildLeaderboard` itself is pure and deterministic (every
 * bootstrap is seeded by what it describes, so adding a row never changes another's numbers).
 *
 * Statistics (core/statistics; Agarwal et al. 2021 "Deep RL at the Edge of the Statistical
 * Precipice", with paired comparisons where runs share seeds):
 * - rows: env, algo and every resolved setting except seed, filter and the rollout sampling
 *   stream (train.samplingStream); cells: filter + options (+ stream). `none` with a stream ≠ 0
 *   is the noise floor, a reference cell in the row of `none`.
 * - per cell: peak validation success and the mean of the last 3 evaluations, each a mean over
 *   seeds with a 95% percentile-bootstrap interval; the per-seed difference against `none`
 *   (paired by seed) with its interval at the Holm level, a bootstrap p, "separated" when Holm
 *   over every comparison on the page rejects; the seeds needed for a 5-point difference at 80%
 *   power; the mean per run of each budget (env steps, tokens, rollouts, optimizer steps).
 * - per algorithm across rows: IQM of normalized scores and P(filter > none), stratified
 *   bootstrap intervals.
 * - a ranking of filters by their mean rank of peak success across rows (average ranks for ties),
 *   as the paper's Table 4 compares them.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { canonicalJson, contentHash } from "../../core/hash.ts"
import { readRun, scanRunDirs, type RunRead } from "../../core/results/store.ts"
import { readJsonFile } from "../../core/schema/decode.ts"
import { SUCCESS_METRIC } from "../../core/schema/results.ts"
import { bootstrapMeanInterval } from "../../core/statistics/bootstrap.ts"
import { probabilityOfImprovementInterval } from "../../core/statistics/improvement.ts"
import { type AggregateInterval, iqmInterval } from "../../core/statistics/iqm.ts"
import { type Comparison, type PairedResult, pairBySeed, pairedComparisons, type SeedScore } from "../../core/statistics/paired.ts"
import { curveOf, lastMeanScore } from "../../core/statistics/scores.ts"
import {
  type Across,
  type Aggregate,
  type Budget,
  type Cell,
  type CellKind,
  type Chart,
  type Entry,
  type Estimate,
  type Group,
  LEADERBOARD_VERSION,
  type Leaderboard,
  type Paired,
  type Problem,
  type RankEntry,
  type Row,
  VerifyFile
} from "./schema.ts"

/** The charts of a run group: the paper's Fig. 5 (success, MI, entropy), Fig. 10, Table 8. */
export const CHART_METRICS: ReadonlyArray<{ metric: string; title: string }> = [
  { metric: SUCCESS_METRIC, title: "validation success (T=0.5)" },
  { metric: "mi/first_turn/retrieval_acc", title: "MI retrieval accuracy (first turn)" },
  { metric: "train/entropy", title: "policy entropy" },
  { metric: "reasoning/fact_accuracy", title: "reasoning fact accuracy" },
  { metric: "filter/kept_ratio", title: "filter kept ratio" },
  { metric: "filter/zero_variance_groups", title: "zero-variance groups" },
  { metric: "filter/rv_mean", title: "reward variance: mean" },
  { metric: "filter/rv_std", title: "reward variance: std" }
]

/** The no-filter baseline's display name (the local id of the built-in `none`). */
export const BASELINE_FILTER = "none"

/** Points per chart series at most: a longer curve keeps every k-th point and its last one. */
export const MAX_CHART_POINTS = 2000

export const thin = <T>(xs: ReadonlyArray<T>, max: number): T[] => {
  if (xs.length <= max) return [...xs]
  const k = Math.ceil(xs.length / max)
  const out: T[] = []
  for (let i = 0; i < xs.length; i += k) out.push(xs[i]!)
  if ((xs.length - 1) % k !== 0) out.push(xs[xs.length - 1]!)
  return out
}

export interface RunInput {
  readonly run: RunRead
  /** Verified mark from verify.json (null: never verified). */
  readonly verified: boolean | null
}

export interface BuildInput {
  readonly runs: ReadonlyArray<RunInput>
  readonly problems: ReadonlyArray<Problem>
  /** Where the site is written: run links are relative to it. */
  readonly siteDir: string
  readonly sources: ReadonlyArray<string>
  /** Pairs a comparison needs before it can be marked separated (default core/statistics MIN_PAIRS_TO_SEPARATE). */
  readonly minPairs?: number
}

const r6 = (x: number): number => Math.round(x * 1e6) / 1e6

/** Family-wise error rate of "separated" (Holm over the page's comparisons). */
export const ALPHA = 0.05

/**
 * Normalizer of each env's success: the teacher's success. The scripted teacher solves every
 * built-in env at action noise ε = 0 (DESIGN.md §4; issue 17: "the teacher's ε = 0 success is 1.0
 * on every env"), so each is 1.0 and a normalized score is the success itself. An env not listed
 * (a plugin's) is assumed 1.0 too, and the page says so.
 */
export const NORMALIZER: Readonly<Record<string, number>> = { frozenlake: 1, sokoban: 1, countdown: 1, metamathqa: 1, webshop: 1, searchqa: 1 }

/** The per-step budget metrics summed per run (docs/metrics.md), by their Budget field. */
export const BUDGET_METRICS: ReadonlyArray<readonly [keyof Budget, string]> = [
  ["envSteps", "budget/env_steps"],
  ["tokens", "budget/tokens"],
  ["rollouts", "budget/rollouts"],
  ["optimizerSteps", "train/optimizer_steps"]
]

/** The noise floor's display name: `none` with only the rollout sampling stream changed. */
export const NOISE_FLOOR = "none′ (noise floor)"

/** Average ranks (1 = highest value), ties share the mean of their ranks. */
export const ranksDesc = (xs: ReadonlyArray<number>): number[] => {
  const idx = xs.map((_, i) => i).sort((a, b) => xs[b]! - xs[a]! || a - b)
  const out = new Array<number>(xs.length)
  for (let i = 0; i < idx.length; ) {
    let j = i
    while (j + 1 < idx.length && xs[idx[j + 1]!] === xs[idx[i]!]) j++
    for (let k = i; k <= j; k++) out[idx[k]!] = (i + j) / 2 + 1
    i = j + 1
  }
  return out
}

/** A run's rollout sampling stream (train.samplingStream); 0 for configs written before it existed. */
export const samplingStreamOf = (config: RunRead["config"]["config"]): number => {
  const v = (config.train as Record<string, unknown> | undefined)?.samplingStream
  return typeof v === "number" && Number.isInteger(v) ? v : 0
}

/** Mean of a run's last 3 evaluations of the success metric; null when its metrics hold none. */
export const last3Of = (run: RunRead): number | null => {
  const curve = curveOf(run.metrics.lines, SUCCESS_METRIC)
  return curve.length ? lastMeanScore(curve) : null
}

/**
 * A run's budget: each metric summed over its steps (a step logged twice, as a resumed run may,
 * counts once: its last line). A run read from a compact record carries its sums already
 * (`budget`, core/results/compact.ts), since its lines keep evaluation steps only.
 */
export const budgetOf = (run: RunRead): Budget => {
  const given = (run as RunRead & { budget?: Readonly<Record<string, number>> }).budget
  const out = { envSteps: null, tokens: null, rollouts: null, optimizerSteps: null } as Record<keyof Budget, number | null>
  if (given) {
    for (const [field, metric] of BUDGET_METRICS) {
      const v = given[metric]
      out[field] = typeof v === "number" && Number.isFinite(v) ? v : null
    }
    return out
  }
  // One pass over the lines: field → step → value (the last line of a step wins).
  const byStep = new Map<keyof Budget, Map<number, number>>()
  run.metrics.lines.forEach((l, i) => {
    for (const [field, metric] of BUDGET_METRICS) {
      const v = l[metric]
      if (typeof v !== "number") continue
      const m = byStep.get(field) ?? new Map<number, number>()
      byStep.set(field, m)
      m.set(typeof l.step === "number" ? l.step : -1 - i, v)
    }
  })
  for (const [field, m] of byStep) out[field] = [...m.values()].reduce((a, b) => a + b, 0)
  return out
}

/** Peak validation success of a run: its summary's, else the max over its metrics lines. */
export const peakOf = (run: RunRead): number | null => {
  if (run.summary?.peakValSuccess != null) return run.summary.peakValSuccess
  // A loop, not Math.max(...values): a spread of millions of values overflows the call stack.
  let best: number | null = null
  for (const l of run.metrics.lines) {
    const v = l[SUCCESS_METRIC]
    if (typeof v === "number" && (best === null || v > best)) best = v
  }
  return best
}

/**
 * Runs pool into one row only when their resolved configs agree apart from the seed and the
 * filter, under the same results-semantics version (a changed rule or default never pools).
 */
const rowKeyOf = (file: RunRead["config"]): string => {
  const { seed: _s, filter: _f, filterOptions: _fo, ...rest } = withoutStream(file.config)
  return canonicalJson({ config: rest, semantics: file.semantics })
}

/**
 * The config without train.samplingStream (the stream tells cells apart, not rows) and without
 * policyOptions.kernels (runs on different kernel backends are statistically equivalent and pool;
 * exact re-runs need the same backend, which config.json's runtime records).
 */
const withoutStream = (c: RunRead["config"]["config"]): RunRead["config"]["config"] => {
  const { kernels: _k, ...policyOptions } = (c.policyOptions ?? {}) as Record<string, unknown>
  if (!c.train || !("samplingStream" in c.train)) return { ...c, policyOptions }
  const { samplingStream: _ss, ...train } = c.train as Record<string, unknown>
  return { ...c, policyOptions, train }
}

/** The cell's identity: the resolved config (seed aside) and the semantics version its runs share. */
const cellHashOf = (file: RunRead["config"]): string => {
  const { seed: _s, ...rest } = withoutStream(file.config)
  return contentHash({ config: rest, semantics: file.semantics })
}

const localId = (id: string): string => id.replace(/^.*\//, "")

/**
 * Display names of filters, from the files alone: the filter's local id, plus the options whose
 * values differ between the configurations of that filter present ("top-p(p=0.9)" next to
 * "top-p(p=1)"; a filter run with one configuration is just "top-p").
 */
export const filterNames = (configs: ReadonlyArray<{ filter: string; filterOptions: Record<string, unknown> }>): Map<string, string> => {
  const byId = new Map<string, Array<Record<string, unknown>>>()
  for (const c of configs) {
    const list = byId.get(c.filter) ?? []
    if (!list.some((o) => canonicalJson(o) === canonicalJson(c.filterOptions))) list.push(c.filterOptions)
    byId.set(c.filter, list)
  }
  // Two plugins' filters of the same local id keep their full ids.
  const locals = new Map<string, number>()
  for (const id of byId.keys()) locals.set(localId(id), (locals.get(localId(id)) ?? 0) + 1)
  const out = new Map<string, string>()
  for (const [id, optionSets] of byId) {
    const keys = [...new Set(optionSets.flatMap((o) => Object.keys(o)))].sort()
    const varying = keys.filter((k) => new Set(optionSets.map((o) => canonicalJson(o[k] ?? null))).size > 1)
    const name = locals.get(localId(id))! > 1 ? id : localId(id)
    for (const o of optionSets) {
      const label = varying.length === 0 ? name : `${name}(${varying.map((k) => `${k}=${typeof o[k] === "object" ? canonicalJson(o[k]) : String(o[k])}`).join(",")})`
      out.set(`${id}\u0000${canonicalJson(o)}`, label)
    }
  }
  return out
}
const filterNameKey = (c: { filter: string; filterOptions: Record<string, unknown> }): string => `${c.filter}\u0000${canonicalJson(c.filterOptions)}`

/** Dotted leaves of an object: {a: {b: 1}} → {"a.b": "1"}. */
const leaves = (v: unknown, prefix: string, out: Map<string, string>): void => {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    for (const k of Object.keys(v as object).sort()) leaves((v as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out)
  } else out.set(prefix, canonicalJson(v))
}

/**
 * The settings that tell apart rows of the same env and algorithm, shown next to them (an env
 * option that only one env has, or one value per env, is not a distinguishing setting).
 */
const settingLabels = (configs: ReadonlyMap<string, RunRead["config"]["config"]>): Map<string, string> => {
  const groups = new Map<string, Array<[string, Map<string, string>]>>()
  for (const [key, c] of configs) {
    const { seed: _s, filter: _f, filterOptions: _fo, env: _e, algo: _a, ...rest } = withoutStream(c)
    const m = new Map<string, string>()
    leaves(rest, "", m)
    const g = `${c.env}\u0000${c.algo}`
    groups.set(g, [...(groups.get(g) ?? []), [key, m]])
  }
  const out = new Map<string, string>()
  for (const rows of groups.values()) {
    const allKeys = new Set(rows.flatMap(([, m]) => [...m.keys()]))
    const varying = [...allKeys].filter((k) => new Set(rows.map(([, m]) => m.get(k) ?? "∅")).size > 1).sort()
    for (const [key, m] of rows) out.set(key, varying.map((k) => `${k}=${(m.get(k) ?? "-").replace(/^"|"$/g, "")}`).join(" "))
  }
  return out
}

/** One run's contribution to its cell. */
interface RunScore {
  readonly seed: number
  readonly peak: number
  readonly last3: number | null
  readonly budget: Budget
}

interface CellAcc {
  readonly kind: CellKind
  readonly configHash: string
  readonly runs: RunScore[]
}

const rn = (x: number | null): number | null => (x === null ? null : r6(x))

/** Per seed, the mean of its runs' values (a seed given twice is one run read from two places or re-run). */
const perSeed = (runs: ReadonlyArray<RunScore>, pick: (r: RunScore) => number | null): SeedScore[] => {
  const m = new Map<number, number[]>()
  for (const r of runs) {
    const v = pick(r)
    if (v !== null) m.set(r.seed, [...(m.get(r.seed) ?? []), v])
  }
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([seed, vs]) => ({ seed, value: vs.reduce((a, b) => a + b, 0) / vs.length }))
}

const estimateOf = (scores: ReadonlyArray<SeedScore>, seed: string): Estimate | null => {
  if (scores.length === 0) return null
  const e = bootstrapMeanInterval(
    scores.map((s) => s.value),
    { seed }
  )
  return { mean: r6(e.mean), lo: rn(e.lo), hi: rn(e.hi), n: e.n }
}

const budgetMean = (runs: ReadonlyArray<RunScore>): Budget => {
  const out = {} as Record<keyof Budget, number | null>
  for (const [field] of BUDGET_METRICS) {
    const vs = runs.map((r) => r.budget[field]).filter((v): v is number => v !== null)
    out[field] = vs.length ? r6(vs.reduce((a, b) => a + b, 0) / vs.length) : null
  }
  return out
}

const pairedOf = (r: PairedResult, unpaired: number): Paired => ({
  n: r.n,
  unpaired,
  mean: r6(r.mean),
  sd: rn(r.sd),
  lo: rn(r.lo),
  hi: rn(r.hi),
  level: r6(r.level),
  p: rn(r.p),
  pHolm: rn(r.pHolm),
  separated: r.separated,
  inFamily: r.inFamily,
  seedsNeeded: r.seedsNeeded
})

const aggregateOf = (a: AggregateInterval): Aggregate => ({ value: r6(a.value), lo: rn(a.lo), hi: rn(a.hi), tasks: a.tasks, runs: a.runs })

/** An env's name without its plugin and version ("envs/sokoban-v1" → "sokoban"), as NORMALIZER keys it. */
export const envName = (env: string): string => localId(env).replace(/-v\d+$/, "")

export const normalizerOf = (env: string): { value: number; assumed: boolean } => {
  const v = NORMALIZER[envName(env)]
  return v === undefined ? { value: 1, assumed: true } : { value: v, assumed: false }
}

/** A pending paired comparison and where its result goes. */
interface PendingComparison {
  readonly comparison: Comparison
  readonly unpaired: number
  readonly set: (p: Paired) => void
}

/**
 * Per algorithm, across its rows (each row one task, normally one env): each filter's IQM of
 * normalized per-seed scores and P(filter > none) over the rows both have, with stratified
 * bootstrap intervals (core/statistics/iqm.ts, improvement.ts).
 */
const acrossEnvs = (rows: ReadonlyArray<Row>, filters: ReadonlyArray<string>, cellRuns: ReadonlyMap<string, ReadonlyMap<string, CellAcc>>): Across[] => {
  const out: Across[] = []
  const scores = (row: Row, name: string, pick: (r: RunScore) => number | null): number[] => {
    const acc = cellRuns.get(row.key)?.get(name)
    const norm = normalizerOf(row.env).value
    return acc ? perSeed(acc.runs, pick).map((s) => s.value / norm) : []
  }
  const peak = (r: RunScore) => r.peak
  const last3 = (r: RunScore) => r.last3
  for (const algo of [...new Set(rows.map((r) => r.algo))].sort()) {
    const ofAlgo = rows.filter((r) => r.algo === algo)
    for (const f of filters) {
      const having = ofAlgo.filter((r) => r.cells.some((c) => c.filter === f))
      if (having.length === 0) continue
      const kind = having[0]!.cells.find((c) => c.filter === f)!.kind
      const label = `${algo}\u0000${f}`
      const iqmOf = (pick: (r: RunScore) => number | null, what: string): Aggregate | null => {
        const tasks = having.map((r) => scores(r, f, pick)).filter((t) => t.length > 0)
        return tasks.length ? aggregateOf(iqmInterval(tasks, { seed: `${label}:iqm:${what}` })) : null
      }
      const improvementOf = (pick: (r: RunScore) => number | null, what: string): Aggregate | null => {
        if (kind === "baseline") return null
        const x: number[][] = []
        const y: number[][] = []
        for (const r of having) {
          const xs = scores(r, f, pick)
          const ys = scores(r, BASELINE_FILTER, pick)
          if (xs.length && ys.length) x.push(xs), y.push(ys)
        }
        return x.length ? aggregateOf(probabilityOfImprovementInterval(x, y, { seed: `${label}:improvement:${what}` })) : null
      }
      out.push({
        algo,
        filter: f,
        kind,
        envs: [...new Set(having.map((r) => r.env))].sort(),
        iqmPeak: iqmOf(peak, "peak")!,
        iqmLast3: iqmOf(last3, "last3"),
        improvementPeak: improvementOf(peak, "peak"),
        improvementLast3: improvementOf(last3, "last3")
      })
    }
  }
  return out
}

export const buildLeaderboard = (input: BuildInput): Leaderboard => {
  const runs = [...input.runs].sort((a, b) => a.run.config.runId.localeCompare(b.run.config.runId))
  const rowConfigs = new Map<string, RunRead["config"]["config"]>()
  const entries: Entry[] = []
  // rowKey → cell name → its runs
  const cellRuns = new Map<string, Map<string, CellAcc>>()
  // rowKey → cell name → metric → step → values
  const curves = new Map<string, Map<string, Map<string, Map<number, number[]>>>>()
  const names = filterNames(runs.map(({ run }) => run.config.config))
  // Nonzero sampling streams per filter name: one gets the plain mark ′, several are told apart.
  const streams = new Map<string, Set<number>>()
  for (const { run } of runs) {
    const st = samplingStreamOf(run.config.config)
    const name = names.get(filterNameKey(run.config.config))!
    if (st !== 0) streams.set(name, (streams.get(name) ?? new Set()).add(st))
  }
  const cellOf = (c: RunRead["config"]["config"]): { name: string; kind: CellKind } => {
    const base = names.get(filterNameKey(c))!
    const st = samplingStreamOf(c)
    if (st === 0) return { name: base, kind: base === BASELINE_FILTER ? "baseline" : "filter" }
    const several = streams.get(base)!.size > 1
    if (base === BASELINE_FILTER) return { name: several ? `none′(stream=${st}) (noise floor)` : NOISE_FLOOR, kind: "noise-floor" }
    return { name: `${base}′(stream=${st})`, kind: "filter" }
  }
  const kinds = new Map<string, CellKind>()
  for (const { run, verified } of runs) {
    const c = run.config.config
    const rowKey = rowKeyOf(run.config)
    // The semantics version rides along so that rows differing only in it say so in their setting.
    if (!rowConfigs.has(rowKey)) rowConfigs.set(rowKey, { ...c, semantics: run.config.semantics } as typeof c)
    const { name, kind } = cellOf(c)
    kinds.set(name, kind)
    const status = run.summary?.status ?? "incomplete"
    const peak = peakOf(run)
    const last3 = last3Of(run)
    const budget = budgetOf(run)
    entries.push({
      runId: run.config.runId,
      hash: run.config.hash,
      rowKey,
      env: c.env,
      algo: c.algo,
      filter: name,
      seed: c.seed,
      status,
      codeVersion: run.config.codeVersion,
      runtime: `${run.config.runtime.name} ${run.config.runtime.version}`,
      stepsDone: run.summary?.stepsDone ?? null,
      peak,
      last3: rn(last3),
      samplingStream: samplingStreamOf(c),
      budget,
      path: relative(resolve(input.siteDir), resolve(run.dir)).split("\\").join("/"),
      verified,
      ...(run.summary?.error !== undefined ? { error: run.summary.error } : {})
    })
    if (status !== "complete") continue
    if (peak !== null) {
      const byName = cellRuns.get(rowKey) ?? new Map<string, CellAcc>()
      cellRuns.set(rowKey, byName)
      const acc = byName.get(name) ?? { kind, configHash: cellHashOf(run.config), runs: [] }
      byName.set(name, acc)
      acc.runs.push({ seed: c.seed, peak, last3, budget })
    }
    const byF = curves.get(rowKey) ?? new Map()
    curves.set(rowKey, byF)
    const byM = byF.get(name) ?? new Map<string, Map<number, number[]>>()
    byF.set(name, byM)
    for (const line of run.metrics.lines) {
      const step = line.step
      if (typeof step !== "number") continue
      for (const { metric } of CHART_METRICS) {
        const v = line[metric]
        if (typeof v !== "number") continue
        const bySteps = byM.get(metric) ?? new Map<number, number[]>()
        byM.set(metric, bySteps)
        const at = bySteps.get(step)
        if (at) at.push(v)
        else bySteps.set(step, [v])
      }
    }
  }
  // Baseline first, then the noise floor(s), then filters by name.
  const order = (f: string): number => (f === BASELINE_FILTER ? 0 : kinds.get(f) === "noise-floor" ? 1 : 2)
  const filters = [...new Set([...cellRuns.values(), ...curves.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => order(a) - order(b) || a.localeCompare(b))
  const labels = settingLabels(rowConfigs)
  const rowKeys = [...rowConfigs.keys()]
    .filter((k) => cellRuns.has(k) || curves.has(k))
    .sort((a, b) => {
      const ca = rowConfigs.get(a)!
      const cb = rowConfigs.get(b)!
      return ca.env.localeCompare(cb.env) || ca.algo.localeCompare(cb.algo) || labels.get(a)!.localeCompare(labels.get(b)!)
    })

  // Cells first with their own estimates; the paired comparisons of the whole page after, so that Holm sees them all.
  type Draft = { -readonly [K in keyof Cell]: Cell[K] }
  const peakFamily: PendingComparison[] = []
  const last3Family: PendingComparison[] = []
  const rowDrafts = rowKeys.map((key) => {
    const byName = cellRuns.get(key) ?? new Map<string, CellAcc>()
    const base = byName.get(BASELINE_FILTER)
    const basePeak = base ? perSeed(base.runs, (r) => r.peak) : []
    const baseLast3 = base ? perSeed(base.runs, (r) => r.last3) : []
    const cells = filters
      .filter((f) => byName.has(f))
      .map((f) => {
        const acc = byName.get(f)!
        const peakScores = perSeed(acc.runs, (r) => r.peak)
        const last3Scores = perSeed(acc.runs, (r) => r.last3)
        const draft: Draft = {
          filter: f,
          kind: acc.kind,
          seeds: peakScores.map((s) => s.seed),
          peak: estimateOf(peakScores, `${acc.configHash}:peak`)!,
          last3: estimateOf(last3Scores, `${acc.configHash}:last3`),
          delta: null,
          deltaLast3: null,
          budget: budgetMean(acc.runs),
          best: false,
          configHash: acc.configHash
        }
        if (base && acc.kind !== "baseline") {
          const pending = (scores: SeedScore[], baseline: SeedScore[], what: string, family: PendingComparison[], set: (p: Paired) => void): void => {
            const pairs = pairBySeed(scores, baseline)
            if (pairs.seeds.length === 0) return
            family.push({
              comparison: { deltas: pairs.deltas, seed: `${acc.configHash}:delta:${what}`, inFamily: acc.kind === "filter" },
              unpaired: pairs.onlyA.length + pairs.onlyB.length,
              set
            })
          }
          pending(peakScores, basePeak, "peak", peakFamily, (p) => (draft.delta = p))
          pending(last3Scores, baseLast3, "last3", last3Family, (p) => (draft.deltaLast3 = p))
        }
        return draft
      })
    return { key, cells }
  })
  const familySize = [peakFamily, last3Family].map((family) => {
    const results = pairedComparisons(
      family.map((f) => f.comparison),
      { alpha: ALPHA, ...(input.minPairs !== undefined ? { minPairs: input.minPairs } : {}) }
    )
    family.forEach((f, i) => f.set(pairedOf(results[i]!, f.unpaired)))
    return results.filter((r) => r.inFamily).length
  })

  const rows: Row[] = []
  const rankSum = new Map<string, { rank: number; delta: number; deltas: number; rows: number; wins: number }>()
  for (const { key, cells } of rowDrafts) {
    const c = rowConfigs.get(key)!
    // The noise floor is a reference: it neither ranks nor takes "best".
    const ranked = cells.filter((x) => x.kind !== "noise-floor")
    const best = ranked.reduce((m, x) => Math.max(m, x.peak.mean), -Infinity)
    const ranks = ranksDesc(ranked.map((x) => x.peak.mean))
    ranked.forEach((x, i) => {
      // A filter alone in its row (no none beside it) is not "best" of anything.
      x.best = ranked.length > 1 && x.peak.mean === best
      const acc = rankSum.get(x.filter) ?? { rank: 0, delta: 0, deltas: 0, rows: 0, wins: 0 }
      acc.rank += ranks[i]!
      acc.rows++
      if (x.best) acc.wins++
      if (x.delta) {
        acc.delta += x.delta.mean
        acc.deltas++
      } else if (x.kind === "baseline") acc.deltas++ // the baseline's delta is 0 by definition
      rankSum.set(x.filter, acc)
    })
    const baseline = cells.find((x) => x.kind === "baseline")?.peak ?? null
    rows.push({ key, env: c.env, algo: c.algo, setting: labels.get(key)!, semantics: (c as typeof c & { semantics: number }).semantics, baseline, cells })
  }
  const ranking: RankEntry[] = [...rankSum.entries()]
    .map(([filter, a]) => ({ filter, meanRank: r6(a.rank / a.rows), meanDelta: a.deltas ? r6(a.delta / a.deltas) : null, rows: a.rows, wins: a.wins }))
    .sort((a, b) => a.meanRank - b.meanRank || a.filter.localeCompare(b.filter))

  const across = acrossEnvs(rows, filters, cellRuns)
  const envs = [...new Set(rows.map((r) => r.env))].sort()
  const groups: Group[] = rowKeys.map((key) => {
    const c = rowConfigs.get(key)!
    const byF = curves.get(key) ?? new Map()
    const charts: Chart[] = []
    const missing: string[] = []
    for (const { metric, title } of CHART_METRICS) {
      const series = filters
        .filter((f) => byF.get(f)?.has(metric))
        .map((f) => {
          const bySteps = byF.get(f)!.get(metric)! as Map<number, number[]>
          const points = [...bySteps.entries()].sort((a, b) => a[0] - b[0]).map(([s, vs]) => [s, r6(vs.reduce((x, y) => x + y, 0) / vs.length)] as const)
          return { name: f, points: thin(points, MAX_CHART_POINTS) }
        })
      if (series.length) charts.push({ metric, title, series })
      else missing.push(metric)
    }
    const setting = labels.get(key)!
    return { key, title: `${c.env} · ${c.algo}${setting ? ` · ${setting}` : ""}`, charts, missing }
  })
  return {
    format: "ragen-bench/leaderboard",
    version: LEADERBOARD_VERSION,
    metric: SUCCESS_METRIC,
    sources: [...input.sources],
    filters,
    rows,
    family: { peak: familySize[0]!, last3: familySize[1]!, alpha: ALPHA },
    across,
    normalizers: envs.map((env) => ({ env, ...normalizerOf(env) })),
    ranking,
    groups,
    entries,
    problems: [...input.problems]
  }
}
/** Read every run folder under the results dirs; bad files become problems. */
export const collectRuns = (resultDirs: ReadonlyArray<string>, siteDir: string): Effect.Effect<{ runs: RunInput[]; problems: Problem[]; sources: string[] }> =>
  Effect.gen(function* () {
    const runs: RunInput[] = []
    const problems: Problem[] = []
    const rel = (p: string): string => relative(resolve(siteDir), resolve(p)).split("\\").join("/")
    const relMsg = (m: string, dir: string): string => m.split(resolve(dir)).join(rel(dir)).split(dir).join(rel(dir))
    for (const root of resultDirs) {
      let verified: VerifyFile["runs"] = {}
      const vPath = join(root, "verify.json")
      if (existsSync(vPath)) {
        const v = yield* Effect.result(readJsonFile(VerifyFile, vPath))
        if (v._tag === "Success") verified = v.success.runs
        else problems.push({ path: rel(vPath), message: relMsg(v.failure.message, root) })
      }
      const scanned = scanRunDirs(root)
      for (const p of scanned.problems) problems.push({ path: rel(p.path), message: relMsg(p.message, root) })
      for (const dir of scanned.dirs) {
        const r = yield* Effect.result(readRun(dir))
        if (r._tag === "Failure") {
          problems.push({ path: rel(r.failure.path), message: relMsg(r.failure.message, root) })
          continue
        }
        if (r.success.metrics.tornLastLine !== undefined) {
          problems.push({ path: rel(join(dir, "metrics.jsonl")), message: "torn last line (a killed writer) left out" })
        }
        const mark = verified[r.success.config.runId]
        runs.push({ run: r.success, verified: mark ? mark.ok : null })
      }
    }
    return { runs, problems, sources: resultDirs.map(rel) }
  })
