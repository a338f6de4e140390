/**
 * `leaderboard verify`: re-run K randomly chosen complete runs (our Rng, seeded) from their
 * recorded resolved config in a temp folder, and check that what was recorded matches exactly.
 * The runs are run folders (every metrics line is compared) or compact records (`<runId>.json`,
 * core/results/compact.ts: the re-run is compacted the same way and its evaluation steps, curves
 * and budget sums are compared). Wall-clock metrics (perf/*, time/*) are left out of the
 * comparison: they measure the machine, not the result.
 *
 * A run that could not be compared says why, by its cause: a plugin the run used is not loaded
 * (with the flag that loads it), the recorded kernel build or numeric family does not run here
 * (with the command that re-runs on it), its config reads files or reaches URLs, it is over the
 * re-run budget (rerun-budget.ts), or the record does not read. Only compared runs are marked;
 * marks go to the builder's marks folder (verify-marks.ts), tied to each run's content hash, and
 * never into the folder that was verified.
 */
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  canonicalJson,
  codeVersion,
  compactRun,
  externalInputs,
  isComplete,
  isTimingMetric,
  type Kind,
  listCompactFiles,
  lookupEntry,
  type MetricsLine,
  readCompact,
  readRun,
  type RegistryData,
  Rng,
  type RunConfig,
  runIdProblem,
  type RunRead,
  scanRunDirs,
  SEMANTICS_VERSION,
  type TrainFn
} from "../../core/host.ts"
import type { PluginInput } from "../../core/contracts/index.ts"
import { FAMILY_RERUN, numericFamilyOf } from "./numeric-family.ts"
import { DEFAULT_RERUN_BUDGET, overBudget, type RerunBudget } from "./rerun-budget.ts"
import { type Mark, runContentHash, writeMarks } from "./verify-marks.ts"

export { externalInputs }

const comparable = (l: MetricsLine): string => canonicalJson(Object.fromEntries(Object.entries(l).filter(([k]) => !isTimingMetric(k))))

/** Why a run was not found equal: a difference, or one of the reasons it could not be compared. */
export type VerifyReason = "mismatch" | "plugin-not-loaded" | "kernels" | "external" | "budget" | "unreadable" | "failed"

export interface VerifyResult {
  readonly runId: string
  /** The run folder or compact file that was checked. */
  readonly path: string
  readonly ok: boolean
  /** Re-run and compared on the recorded kernels: the result is a mark (matched or not). */
  readonly checked: boolean
  readonly detail: string
  readonly reason?: VerifyReason
  /** Not re-run: its config reads files or reaches URLs and external inputs were not allowed, or it is over the re-run budget. */
  readonly refused?: boolean
  /** sha256 of what was compared (verify-marks.ts runContentHash). */
  readonly contentHash?: string
}

export interface VerifyOptions {
  /** Re-run configs that read files or reach URLs (they come from whoever wrote the results). */
  readonly allowExternal?: boolean
  /** The most one re-run may spend (default DEFAULT_RERUN_BUDGET): above it, refused. */
  readonly budget?: RerunBudget
  /** The loaded plugins' registry: a run whose env, algorithm, filter, policy or scorer it lacks is named, not re-run. */
  readonly registry?: RegistryData
  /** The builder's marks folder (verify-marks.ts); none: no marks are written. */
  readonly marksDir?: string
  /** The command that re-runs this check, for the hints (default `ragen-bench leaderboard verify <dir>`). */
  readonly command?: (dir: string) => string
}

/** First difference between two metric streams, or "" when equal. */
export const compareMetrics = (a: ReadonlyArray<MetricsLine>, b: ReadonlyArray<MetricsLine>): string => {
  if (a.length !== b.length) return `recorded ${a.length} metrics lines, re-run wrote ${b.length}`
  for (let i = 0; i < a.length; i++) {
    const x = comparable(a[i]!)
    const y = comparable(b[i]!)
    if (x !== y) {
      const ka = a[i]!
      const kb = b[i]!
      const key = [...new Set([...Object.keys(ka), ...Object.keys(kb)])].find((k) => !isTimingMetric(k) && ka[k] !== kb[k])
      return `line ${i + 1} (step ${ka.step}): ${key} recorded ${key ? ka[key] : "?"}, re-run ${key ? kb[key] : "?"}`
    }
  }
  return ""
}

