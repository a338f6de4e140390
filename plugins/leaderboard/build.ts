/**
 * The leaderboard build: result folders → a Leaderboard (plugins/leaderboard/schema.ts).
 * Every file is read through its Schema (core/results/store.ts readRun); a file that does
 * not decode is reported by path and field and its run left out — never read as zeros
 * (the BALROG lesson, STYLE.md). `buildLeaderboard` itself is pure and deterministic.
 *
 * The build runs in steps, each its own function: runs → rows and cells (gather), each cell's
 * estimates and its pending comparisons against `none` (draftRow), the page's paired verdicts
 * (settle: plugins/leaderboard/statistics/verdicts.ts, Holm over every comparison of a score),
 * rows where none does not learn (notLearningOf), best marks and the ranking (rank), aggregates
 * across envs (acrossEnvs), charts (chartGroups) and the page's verdict in words (sentence.ts).
 *
 * Scores per run (run-scores.ts): the primary is the area under the validation curve (mean
 * success over the evaluations after step 0); last-3 and peak (the paper's report) beside it,
 * and the fact-accuracy area where logged. Means over seeds carry 95% t intervals; the
 * percentile bootstrap stays only where n is large (IQM and P(improvement) over every run of
 * every env, rliable's stratified bootstrap).
 */
import { Effect } from "effect"
import { join, relative, resolve } from "node:path"
import { readRun, runIdProblem, type RunRead, scanRunDirs, SUCCESS_METRIC } from "../../core/host.ts"
import { probabilityOfImprovementInterval } from "./statistics/improvement.ts"
import { areaRiseOf, riseText } from "./statistics/rise.ts"
import { shareCollapses } from "./statistics/collapse.ts"
import { type AggregateInterval, iqmInterval } from "./statistics/iqm.ts"
import { pairBySeed, type SeedScore } from "./statistics/paired.ts"
import { type FilterLabel, SUITE_LABELS } from "./labels.ts"
import { type CellFilter, matchedControls } from "./controls.ts"
import { cellHashOf, filterNameKey, filterNames, rowKeyOf, settingLabels } from "./row-identity.ts"
import { peakOf, type RunScore, samplingStreamOf, scoreRun } from "./run-scores.ts"
import {
  type Across,
  type Aggregate,
  type Budget,
  type Cell,
  type CellKind,
  type Chart,
  type Entry,
  type Estimate,
  type Family,
  type Group,
  LEADERBOARD_VERSION,
  type Leaderboard,
  type NotRanked,
  type Paired,
  type Problem,
  type RankEntry,
  type Row
} from "./schema.ts"
import { cutLabel, cutMessage, MAX_MESSAGE_CHARS } from "./cut.ts"
import { onCommonGrid } from "./plots/bands.ts"
import { cellKey, pageVerdict, pairsNeeded } from "./sentence.ts"
import { tInterval } from "./statistics/paired-tests.ts"
import { PAIRED_TEST, pairedVerdicts, type VerdictComparison, type VerdictResult } from "./statistics/verdicts.ts"

export { BUDGET_METRICS, budgetOf, last3Of, peakOf, samplingStreamOf } from "./run-scores.ts"
export { filterNames } from "./row-identity.ts"

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
  /** The builder's verification mark of this content (verify-marks.ts; null: never verified). */
  readonly verified: boolean | null
}

export interface BuildInput {
  readonly runs: ReadonlyArray<RunInput>
  readonly problems: ReadonlyArray<Problem>
  /** Where the site is written: run links are relative to it. */
  readonly siteDir: string
  readonly sources: ReadonlyArray<string>
  /** Labels a sweep gave its filters (labels.ts), before the suite's own; the page names its cells by them. */
  readonly labels?: ReadonlyArray<FilterLabel>
  /** Run ids read from a published reference set: the verdict sentence leads with the other (the user's) filters. */
  readonly reference?: ReadonlyArray<string>
}

