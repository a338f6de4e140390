/**
 * Compact run records (core/schema/compact.ts): a run folder reduced to what the leaderboard
 * and the replication report read — config.json and summary.json whole, the curves of the
 * kept metrics at the evaluation steps (the steps whose line has a number for val/success@0.5), and the
 * run's budget summed over every step. One canonical-JSON file per run, `<runId>.json`, so
 * compacting the same run twice gives the same bytes and a folder of them can be committed.
 *
 * Numbers in curves and budgets are rounded to 6 significant digits (integers are kept exact:
 * token counts exceed a million). config.json and summary.json are kept verbatim, so a run's
 * id, hash and peak success read back unchanged.
 *
 * `readCompact` returns the RunRead the leaderboard consumes (its metrics lines are the kept
 * steps and keys only); the file is untrusted: size-bounded, depth-bounded, decoded strictly,
 * and every name checked before it becomes an object key.
 */
import { Effect } from "effect"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { FileFormatError, UsageError } from "../errors.ts"
import { readRegularFileSync } from "../files.ts"
import { canonicalJson } from "../hash.ts"
import { COMPACT_FORMAT, COMPACT_VERSION, CompactRun } from "../schema/compact.ts"
import { decodeSync, FORBIDDEN_KEYS } from "../schema/decode.ts"
import { type MetricsLine, SUCCESS_METRIC } from "../contracts/results.ts"
import { writeFileAtomic } from "./atomic.ts"
import type { RunRead } from "./store.ts"

/** Metric prefixes kept at evaluation steps besides the caller's exact keys (docs/metrics.md). */
export const COMPACT_PREFIXES: ReadonlyArray<string> = ["val/", "mi/", "reasoning/", "grad/"]
/** Exact keys always kept (the leaderboard adds its chart metrics). */
export const COMPACT_KEYS: ReadonlyArray<string> = ["train/entropy"]
/** Summed over every step: what a run spent (equal budgets made visible). */
export const BUDGET_KEYS: ReadonlyArray<string> = ["budget/env_steps", "budget/tokens", "budget/rollouts", "train/optimizer_steps"]

/** One compact file larger than this is refused (a 200-step run with every metric is ~30 KB). */
export const MAX_COMPACT_BYTES = 8 << 20
/** Nesting deeper than this in a compact file is refused before decoding (recursion in readers). */
const MAX_DEPTH = 64
/** Default cap on a whole compact folder (the published reference set: at most 10 MB). */
export const DEFAULT_COMPACT_FOLDER_BYTES = 10_000_000

/** A file name and link target: what run ids are made of (core/results/store.ts runIdOf). */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/
const SAFE_NAME = /^[^\u0000-\u001f\u007f]{1,256}$/

export const round6 = (x: number): number => (Number.isInteger(x) || x === 0 ? x : Number(x.toPrecision(6)))

/** A run read from a compact file: the RunRead, plus its budget sums and the record itself. */
export interface CompactRead extends RunRead {
  readonly budget: Readonly<Record<string, number>>
  readonly record: CompactRun
}

const isCompactRead = (r: RunRead): r is CompactRead => "record" in r

/** The budget sums of a run: a compact record's, else summed over its metrics lines (build.ts budgetOf reads the same). */
export const budgetTotals = (run: RunRead): Record<string, number> => {
  if (isCompactRead(run)) return { ...run.budget }
  // A step logged twice (a resumed run's reader may see it so) counts once: its last line.
  const byStep = new Map<number, MetricsLine>()
  run.metrics.lines.forEach((l, i) => byStep.set(typeof l.step === "number" ? l.step : -1 - i, l))
  const out: Record<string, number> = {}
  for (const line of byStep.values()) {
    for (const k of BUDGET_KEYS) {
      const v = line[k]
      if (typeof v === "number") out[k] = (out[k] ?? 0) + v
    }
  }
  for (const k of Object.keys(out)) out[k] = round6(out[k]!)
  return out
}

