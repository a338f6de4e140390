/**
 * The leaderboard's inputs: results folders (run folders, read by build.ts collectRuns) and
 * compact folders (`<runId>.json` records, core/results/compact.ts), in any mix. An input folder
 * is someone's data, never trusted as a tree: links are not followed, only regular files are read,
 * each within its cap. A file that does not decode is a problem naming its path; its run is left
 * out, as is a run holding a value outside its metric's range (ranges.ts) and one whose run id is
 * not the hash of its config (a renamed copy: core/results/store.ts runIdProblem).
 *
 * One run id, one content: a run id met twice with the same content (a run folder and its compact
 * record, or one record in two folders) counts once; met with different content, it is a problem
 * naming every path that holds it, and every copy is left out — which copy is the true one is not
 * for the builder to guess. Verification marks are the builder's own (verify-marks.ts: a folder
 * outside every input, keyed by each run's content hash), never read from an input.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { canonicalJson, compactRun, type CompactRun, isTimingMetric, listCompactFiles, readCompact, runIdProblem, type RunRead } from "../../core/host.ts"
import { collectRuns, type RunInput } from "./build.ts"
import { LEADERBOARD_KEYS } from "./compact-command.ts"
import { runRangeProblem } from "./ranges.ts"
import type { Problem } from "./schema.ts"
import { defaultMarksDir, MARKS_FILE, markOf, marksInsideInput, readMarks } from "./verify-marks.ts"

export interface Collected {
  readonly runs: RunInput[]
  readonly problems: Problem[]
  readonly sources: string[]
}

export interface CollectOptions {
  /** The builder's marks folder (verify-marks.ts); default defaultMarksDir(); null: no marks read. */
  readonly marksDir?: string | null
}

/** At most this many paths are named in one duplicate's problem. */
const MAX_NAMED_PATHS = 5

/**
 * What a run says, in one form for run folders and compact records alike: its compact record
 * (config.json and summary.json whole, the evaluation steps, the kept curves at them, the budget
 * sums). A run folder and the record compacted from it say the same.
 */
const runContent = (run: RunRead): CompactRun => compactRun(run, LEADERBOARD_KEYS)

/**
 * Whether two copies of a run say the same: the resolved config, summary.json and the evaluation
 * steps equal, and every curve and budget sum that both hold equal — timing aside (wall seconds,
 * `perf/*`) and where and when it ran aside (host, runtime, code version, date): two runs of one
 * config that give the same results are one run, however long each took. A record compacted
 * with fewer keys (an older version) agrees with its run folder; a copy with any result changed
 * does not — the success curve, what the page scores, is in every copy.
 */
export const sameContent = (a: CompactRun, b: CompactRun): boolean => {
  const results = (s: unknown): unknown => {
    if (s === null || typeof s !== "object") return s ?? null
    const { wallSeconds: _w, final, ...rest } = s as Record<string, unknown>
    const kept = final && typeof final === "object" ? Object.fromEntries(Object.entries(final).filter(([k]) => !isTimingMetric(k))) : final
    return { ...rest, final: kept ?? null }
  }
  const what = (r: CompactRun) => {
    const { codeVersion: _c, createdAt: _d, host: _h, runtime: _r, ...rest } = r.run as Record<string, unknown>
    return rest
  }
  const head = (r: CompactRun) => canonicalJson({ run: what(r), summary: results(r.summary), steps: r.steps })
  if (head(a) !== head(b)) return false
  const common = (x: Readonly<Record<string, unknown>>, y: Readonly<Record<string, unknown>>): boolean =>
    Object.keys(x).every((k) => !Object.hasOwn(y, k) || canonicalJson(x[k]) === canonicalJson(y[k]))
  return common(a.curves, b.curves) && common(a.budget, b.budget)
}

interface Candidate {
  readonly run: RunRead
  readonly path: string
}