const r6 = (x: number): number => Math.round(x * 1e6) / 1e6
const rn = (x: number | null): number | null => (x === null ? null : r6(x))

/** Family-wise error rate of "separated" (Holm over the page's comparisons of one score). */
export const ALPHA = 0.05

/**
 * Normalizer of each env's success: the teacher's success. The scripted teacher solves every
 * built-in env at action noise ε = 0 (docs/design.md §4; docs/decisions.md#issue-17: "the teacher's ε = 0 success is 1.0
 * on every env"), so each is 1.0 and a normalized score is the success itself. An env not listed
 * (a plugin's) is assumed 1.0 too, and the page says so.
 */
export const NORMALIZER: Readonly<Record<string, number>> = { frozenlake: 1, sokoban: 1, countdown: 1, metamathqa: 1, webshop: 1, searchqa: 1 }

/** The noise floor's display name: `none` with only the rollout sampling stream changed. */
export const NOISE_FLOOR = "none′ (noise floor)"

/**
 * A row where none has zero-spread groups at least this often is marked "does not learn": almost
 * no group carries an advantage signal, so no filter has anything to choose from.
 */
export const NOT_LEARNING_ZERO_SPREAD = 0.9

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

/** An env's name without its plugin and version ("envs/sokoban-v1" → "sokoban"), as NORMALIZER keys it. */
export const envName = (env: string): string => env.replace(/^.*\//, "").replace(/-v\d+$/, "")

export const normalizerOf = (env: string): { value: number; assumed: boolean } => {
  const v = NORMALIZER[envName(env)]
  return v === undefined ? { value: 1, assumed: true } : { value: v, assumed: false }
}

interface CellAcc {
  readonly kind: CellKind
  readonly configHash: string
  /** The cell's filter as its runs' configs hold it (controls.ts matches random controls by it). */
  readonly filter: CellFilter
  readonly runs: RunScore[]
}

type RunConfigOf = RunRead["config"]["config"]
/** rowKey → cell name → metric → step → seed → values (one per run of that seed) */
type Curves = Map<string, Map<string, Map<string, Map<number, Map<number, number[]>>>>>

interface Gathered {
  readonly rowConfigs: Map<string, RunConfigOf>
  readonly entries: Entry[]
  /** rowKey → cell name → its complete runs */
  readonly cellRuns: Map<string, Map<string, CellAcc>>
  readonly curves: Curves
  readonly kinds: Map<string, CellKind>
}

/** Cell names: the filter's display name; a nonzero sampling stream marks the noise floor (of none) or a ′ variant. */
const cellNamer = (runs: ReadonlyArray<RunInput>, labels: ReadonlyArray<FilterLabel>): ((c: RunConfigOf) => { name: string; kind: CellKind }) => {
  // Cut to a few hundred characters (cut.ts): a name is repeated on every cell, chart and page.
  const names = new Map(
    [
      ...filterNames(
        runs.map(({ run }) => run.config.config),
        labels,
        SUITE_LABELS
      )
    ].map(([k, name]) => [k, cutLabel(name)])
  )
  // Nonzero sampling streams per filter name: one gets the plain mark ′, several are told apart.
  const streams = new Map<string, Set<number>>()
  for (const { run } of runs) {
    const st = samplingStreamOf(run.config.config)
    const name = names.get(filterNameKey(run.config.config))!
    if (st !== 0) streams.set(name, (streams.get(name) ?? new Set()).add(st))
  }
  return (c) => {
    const base = names.get(filterNameKey(c))!
    const st = samplingStreamOf(c)
    if (st === 0) return { name: base, kind: base === BASELINE_FILTER ? "baseline" : "filter" }
    const several = streams.get(base)!.size > 1
    if (base === BASELINE_FILTER) return { name: several ? `none′(stream=${st}) (noise floor)` : NOISE_FLOOR, kind: "noise-floor" }
    return { name: `${base}′(stream=${st})`, kind: "filter" }
  }
}

/** Adds a run's chart metrics to its cell's step → seed → values maps. */
const addCurves = (byMetric: Map<string, Map<number, Map<number, number[]>>>, run: RunRead, seed: number): void => {
  for (const line of run.metrics.lines) {
    const step = line.step
    if (typeof step !== "number") continue
    for (const { metric } of CHART_METRICS) {
      const v = line[metric]
      if (typeof v !== "number") continue
      const bySeed = nested(
        nested(byMetric, metric, () => new Map<number, Map<number, number[]>>()),
        step,
        () => new Map<number, number[]>()
      )
      nested(bySeed, seed, () => [] as number[]).push(v)
    }
  }
}

const nested = <K, V>(m: Map<K, V>, k: K, make: () => V): V => {
  const v = m.get(k) ?? make()
  m.set(k, v)
  return v
}

/** Step 1: runs → their entries, row configs, complete runs per cell, and chart curves. */
const gather = (input: BuildInput): Gathered => {
  const runs = [...input.runs].sort((a, b) => a.run.config.runId.localeCompare(b.run.config.runId))
  const out: Gathered = { rowConfigs: new Map(), entries: [], cellRuns: new Map(), curves: new Map(), kinds: new Map() }
  const cellOf = cellNamer(runs, input.labels ?? [])
  for (const { run, verified } of runs) {
    const c = run.config.config
    const rowKey = rowKeyOf(run.config)
    // The semantics version rides along so that rows differing only in it say so in their setting.
    if (!out.rowConfigs.has(rowKey)) out.rowConfigs.set(rowKey, { ...c, semantics: run.config.semantics } as typeof c)
    const { name, kind } = cellOf(c)
    out.kinds.set(name, kind)
    const status = run.summary?.status ?? "incomplete"
    const peak = peakOf(run)
    const score = scoreRun(run, c.seed, peak ?? 0)
    out.entries.push({
      runId: run.config.runId,
      hash: run.config.hash,
      rowKey,
      env: cutLabel(c.env),
      algo: cutLabel(c.algo),
      filter: name,
      seed: c.seed,
      status,
      codeVersion: cutLabel(run.config.codeVersion),
      runtime: cutLabel(`${run.config.runtime.name} ${run.config.runtime.version}`),
      stepsDone: run.summary?.stepsDone ?? null,
      peak,
      last3: rn(score.last3),
      auc: rn(score.auc),
      samplingStream: samplingStreamOf(c),
      budget: score.budget,
      path: relative(resolve(input.siteDir), resolve(run.dir)).split("\\").join("/"),
      verified,
      ...(run.summary?.error !== undefined ? { error: cutMessage(run.summary.error) } : {})
    })
    if (status !== "complete") continue
    if (peak !== null) {
      const acc = nested(
        nested(out.cellRuns, rowKey, () => new Map<string, CellAcc>()),
        name,
        () => ({ kind, configHash: cellHashOf(run.config), filter: { name, id: c.filter, options: c.filterOptions, stream: samplingStreamOf(c) }, runs: [] as RunScore[] })
      )
      acc.runs.push(score)
    }
    addCurves(
      nested(
        nested(out.curves, rowKey, () => new Map()),
        name,
        () => new Map()
      ),
      run,
      c.seed
    )
  }
  return out
}

/** Per seed, the mean of its runs' values (a seed given twice is one run read from two places or re-run). */
const perSeed = (runs: ReadonlyArray<RunScore>, pick: (r: RunScore) => number | null): SeedScore[] => {
  const m = new Map<number, number[]>()
  for (const r of runs) {
    const v = pick(r)
    if (v !== null) m.set(r.seed, [...(m.get(r.seed) ?? []), v])
  }
  return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([seed, vs]) => ({ seed, value: vs.reduce((a, b) => a + b, 0) / vs.length }))
}