/** The compact record of a run; `keys` are exact metric names kept besides COMPACT_KEYS and COMPACT_PREFIXES. */
export const compactRun = (run: RunRead, keys: ReadonlyArray<string> = []): CompactRun => {
  if (isCompactRead(run)) return run.record
  const exact = new Set([...COMPACT_KEYS, ...keys])
  const keep = (k: string): boolean => exact.has(k) || COMPACT_PREFIXES.some((p) => k.startsWith(p))
  // step → its line (a repeated step: the last line wins, as a resumed run's reader sees it)
  const atStep = new Map<number, MetricsLine>()
  for (const line of run.metrics.lines) {
    const step = line.step
    if (typeof step === "number" && Number.isInteger(step) && step >= 0 && typeof line[SUCCESS_METRIC] === "number") atStep.set(step, line)
  }
  const steps = [...atStep.keys()].sort((a, b) => a - b)
  const names = new Set<string>()
  for (const line of atStep.values()) for (const k of Object.keys(line)) if (k !== "step" && keep(k)) names.add(k)
  const curves: Record<string, Array<number | null>> = {}
  for (const k of [...names].sort()) {
    curves[k] = steps.map((s) => {
      const v = atStep.get(s)![k]
      return typeof v === "number" ? round6(v) : null
    })
  }
  return {
    format: COMPACT_FORMAT,
    version: COMPACT_VERSION,
    run: run.config,
    ...(run.summary ? { summary: run.summary } : {}),
    steps,
    curves,
    budget: budgetTotals(run)
  }
}

/** The file's bytes: canonical JSON (sorted keys) and a newline, so equal records are equal files. */
export const encodeCompact = (record: CompactRun): string => `${canonicalJson(record)}\n`

/** The file name of a run's record; a run id that is not a plain name is refused. */
export const compactFileName = (runId: string): string | undefined => (SAFE_ID.test(runId) ? `${runId}.json` : undefined)

const tooDeep = (root: unknown): boolean => {
  const stack: Array<[unknown, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [v, d] = stack.pop()!
    if (v === null || typeof v !== "object") continue
    if (d >= MAX_DEPTH) return true
    for (const x of Object.values(v as object)) if (x !== null && typeof x === "object") stack.push([x, d + 1])
  }
  return false
}

/** The invariants a schema does not say: names usable as keys, aligned curves, increasing steps. */
const checkRecord = (r: CompactRun): string | undefined => {
  if (!SAFE_ID.test(r.run.runId)) return `run.runId "${r.run.runId.slice(0, 80)}" is not a plain run id`
  if (r.summary && r.summary.runId !== r.run.runId) return `summary.runId "${r.summary.runId.slice(0, 80)}" is not run.runId "${r.run.runId}"`
  for (let i = 0; i < r.steps.length; i++) {
    if (r.steps[i]! < 0 || (i > 0 && r.steps[i]! <= r.steps[i - 1]!)) return `steps[${i}]: steps must be non-negative and strictly increasing`
  }
  const badName = (k: string): boolean => k === "step" || FORBIDDEN_KEYS.has(k) || !SAFE_NAME.test(k)
  for (const [k, xs] of Object.entries(r.curves)) {
    if (badName(k)) return `curves: "${k.slice(0, 80)}" is not a metric name`
    if (xs.length !== r.steps.length) return `curves["${k}"]: ${xs.length} values for ${r.steps.length} steps`
  }
  for (const k of Object.keys(r.budget)) if (badName(k)) return `budget: "${k.slice(0, 80)}" is not a metric name`
  return undefined
}

/** Decode a compact record from its text; `path` names it in errors. */
export const decodeCompact = (path: string, text: string): Effect.Effect<CompactRun, FileFormatError> =>
  Effect.suspend(() => {
    const fail = (message: string) => Effect.fail(new FileFormatError({ path, message: `${path}: ${message}` }))
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      return fail(`not valid JSON: ${(e as Error).message}`)
    }
    if (tooDeep(json)) return fail(`nested deeper than ${MAX_DEPTH} levels: not a compact run record`)
    const head = json as { format?: unknown; version?: unknown }
    if (head === null || typeof head !== "object" || head.format !== COMPACT_FORMAT) return fail(`not a compact run record (its "format" is not "${COMPACT_FORMAT}")`)
    if (head.version !== COMPACT_VERSION) return fail(`compact version ${String(head.version).slice(0, 20)} is not the one this ragen-bench reads (${COMPACT_VERSION})`)
    const r = decodeSync(CompactRun, json)
    if (!r.ok) return fail(r.message)
    const bad = checkRecord(r.value)
    return bad ? fail(bad) : Effect.succeed(r.value)
  })