/** One run per run id: equal copies once, differing copies none (each named in one problem). */
export const oneContentPerId = (candidates: ReadonlyArray<Candidate>, rel: (p: string) => string): { kept: Candidate[]; problems: Problem[] } => {
  const byId = new Map<string, Candidate[]>()
  for (const c of candidates) {
    const id = c.run.config.runId
    const list = byId.get(id)
    if (list) list.push(c)
    else byId.set(id, [c])
  }
  const kept: Candidate[] = []
  const problems: Problem[] = []
  for (const [id, copies] of byId) {
    const first = copies.length > 1 ? runContent(copies[0]!.run) : undefined
    if (first === undefined || copies.every((c, i) => i === 0 || sameContent(first, runContent(c.run)))) {
      kept.push(copies[0]!)
      continue
    }
    const paths = copies.map((c) => rel(c.path))
    const named = paths.slice(0, MAX_NAMED_PATHS).join(", ") + (paths.length > MAX_NAMED_PATHS ? ` and ${paths.length - MAX_NAMED_PATHS} more` : "")
    problems.push({
      path: paths[0]!,
      message: `run id ${id} is held by ${copies.length} files with different content (${named}): every copy left out; keep one of them`
    })
  }
  return { kept, problems }
}

/** Every run under `dirs`: run folders and compact records, one per run id, with the builder's marks. */
export const collectInputs = (dirs: ReadonlyArray<string>, siteDir: string, options: CollectOptions = {}): Effect.Effect<Collected> =>
  Effect.gen(function* () {
    const base = yield* collectRuns(dirs, siteDir)
    const problems = [...base.problems]
    const rel = (p: string): string => relative(resolve(siteDir), resolve(p)).split("\\").join("/")
    const inRange = (run: RunRead, where: string, metricsName?: string): boolean => {
      const why = runRangeProblem(run, metricsName)
      if (why) problems.push({ path: rel(where), message: why })
      return why === undefined
    }
    const candidates: Candidate[] = base.runs.filter((r) => inRange(r.run, r.run.dir)).map((r) => ({ run: r.run, path: r.run.dir }))
    for (const root of dirs) {
      for (const f of listCompactFiles(root)) {
        const r = yield* Effect.result(readCompact(f, { noFollow: true }))
        if (r._tag === "Failure") {
          // One warning per entry: a link already reported by the scan of run folders is not reported again.
          if (!problems.some((p) => p.path === rel(f))) problems.push({ path: rel(f), message: r.failure.message.split(f).join(rel(f)) })
          continue
        }
        const renamed = runIdProblem(r.success.config)
        if (renamed !== undefined) {
          problems.push({ path: rel(f), message: renamed })
          continue
        }
        if (inRange(r.success, f, "curves")) candidates.push({ run: r.success, path: f })
      }
    }
    const one = oneContentPerId(candidates, rel)
    problems.push(...one.problems)
    const marks = yield* marksFor(dirs, options.marksDir === undefined ? defaultMarksDir() : options.marksDir, rel, problems)
    const runs = one.kept.map(({ run }) => {
      const mark = markOf(marks, run)
      return { run, verified: mark ? mark.ok : null }
    })
    return { runs, problems, sources: base.sources }
  })

/** The builder's marks; none when there is no folder, or when it lies inside an input (then said). */
const marksFor = (dirs: ReadonlyArray<string>, marksDir: string | null, rel: (p: string) => string, problems: Problem[]) =>
  Effect.gen(function* () {
    // No marks yet (the folder or its file absent): nothing to read, nothing to say.
    if (marksDir === null || !existsSync(join(marksDir, MARKS_FILE))) return {}
    const inside = marksInsideInput(marksDir, dirs)
    if (inside !== undefined) {
      problems.push({ path: rel(marksDir), message: `the marks folder lies inside the input ${rel(inside)}: not read (marks are the builder's own, never an input's)` })
      return {}
    }
    const read = yield* Effect.result(readMarks(marksDir))
    if (read._tag === "Success") return read.success
    problems.push({ path: rel(read.failure.path), message: read.failure.message })
    return {}
  })