/** Mean over seeds with its 95% t interval (none with one seed). */
const estimateOf = (scores: ReadonlyArray<SeedScore>): Estimate | null => {
  if (scores.length === 0) return null
  const xs = scores.map((s) => s.value)
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length
  const iv = tInterval(xs, 0.95)
  return { mean: r6(mean), lo: rn(iv?.lo ?? null), hi: rn(iv?.hi ?? null), n: xs.length }
}

const meanOf = (xs: ReadonlyArray<number | null>): number | null => {
  const vs = xs.filter((v): v is number => v !== null)
  return vs.length ? r6(vs.reduce((a, b) => a + b, 0) / vs.length) : null
}

const budgetMean = (runs: ReadonlyArray<RunScore>): Budget => {
  const out = {} as Record<keyof Budget, number | null>
  for (const field of ["envSteps", "tokens", "rollouts", "optimizerSteps"] as const) out[field] = meanOf(runs.map((r) => r.budget[field]))
  return out
}

/** The scores a cell is compared on, each its own Holm family; the first is the primary. */
const SCORES = [
  { what: "auc", field: "delta", pick: (r: RunScore) => r.auc },
  { what: "last3", field: "deltaLast3", pick: (r: RunScore) => r.last3 },
  { what: "peak", field: "deltaPeak", pick: (r: RunScore) => r.peak },
  { what: "factAuc", field: "deltaFactAuc", pick: (r: RunScore) => r.factAuc }
] as const