type CompactRecord = ReturnType<typeof compactRun>

/** First difference between a compact record and the compacted re-run (its evaluation steps, the record's curves, budget sums), or "". */
export const compareCompact = (recorded: CompactRecord, again: CompactRecord): string => {
  if (canonicalJson(recorded.steps) !== canonicalJson(again.steps)) return `evaluation steps: recorded [${recorded.steps.join(", ")}], re-run [${again.steps.join(", ")}]`
  for (const k of Object.keys(recorded.curves).sort()) {
    if (isTimingMetric(k)) continue
    const xs = recorded.curves[k]!
    const ys = again.curves[k]
    if (!ys) return `curve ${k}: recorded, but the re-run did not log it`
    const i = xs.findIndex((x, j) => x !== ys[j])
    if (i >= 0) return `curve ${k} at step ${recorded.steps[i]}: recorded ${xs[i]}, re-run ${ys[i]}`
  }
  for (const k of [...new Set([...Object.keys(recorded.budget), ...Object.keys(again.budget)])].sort()) {
    if (!isTimingMetric(k) && recorded.budget[k] !== again.budget[k]) return `budget ${k}: recorded ${recorded.budget[k] ?? "none"}, re-run ${again.budget[k] ?? "none"}`
  }
  return ""
}

type Notes = Readonly<Record<string, string>> | undefined

/**
 * The environment that re-runs a record on its numeric family (numeric-family.ts: its note, or the
 * family its older kernels/kernelsIsa notes imply), else on its recorded backend and build; {} when
 * the record names no tinylm kernels.
 */
export const recordedKernels = (notes: Notes): { readonly env: Readonly<Record<string, string>>; readonly where?: string } => {
  const family = numericFamilyOf(notes)
  const known = family !== undefined ? FAMILY_RERUN[family] : undefined
  if (known) return { env: Object.fromEntries(known.env.split(/\s+/).map((kv) => kv.split("=") as [string, string])), where: known.where }
  const kernels = notes?.kernels?.replace(/^tinylm:/, "")
  if (kernels !== "native" && kernels !== "wasm" && kernels !== "js") return { env: {} }
  return { env: { RAGEN_KERNELS: kernels, ...(kernels === "native" && notes?.kernelsIsa ? { RAGEN_NATIVE_ISA: notes.kernelsIsa } : {}) } }
}

/** Select the recorded kernels for a re-run (recordedKernels); returns the undo. */
const useRecordedKernels = (notes: Notes): (() => void) => {
  const before = { RAGEN_KERNELS: process.env.RAGEN_KERNELS, RAGEN_NATIVE_ISA: process.env.RAGEN_NATIVE_ISA }
  const { env } = recordedKernels(notes)
  if (env.RAGEN_KERNELS !== undefined) {
    process.env.RAGEN_KERNELS = env.RAGEN_KERNELS
    if (env.RAGEN_NATIVE_ISA !== undefined) process.env.RAGEN_NATIVE_ISA = env.RAGEN_NATIVE_ISA
    else delete process.env.RAGEN_NATIVE_ISA
  }
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}

const build = (n: Notes): string => `${n?.kernels ?? "?"} ${n?.kernelsIsa ?? ""}`.trim()

/**
 * How the re-run's kernels differ from the recorded ones ("" when they agree). Runs of one numeric
 * family give the same bits on any build of it (numeric-family.ts, from the note or the older
 * kernels notes); when either side names no family, the backend and the instruction set must agree.
 */
export const kernelsMismatch = (recorded: Notes, now: Notes): string => {
  const [rf, nf] = [numericFamilyOf(recorded), numericFamilyOf(now)]
  if (rf !== undefined && nf !== undefined) return rf === nf ? "" : `recorded numeric family ${rf} (${build(recorded)}), here ${nf} (${build(now)})`
  return recorded?.kernels === undefined || build(recorded) === build(now) ? "" : `recorded ${build(recorded)}, here ${build(now)}`
}

