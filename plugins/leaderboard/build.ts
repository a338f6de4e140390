/**
 * The leaderboard build: result folders → a Leaderboard (plugins/leaderboard/schema.ts).
 * Every file is read through its Schema (core/results/store.ts readRun); a file that does
 * not decode is reported by path and field and its run left out — never read as zeros
 * (the BALROG lesson, STYLE.md). `buildLeaderboard` itself is pure.
 *
 * Statistics: per row (env, algo and every other setting except seed and filter) and filter,
 * the mean ± standard error (unbiased sd/√n) over seeds of each run's peak validation success;
 * the filter's delta against the `none` baseline of the same row; a ranking of filters by
 * their mean rank across rows (average ranks for ties), as the paper's Table 4 compares them.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { canonicalJson, contentHash } from "../../core/hash.ts"
import { readRun, scanRunDirs, type RunRead } from "../../core/results/store.ts"
import { readJsonFile } from "../../core/schema/decode.ts"
import { SUCCESS_METRIC } from "../../core/schema/results.ts"
import { type Chart, type Entry, type Group, LEADERBOARD_VERSION, type Leaderboard, type Problem, type RankEntry, type Row, type Stat, VerifyFile } from "./schema.ts"

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
}

const r6 = (x: number): number => Math.round(x * 1e6) / 1e6

export const stat = (xs: ReadonlyArray<number>): Stat => {
  const n = xs.length
  const mean = xs.reduce((a, b) => a + b, 0) / n
  if (n < 2) return { mean: r6(mean), se: null, n }
  const v = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)
  return { mean: r6(mean), se: r6(Math.sqrt(v / n)), n }
}

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
  const { seed: _s, filter: _f, filterOptions: _fo, ...rest } = file.config
  return canonicalJson({ config: rest, semantics: file.semantics })
}

/** The cell's identity: the resolved config (seed aside) and the semantics version its runs share. */
const cellHashOf = (file: RunRead["config"]): string => {
  const { seed: _s, ...rest } = file.config
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
    const { seed: _s, filter: _f, filterOptions: _fo, env: _e, algo: _a, ...rest } = c
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

export const buildLeaderboard = (input: BuildInput): Leaderboard => {
  const runs = [...input.runs].sort((a, b) => a.run.config.runId.localeCompare(b.run.config.runId))
  const rowConfigs = new Map<string, RunRead["config"]["config"]>()
  const entries: Entry[] = []
  // rowKey → filter → peaks
  const peaks = new Map<string, Map<string, number[]>>()
  // rowKey → filter → metric → step → values
  const curves = new Map<string, Map<string, Map<string, Map<number, number[]>>>>()
  const filterOrder: string[] = []
  const names = filterNames(runs.map(({ run }) => run.config.config))
  // filter name → rowKey → the cell's config hash
  const cellHashes = new Map<string, string>()
  for (const { run, verified } of runs) {
    const c = run.config.config
    const rowKey = rowKeyOf(run.config)
    // The semantics version rides along so that rows differing only in it say so in their setting.
    if (!rowConfigs.has(rowKey)) rowConfigs.set(rowKey, { ...c, semantics: run.config.semantics } as typeof c)
    const filter = names.get(filterNameKey(c))!
    cellHashes.set(`${rowKey}\u0000${filter}`, cellHashOf(run.config))
    const status = run.summary?.status ?? "incomplete"
    const peak = peakOf(run)
    entries.push({
      runId: run.config.runId,
      hash: run.config.hash,
      rowKey,
      env: c.env,
      algo: c.algo,
      filter,
      seed: c.seed,
      status,
      codeVersion: run.config.codeVersion,
      runtime: `${run.config.runtime.name} ${run.config.runtime.version}`,
      stepsDone: run.summary?.stepsDone ?? null,
      peak,
      path: relative(resolve(input.siteDir), resolve(run.dir)).split("\\").join("/"),
      verified,
      ...(run.summary?.error !== undefined ? { error: run.summary.error } : {})
    })
    if (status !== "complete") continue
    if (!filterOrder.includes(filter)) filterOrder.push(filter)
    if (peak !== null) {
      const byFilter = peaks.get(rowKey) ?? new Map<string, number[]>()
      peaks.set(rowKey, byFilter)
      byFilter.set(filter, [...(byFilter.get(filter) ?? []), peak])
    }
    const byF = curves.get(rowKey) ?? new Map()
    curves.set(rowKey, byF)
    const byM = byF.get(filter) ?? new Map<string, Map<number, number[]>>()
    byF.set(filter, byM)
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
  // Baseline first, then filters in order of first appearance (runs sorted by id: stable).
  const filters = [...filterOrder].sort((a, b) => (a === BASELINE_FILTER ? -1 : b === BASELINE_FILTER ? 1 : a.localeCompare(b)))
  const labels = settingLabels(rowConfigs)
  const rowKeys = [...rowConfigs.keys()]
    .filter((k) => peaks.has(k) || curves.has(k))
    .sort((a, b) => {
      const ca = rowConfigs.get(a)!
      const cb = rowConfigs.get(b)!
      return ca.env.localeCompare(cb.env) || ca.algo.localeCompare(cb.algo) || labels.get(a)!.localeCompare(labels.get(b)!)
    })
  const rows: Row[] = []
  const rankSum = new Map<string, { rank: number; delta: number; deltas: number; rows: number; wins: number }>()
  for (const key of rowKeys) {
    const c = rowConfigs.get(key)!
    const byFilter = peaks.get(key) ?? new Map<string, number[]>()
    const baseline = byFilter.has(BASELINE_FILTER) ? stat(byFilter.get(BASELINE_FILTER)!) : null
    const present = filters.filter((f) => byFilter.has(f))
    const stats = present.map((f) => stat(byFilter.get(f)!))
    const best = stats.reduce((m, s) => (s.mean > m ? s.mean : m), -Infinity)
    const ranks = ranksDesc(stats.map((s) => s.mean))
    const cells = present.map((f, i) => {
      const s = stats[i]!
      const delta: Stat | null =
        baseline && f !== BASELINE_FILTER
          ? {
              mean: r6(s.mean - baseline.mean),
              se: s.se !== null && baseline.se !== null ? r6(Math.sqrt(s.se ** 2 + baseline.se ** 2)) : null,
              n: s.n
            }
          : null
      const acc = rankSum.get(f) ?? { rank: 0, delta: 0, deltas: 0, rows: 0, wins: 0 }
      acc.rank += ranks[i]!
      acc.rows++
      if (s.mean === best) acc.wins++
      if (delta) {
        acc.delta += delta.mean
        acc.deltas++
      } else if (f === BASELINE_FILTER) acc.deltas++ // the baseline's delta is 0 by definition
      rankSum.set(f, acc)
      return { filter: f, stat: s, delta, best: s.mean === best, configHash: cellHashes.get(`${key}\u0000${f}`)! }
    })
    rows.push({ key, env: c.env, algo: c.algo, setting: labels.get(key)!, semantics: (c as typeof c & { semantics: number }).semantics, baseline, cells })
  }
  const ranking: RankEntry[] = [...rankSum.entries()]
    .map(([filter, a]) => ({ filter, meanRank: r6(a.rank / a.rows), meanDelta: a.deltas ? r6(a.delta / a.deltas) : null, rows: a.rows, wins: a.wins }))
    .sort((a, b) => a.meanRank - b.meanRank || a.filter.localeCompare(b.filter))
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