type Draft = { -readonly [K in keyof Cell]: Cell[K] }

/** A pending paired comparison and the cell field its result goes to (selection: against `control`). */
interface Pending {
  readonly comparison: VerdictComparison
  readonly unpaired: number
  readonly draft: Draft
  readonly field: (typeof SCORES)[number]["field"] | "selection"
  readonly control?: string
}

/**
 * Step 2: a row's cells with their estimates; their comparisons against none join `families` (one
 * per score), and on the primary score each filter's comparison with its matched random control
 * (controls.ts) joins the same family.
 */
const draftRow = (byName: ReadonlyMap<string, CellAcc>, filters: ReadonlyArray<string>, families: Pending[][]): Draft[] => {
  const base = byName.get(BASELINE_FILTER)
  const controls = matchedControls([...byName.values()].filter((a) => a.kind === "filter").map((a) => a.filter))
  return filters
    .filter((f) => byName.has(f))
    .map((f) => {
      const acc = byName.get(f)!
      const scores = SCORES.map((s) => perSeed(acc.runs, s.pick))
      const draft: Draft = {
        filter: f,
        kind: acc.kind,
        seeds: perSeed(acc.runs, (r) => r.peak).map((s) => s.seed),
        auc: estimateOf(scores[0]!),
        last3: estimateOf(scores[1]!),
        peak: estimateOf(scores[2]!)!,
        factAuc: estimateOf(scores[3]!),
        delta: null,
        deltaLast3: null,
        deltaPeak: null,
        deltaFactAuc: null,
        kept: { groups: meanOf(acc.runs.map((r) => r.kept.groups)), nonZeroSpread: meanOf(acc.runs.map((r) => r.kept.nonZeroSpread)), zeroSpread: meanOf(acc.runs.map((r) => r.kept.zeroSpread)) },
        budget: budgetMean(acc.runs),
        best: false,
        configHash: acc.configHash
      }
      if (!base || acc.kind === "baseline") return draft
      SCORES.forEach((s, k) => {
        const pairs = pairBySeed(scores[k]!, perSeed(base.runs, s.pick))
        if (pairs.seeds.length === 0) return
        families[k]!.push({
          comparison: { deltas: pairs.deltas, seed: `${acc.configHash}:delta:${s.what}`, inFamily: acc.kind === "filter" },
          unpaired: pairs.onlyA.length + pairs.onlyB.length,
          draft,
          field: s.field
        })
      })
      const control = byName.get(controls.get(f) ?? "")
      if (!control) return draft
      const pairs = pairBySeed(scores[0]!, perSeed(control.runs, SCORES[0].pick))
      if (pairs.seeds.length === 0) return draft
      families[0]!.push({
        comparison: { deltas: pairs.deltas, seed: `${acc.configHash}:selection:${control.configHash}:${SCORES[0].what}` },
        unpaired: pairs.onlyA.length + pairs.onlyB.length,
        draft,
        field: "selection",
        control: control.filter.name
      })
      return draft
    })
}