/** The environment that selects the recorded kernels, as a command prefix ("" when nothing was recorded). */
export const recordedKernelsEnv = (notes: Notes): string =>
  Object.entries(recordedKernels(notes).env)
    .map(([k, v]) => `${k}=${v} `)
    .join("")

const KIND_OF: ReadonlyArray<readonly [Kind, (c: RunConfig) => unknown]> = [
  ["envs", (c) => c.env],
  ["algorithms", (c) => c.algo],
  ["filters", (c) => c.filter],
  ["policies", (c) => c.policy],
  ["scorers", (c) => (c.train as Record<string, unknown> | undefined)?.scorer]
]

/** The run's ids that no loaded plugin provides, as one sentence naming the plugins to load; "" when all resolve. */
export const missingPlugins = (registry: RegistryData, run: RunRead): string => {
  const missing: string[] = []
  for (const [kind, get] of KIND_OF) {
    const id = get(run.config.config)
    if (typeof id !== "string" || id === "") continue
    if (lookupEntry(registry, kind, id) instanceof Error) missing.push(id)
  }
  if (missing.length === 0) return ""
  const names = [...new Set(missing.map((id) => (id.includes("/") ? id.slice(0, id.indexOf("/")) : id)))]
  const recorded = names.map((n) => run.config.plugins.find((p) => p.name === n)).filter((p) => p !== undefined)
  const which = recorded.length ? ` (recorded: ${recorded.map((p) => `${p.name} ${p.version}, ${p.hash === "builtin" ? "built in" : `file sha256 ${p.hash}`}`).join("; ")})` : ""
  return `plugin ${names.map((n) => `"${n}"`).join(", ")} not loaded: the run uses ${missing.join(", ")}${which}; not re-run. Load the plugin that provides it with --plugin <its file> (or ragen-bench.config.ts) and verify again`
}

const errorMessage = (e: unknown): string => {
  const err = e as { message?: unknown; cause?: unknown }
  return String(err?.message ?? e)
}

/** A run found in `dir` (a folder someone sent: links are never followed): a complete run folder or a compact record file. */
const candidates = (dir: string): string[] => [...scanRunDirs(dir, { noFollow: true }).dirs.filter(isComplete), ...listCompactFiles(dir)]

const readCandidate = (path: string): Effect.Effect<RunRead, { readonly message: string }> => (path.endsWith(".json") ? readCompact(path, { noFollow: true }) : readRun(path, { noFollow: true }))

interface Checked {
  readonly ok: boolean
  readonly checked: boolean
  readonly detail: string
  readonly reason?: VerifyReason
  readonly refused?: boolean
}