/** The RunRead of a compact record (metrics: one line per kept step, nulls left out except the success metric's). */
export const compactToRun = (path: string, record: CompactRun): CompactRead => {
  const keys = Object.keys(record.curves).sort()
  const lines: MetricsLine[] = record.steps.map((step, i) => {
    const line: Record<string, number | null> = { step }
    for (const k of keys) {
      const v = record.curves[k]![i]!
      if (v !== null || k === SUCCESS_METRIC) line[k] = v
    }
    return line
  })
  const base = { dir: path, config: record.run, metrics: { lines }, budget: record.budget, record }
  return record.summary ? { ...base, summary: record.summary } : base
}

/** Read one compact file (a regular file of at most MAX_COMPACT_BYTES; `noFollow`: never a link). */
export const readCompact = (path: string, options: { readonly noFollow?: boolean } = {}): Effect.Effect<CompactRead, FileFormatError> =>
  Effect.suspend(() => {
    let text: string
    try {
      text = new TextDecoder().decode(readRegularFileSync(path, MAX_COMPACT_BYTES, options))
    } catch (e) {
      return Effect.fail(new FileFormatError({ path, message: (e as Error).message }))
    }
    return Effect.map(decodeCompact(path, text), (record) => compactToRun(path, record))
  })

/** Files that may be compact records directly under `dir`: `*.json` but verify.json (where older versions kept marks; never read now). */
export const listCompactFiles = (dir: string): string[] => {
  if (!existsSync(dir)) return []
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  return names
    .filter((n) => n.endsWith(".json") && n !== "verify.json" && !n.startsWith("."))
    .sort()
    .map((n) => join(dir, n))
}

const jsonBytesIn = (dir: string, except: ReadonlySet<string>): number => {
  let total = 0
  for (const p of listCompactFiles(dir)) {
    if (except.has(p)) continue
    try {
      const st = statSync(p)
      if (st.isFile()) total += st.size
    } catch {
      // vanished meanwhile: not counted
    }
  }
  return total
}

export interface CompactWritten {
  readonly files: number
  /** Bytes of the files written now. */
  readonly bytes: number
  /** Bytes of every compact file in the folder afterwards. */
  readonly folderBytes: number
}

/**
 * Write records into `outDir` as `<runId>.json`, all or none: refused when the folder's compact
 * files would then exceed `maxBytes` (the ones written now replace same-named ones).
 */
export const writeCompactFiles = (outDir: string, records: ReadonlyArray<CompactRun>, maxBytes: number): Effect.Effect<CompactWritten, UsageError> =>
  Effect.suspend(() => {
    const files: Array<{ path: string; text: string }> = []
    for (const r of records) {
      const name = compactFileName(r.run.runId)
      if (!name) return Effect.fail(new UsageError({ field: "runId", message: `run id "${r.run.runId.slice(0, 80)}" is not a plain name; its run cannot be compacted` }))
      files.push({ path: join(outDir, name), text: encodeCompact(r) })
    }
    const enc = new TextEncoder()
    const bytes = files.reduce((a, f) => a + enc.encode(f.text).length, 0)
    const folderBytes = jsonBytesIn(outDir, new Set(files.map((f) => f.path))) + bytes
    if (folderBytes > maxBytes) {
      return Effect.fail(
        new UsageError({
          field: "--max-mb",
          message: `compact folder ${outDir} would hold ${folderBytes} bytes, over the cap of ${maxBytes} (${(maxBytes / 1e6).toFixed(1)} MB); nothing written. Compact fewer runs, into another folder, or raise the cap with --max-mb`
        })
      )
    }
    for (const f of files) writeFileAtomic(f.path, f.text)
    return Effect.succeed({ files: files.length, bytes, folderBytes })
  })