const pairedOf = (r: VerdictResult, unpaired: number): Paired => ({
  n: r.n,
  unpaired,
  mean: r6(r.mean),
  sd: rn(r.sd),
  lo: rn(r.lo),
  hi: rn(r.hi),
  level: r6(r.level),
  p: rn(r.p),
  pHolm: rn(r.pHolm),
  minP: rn(r.minP),
  separated: r.separated,
  inFamily: r.inFamily,
  verdict: r.verdict,
  seedsNeeded: r.seedsNeeded
})

/** Step 3: each score's comparisons over the whole page at once (Holm sees them all); returns the family sizes. */
const settle = (families: ReadonlyArray<ReadonlyArray<Pending>>): Family => {
  const sizes = families.map((family) => {
    const results = pairedVerdicts(
      family.map((p) => p.comparison),
      { alpha: ALPHA, test: PAIRED_TEST }
    )
    family.forEach((p, i) => {
      const d = pairedOf(results[i]!, p.unpaired)
      if (p.field === "selection") p.draft.selection = { control: p.control!, delta: d }
      else p.draft[p.field] = d
    })
    return results.filter((r) => r.inFamily).length
  })
  const selection = families[0]!.filter((p) => p.field === "selection" && p.draft.selection?.delta.inFamily).length
  return { primary: sizes[0]!, last3: sizes[1]!, peak: sizes[2]!, factAuc: sizes[3]!, selection, alpha: ALPHA, test: PAIRED_TEST }
}

/** The gate's smallest number of seeds (a calibration probe's 3). */
const MIN_COLLAPSE_SEEDS = 3

/**
 * Step 4: whether none rises then collapses in a row (the collapse track's gate on at least two
 * thirds of at least 3 decided seeds, statistics/collapse.ts), in words; null when it does not.
 */
const collapsesOf = (byName: ReadonlyMap<string, CellAcc> | undefined): string | null => {
  const c = shareCollapses(
    (byName?.get(BASELINE_FILTER)?.runs ?? []).map((r) => r.collapse),
    MIN_COLLAPSE_SEEDS
  )
  if (!c?.collapses) return null
  return `none rises then collapses on ${c.collapsed} of ${c.runs} seeds (success rises above step 0, then its last-3 ends at least 10 points below its peak, without a blow-up: the collapse track's gate)`
}

/**
 * Step 4: why none does not learn in a row (null when it does): nothing but zeros, no advantage
 * signal, or an area that does not rise above the step-0 success at a number of seeds that could
 * have shown it (statistics/rise.ts) — unless none rises then collapses there (`collapses`, from collapsesOf): that
 * is the paper's regime, where filters are to be judged, so the row stays in the aggregates.
 */
const notLearningOf = (byName: ReadonlyMap<string, CellAcc> | undefined, collapses: string | null): string | null => {
  const base = byName?.get(BASELINE_FILTER)
  if (!base) return null
  const zero = meanOf(base.runs.map((r) => r.kept.zeroSpread))
  const reasons: string[] = []
  if (base.runs.every((r) => r.allZero)) reasons.push("validation success is 0 at every evaluation")
  if (zero !== null && zero >= NOT_LEARNING_ZERO_SPREAD) reasons.push(`${(100 * zero).toFixed(0)}% of none's groups have zero reward spread (no advantage signal)`)
  const rise = areaRiseOf(base.runs, ALPHA)
  if (reasons.length === 0 && rise?.rises === false && collapses === null) reasons.push(`its area does not rise above its step-0 success (${riseText(rise)})`)
  return reasons.length ? `none does not learn: ${reasons.join("; ")}` : null
}