/** Re-run one read run and compare. */
const verifyOne = (dir: string, run: RunRead, train: TrainFn, plugins: ReadonlyArray<PluginInput>, options: VerifyOptions): Effect.Effect<Checked> =>
  Effect.gen(function* () {
    const { config, runId } = run.config
    const notChecked = (reason: VerifyReason, detail: string, refused?: boolean): Checked => ({ ok: false, checked: false, reason, detail, ...(refused ? { refused } : {}) })
    const record = (run as { record?: CompactRecord }).record
    if (record && run.summary?.status !== "complete") return notChecked("unreadable", `not re-run: the record is of a run that did not complete (status ${run.summary?.status ?? "unknown"})`)
    const idProblem = runIdProblem(run.config)
    if (idProblem) return notChecked("unreadable", `not re-run: its ${idProblem}`)
    if (run.config.semantics !== SEMANTICS_VERSION) {
      return notChecked(
        "unreadable",
        `not re-run: recorded under results-semantics version ${run.config.semantics}, this ragen-bench runs version ${SEMANTICS_VERSION} (its numbers mean something else); verify it with the ragen-bench that wrote it (code ${run.config.codeVersion})`
      )
    }
    const external = options.allowExternal ? [] : externalInputs(config)
    if (external.length > 0) {
      return notChecked("external", `not re-run: its config reads files or reaches URLs (${external.join(", ")}); re-run it only if you trust these results, with --allow-external`, true)
    }
    const over = overBudget(config, options.budget ?? DEFAULT_RERUN_BUDGET)
    if (over) return notChecked("budget", `not re-run: over the re-run budget: ${over}; raise the limit with the flag named if you mean to spend that`, true)
    const missing = options.registry ? missingPlugins(options.registry, run) : ""
    if (missing) return notChecked("plugin-not-loaded", missing)
    const notes = run.config.runtime.notes
    const command = `${recordedKernelsEnv(notes)}${options.command ? options.command(dir) : `ragen-bench leaderboard verify ${dir}`}`
    const where = recordedKernels(notes).where
    const onRecorded = `re-run on the recorded build on a machine that has it${where ? ` (${where})` : ""}: ${command}`
    // Backends differ in float summation order: re-run on the recorded one (docs/kernels.md).
    const restore = useRecordedKernels(notes)
    const tmp = mkdtempSync(join(tmpdir(), "ragen-verify-"))
    try {
      const outcome = yield* Effect.result(Effect.tryPromise({ try: () => train(config, { outDir: tmp, plugins }), catch: (e) => e }))
      if (outcome._tag === "Failure") {
        const why = errorMessage(outcome.failure)
        if (/RAGEN_NATIVE_ISA|RAGEN_KERNELS/.test(why)) return notChecked("kernels", `the recorded kernel build does not run here (${why}); ${onRecorded}`)
        const unknown = (outcome.failure as { _tag?: string })._tag === "UnknownIdError"
        return notChecked(unknown ? "plugin-not-loaded" : "failed", unknown ? `a plugin the run uses is not loaded: ${why}` : `re-run failed: ${why}`)
      }
      const again = yield* Effect.result(readRun(join(tmp, runId)))
      if (again._tag === "Failure") return notChecked("failed", `re-run left no readable run: ${again.failure.message}`)
      const diff = record ? compareCompact(record, compactRun(again.success, Object.keys(record.curves))) : compareMetrics(run.metrics.lines, again.success.metrics.lines)
      const lines = record
        ? `${record.steps.length} evaluation steps, ${Object.keys(record.curves).length} curves and the budget sums identical`
        : `${again.success.metrics.lines.length} metrics lines identical`
      if (diff === "") return { ok: true, checked: true, detail: lines }
      const mismatch = kernelsMismatch(notes, again.success.config.runtime.notes)
      if (mismatch) return notChecked("kernels", `${diff}: not comparable, another kernel build ran here (${mismatch}; builds differ in float summation order); ${onRecorded}`)
      return { ok: false, checked: true, reason: "mismatch", detail: diff }
    } finally {
      restore()
      rmSync(tmp, { recursive: true, force: true })
    }
  })

/**
 * Re-run `sample` runs of `resultsDir` (run folders and compact records, chosen with `seed`) and
 * compare; with `options.marksDir`, the compared runs' marks are added there.
 */
export const verifyRuns = (resultsDir: string, sample: number, seed: number, train: TrainFn, plugins: ReadonlyArray<PluginInput> = [], options: VerifyOptions = {}): Effect.Effect<VerifyResult[]> =>
  Effect.gen(function* () {
    const chosen = new Rng(seed).shuffle(candidates(resultsDir)).slice(0, Math.max(0, sample))
    const results: VerifyResult[] = []
    for (const path of chosen.sort()) {
      const read = yield* Effect.result(readCandidate(path))
      if (read._tag === "Failure") {
        results.push({ runId: path, path, ok: false, checked: false, reason: "unreadable", detail: read.failure.message })
        continue
      }
      const run = read.success
      const r = yield* verifyOne(resultsDir, run, train, plugins, options)
      results.push({ runId: run.config.runId, path, contentHash: runContentHash(run), ...r })
    }
    if (options.marksDir !== undefined) {
      const now = new Date().toISOString()
      const marks: Record<string, Mark> = {}
      for (const r of results) {
        if (r.checked && r.contentHash) marks[r.contentHash] = { runId: r.runId, ok: r.ok, checkedAt: now, codeVersion: codeVersion(), detail: r.detail }
      }
      // A marks file that does not read is not overwritten: the failure is a defect the command reports.
      yield* Effect.orDie(writeMarks(options.marksDir, marks))
    }
    return results
  })