/**
 * Step 5: best marks and the ranking. Best in a row: the highest primary mean among the cells
 * separated above none (a difference inside its interval is never "best"). The ranking: each
 * filter's mean rank of the primary score over the rows where none learns (average ranks for ties;
 * the noise floor is a reference and never ranks), as the paper's Table 4 compares them. A filter
 * ranks in a row only where its seeds can rank it: its comparison with none could separate at its
 * number of pairs and this family size (a verdict other than "cannot separate"); elsewhere it is
 * listed as not ranked, with its pairs and the pairs its test needs.
 */
const rank = (rows: ReadonlyArray<Row>, family: Family): { ranking: RankEntry[]; notRanked: NotRanked[] } => {
  const sums = new Map<string, { rank: number; delta: number; deltas: number; rows: number; wins: number }>()
  const left = new Map<string, { rows: number; n: number }>()
  const canRank = (x: Draft): boolean => x.kind === "baseline" || (x.delta !== null && x.delta.verdict !== "cannot-separate")
  for (const row of rows) {
    const cells = row.cells as Draft[]
    const better = cells.filter((x) => x.delta?.verdict === "better" && x.auc !== null)
    const top = better.reduce((m, x) => Math.max(m, x.auc!.mean), -Infinity)
    for (const x of better) x.best = x.auc!.mean === top
    if (row.notLearning !== null) continue
    const candidates = cells.filter((x) => x.kind !== "noise-floor" && x.auc !== null)
    for (const x of candidates.filter((c) => !canRank(c))) {
      const acc = left.get(x.filter) ?? { rows: 0, n: 0 }
      left.set(x.filter, { rows: acc.rows + 1, n: Math.max(acc.n, x.delta?.n ?? 0) })
    }
    const ranked = candidates.filter(canRank)
    const ranks = ranksDesc(ranked.map((x) => x.auc!.mean))
    ranked.forEach((x, i) => {
      const acc = sums.get(x.filter) ?? { rank: 0, delta: 0, deltas: 0, rows: 0, wins: 0 }
      acc.rank += ranks[i]!
      acc.rows++
      if (x.best) acc.wins++
      if (x.delta) {
        acc.delta += x.delta.mean
        acc.deltas++
      } else if (x.kind === "baseline") acc.deltas++ // the baseline's delta is 0 by definition
      sums.set(x.filter, acc)
    })
  }
  const needed = pairsNeeded(rows, family)
  return {
    ranking: [...sums.entries()]
      .map(([filter, a]) => ({ filter, meanRank: r6(a.rank / a.rows), meanDelta: a.deltas ? r6(a.delta / a.deltas) : null, rows: a.rows, wins: a.wins }))
      .sort((a, b) => a.meanRank - b.meanRank || a.filter.localeCompare(b.filter)),
    notRanked: [...left.entries()].map(([filter, a]) => ({ filter, rows: a.rows, n: a.n, needed: a.n > 0 ? needed : null })).sort((a, b) => a.filter.localeCompare(b.filter))
  }
}

const aggregateOf = (a: AggregateInterval): Aggregate => ({ value: r6(a.value), lo: rn(a.lo), hi: rn(a.hi), tasks: a.tasks, runs: a.runs })

/**
 * Step 6: per algorithm, across its rows where none learns (each row one task, normally one env):
 * each filter's IQM of normalized per-seed scores and P(filter > none) over the rows both have,
 * with stratified bootstrap intervals (plugins/leaderboard/statistics/iqm.ts, improvement.ts).
 */
const acrossEnvs = (rows: ReadonlyArray<Row>, filters: ReadonlyArray<string>, cellRuns: Gathered["cellRuns"]): Across[] => {
  const out: Across[] = []
  const scores = (row: Row, name: string, pick: (r: RunScore) => number | null): number[] => {
    const acc = cellRuns.get(row.key)?.get(name)
    const norm = normalizerOf(row.env).value
    return acc ? perSeed(acc.runs, pick).map((s) => s.value / norm) : []
  }
  const learning = rows.filter((r) => r.notLearning === null)
  for (const algo of [...new Set(rows.map((r) => r.algo))].sort()) {
    const ofAlgo = learning.filter((r) => r.algo === algo)
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
      const auc = (r: RunScore) => r.auc
      const last3 = (r: RunScore) => r.last3
      out.push({
        algo,
        filter: f,
        kind,
        envs: [...new Set(having.map((r) => r.env))].sort(),
        iqm: iqmOf(auc, "auc"),
        iqmLast3: iqmOf(last3, "last3"),
        improvement: improvementOf(auc, "auc"),
        improvementLast3: improvementOf(last3, "last3")
      })
    }
  }
  return out
}

/** Step 7: per row, one chart per metric with one series (the mean over seeds per step) per cell. */
const chartGroups = (rowKeys: ReadonlyArray<string>, g: Gathered, filters: ReadonlyArray<string>, labels: ReadonlyMap<string, string>): Group[] =>
  rowKeys.map((key) => {
    const c = g.rowConfigs.get(key)!
    const byF = g.curves.get(key) ?? new Map()
    const charts: Chart[] = []
    const missing: string[] = []
    for (const { metric, title } of CHART_METRICS) {
      const series = filters
        .filter((f) => byF.get(f)?.has(metric))
        .map((f) => {
          // The steps every seed of the cell logged (plots/bands.ts onCommonGrid): never a mean whose seeds change along x.
          const bySteps = byF.get(f)!.get(metric)! as Map<number, Map<number, number[]>>
          const mean = (vs: ReadonlyArray<number>): number => vs.reduce((x, y) => x + y, 0) / vs.length
          const points = onCommonGrid(bySteps).map(([s, bySeed]) => [s, r6(mean([...bySeed.values()].map(mean)))] as const)
          return { name: f, points: thin(points, MAX_CHART_POINTS) }
        })
      if (series.length) charts.push({ metric, title, series })
      else missing.push(metric)
    }
    const setting = labels.get(key)!
    return { key, title: `${cutLabel(c.env)} · ${cutLabel(c.algo)}${setting ? ` · ${setting}` : ""}`, charts, missing }
  })

/** The cells (sentence.ts cellKey) holding a run not read from the reference set, when the page has one. */
const yoursOf = (input: BuildInput, entries: ReadonlyArray<Entry>): Set<string> => {
  const reference = new Set(input.reference ?? [])
  if (!entries.some((e) => reference.has(e.runId))) return new Set()
  return new Set(entries.filter((e) => !reference.has(e.runId)).map((e) => cellKey(e.rowKey, e.filter)))
}

export const buildLeaderboard = (input: BuildInput): Leaderboard => {
  const g = gather(input)
  // Baseline first, then the noise floor(s), then filters by name.
  const order = (f: string): number => (f === BASELINE_FILTER ? 0 : g.kinds.get(f) === "noise-floor" ? 1 : 2)
  const filters = [...new Set([...g.cellRuns.values(), ...g.curves.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => order(a) - order(b) || a.localeCompare(b))
  const labels = new Map([...settingLabels(g.rowConfigs)].map(([k, label]) => [k, cutLabel(label)]))
  const rowKeys = [...g.rowConfigs.keys()]
    .filter((k) => g.cellRuns.has(k) || g.curves.has(k))
    .sort((a, b) => {
      const ca = g.rowConfigs.get(a)!
      const cb = g.rowConfigs.get(b)!
      return ca.env.localeCompare(cb.env) || ca.algo.localeCompare(cb.algo) || labels.get(a)!.localeCompare(labels.get(b)!)
    })
  const families: Pending[][] = SCORES.map(() => [])
  const drafts = rowKeys.map((key) => draftRow(g.cellRuns.get(key) ?? new Map(), filters, families))
  const family = settle(families)
  const rows: Row[] = rowKeys.map((key, i) => {
    const c = g.rowConfigs.get(key)!
    const cells = drafts[i]!
    const baseline = cells.find((x) => x.kind === "baseline")?.auc ?? null
    const collapses = collapsesOf(g.cellRuns.get(key))
    return {
      key,
      env: cutLabel(c.env),
      algo: cutLabel(c.algo),
      setting: labels.get(key)!,
      semantics: (c as typeof c & { semantics: number }).semantics,
      baseline,
      notLearning: notLearningOf(g.cellRuns.get(key), collapses),
      ...(collapses ? { collapses } : {}),
      cells
    }
  })
  const { ranking, notRanked } = rank(rows, family)
  const envs = [...new Set(rows.map((r) => r.env))].sort()
  return {
    format: "ragen-bench/leaderboard",
    version: LEADERBOARD_VERSION,
    metric: SUCCESS_METRIC,
    verdict: pageVerdict(rows, family, yoursOf(input, g.entries)),
    sources: [...input.sources],
    filters,
    rows,
    family,
    across: acrossEnvs(rows, filters, g.cellRuns),
    normalizers: envs.map((env) => ({ env, ...normalizerOf(env) })),
    ranking,
    notRanked,
    groups: chartGroups(rowKeys, g, filters, labels),
    entries: g.entries,
    problems: input.problems.map((p) => ({ path: cutLabel(p.path, MAX_MESSAGE_CHARS), message: cutMessage(p.message) }))
  }
}
/**
 * Read every run folder under the results dirs; bad files become problems. A results folder is
 * someone else's data, read as data and never as a tree: its entries are looked at without
 * following links (a symlinked run folder or file is a problem, never opened), only regular files
 * are read, each within its size cap, and a run whose id is not the hash of its config (a renamed
 * copy) is left out. Verification marks are never read from it (collect.ts applies the builder's own).
 */
export const collectRuns = (resultDirs: ReadonlyArray<string>, siteDir: string): Effect.Effect<{ runs: RunInput[]; problems: Problem[]; sources: string[] }> =>
  Effect.gen(function* () {
    const runs: RunInput[] = []
    const problems: Problem[] = []
    const rel = (p: string): string => relative(resolve(siteDir), resolve(p)).split("\\").join("/")
    const relMsg = (m: string, dir: string): string => m.split(resolve(dir)).join(rel(dir)).split(dir).join(rel(dir))
    for (const root of resultDirs) {
      const scanned = scanRunDirs(root, { noFollow: true })
      // <root>/agents is the agents table's (agents.ts reports a bad one): one warning per entry.
      for (const p of scanned.problems) if (p.path !== join(root, "agents")) problems.push({ path: rel(p.path), message: relMsg(p.message, root) })
      for (const dir of scanned.dirs) {
        const r = yield* Effect.result(readRun(dir, { noFollow: true }))
        if (r._tag === "Failure") {
          problems.push({ path: rel(r.failure.path), message: relMsg(r.failure.message, root) })
          continue
        }
        const renamed = runIdProblem(r.success.config)
        if (renamed !== undefined) {
          problems.push({ path: rel(join(dir, "config.json")), message: renamed })
          continue
        }
        if (r.success.metrics.tornLastLine !== undefined) {
          problems.push({ path: rel(join(dir, "metrics.jsonl")), message: "torn last line (a killed writer) left out" })
        }
        runs.push({ run: r.success, verified: null })
      }
    }
    return { runs, problems, sources: resultDirs.map(rel) }
  })
