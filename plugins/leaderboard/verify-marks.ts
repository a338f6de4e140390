/**
 * Verification marks: the builder's own record of what `leaderboard verify` re-ran and whether it
 * matched, kept in a folder of the builder's (`--marks`, default ~/.ragen-bench/verify-marks),
 * never in a submitted folder and never read from one. Shared by the writing side (verify.ts) and
 * the reading side (the page's "verified" column).
 *
 * Format: `<marks dir>/verify-marks.json`, one JSON object
 *   { "format": "ragen-bench/verify-marks", "version": 1,
 *     "marks": { "<content hash>": { runId, ok, checkedAt, codeVersion, detail } } }
 * keyed by the run's content hash (runContentHash): sha256 of the canonical JSON of what was
 * compared — a compact record whole, or a run folder's config.json, metrics lines and summary. A
 * mark applies to a run only when both its hash and its run id agree, so a record edited after it
 * was verified (or a forged copy under a verified id) reads as never verified.
 */
import { Effect, Schema } from "effect"
import { existsSync, realpathSync } from "node:fs"
import { homedir } from "node:os"
import { isAbsolute, join, relative, resolve, sep } from "node:path"
import { canonicalJson, type FileFormatError, readJsonFile, type RunRead, sha256Hex, writeJsonAtomic } from "../../core/host.ts"

export const MARKS_FORMAT = "ragen-bench/verify-marks"
export const MARKS_VERSION = 1
/** The file in the marks folder. */
export const MARKS_FILE = "verify-marks.json"

/** The builder's folder when `--marks` is not given: outside any folder a submission arrives in. */
export const defaultMarksDir = (): string => join(homedir(), ".ragen-bench", "verify-marks")

export const Mark = Schema.Struct({ runId: Schema.String, ok: Schema.Boolean, checkedAt: Schema.String, codeVersion: Schema.String, detail: Schema.String })
export type Mark = typeof Mark.Type

export const MarksFile = Schema.Struct({
  format: Schema.Literal(MARKS_FORMAT),
  version: Schema.Literal(MARKS_VERSION),
  marks: Schema.Record(Schema.String, Mark)
})
export type MarksFile = typeof MarksFile.Type

/** sha256 (hex) of what verify compares: a compact record whole, or a run folder's config, metrics lines and summary. */
export const runContentHash = (run: RunRead): string => {
  const record = (run as { record?: unknown }).record
  return sha256Hex(canonicalJson(record !== undefined ? record : { config: run.config, metrics: run.metrics.lines, summary: run.summary ?? null }))
}

const canonical = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return resolve(p)
  }
}

/** The input folder `marksDir` lies in (or is), when it does: marks are never written into what was submitted. */
export const marksInsideInput = (marksDir: string, inputs: ReadonlyArray<string>): string | undefined => {
  const m = canonical(marksDir)
  return inputs.find((d) => {
    const rel = relative(canonical(d), m)
    return rel === "" || !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
  })
}

/** Every mark in `marksDir` (none when the folder or its file does not exist). */
export const readMarks = (marksDir: string): Effect.Effect<Record<string, Mark>, FileFormatError> => {
  const path = join(marksDir, MARKS_FILE)
  if (!existsSync(path)) return Effect.succeed({})
  return Effect.map(readJsonFile(MarksFile, path), (f) => ({ ...f.marks }))
}

/** The mark of `run`: the one recorded for its content hash and its run id, else undefined (never verified). */
export const markOf = (marks: Readonly<Record<string, Mark>>, run: RunRead): Mark | undefined => {
  // No marks (the usual build): no run's content needs hashing.
  if (Object.keys(marks).length === 0) return undefined
  const hash = runContentHash(run)
  const m = Object.hasOwn(marks, hash) ? marks[hash] : undefined
  return m && m.runId === run.config.runId ? m : undefined
}

/** Add marks (content hash → mark) to the folder's file, keeping the others; written atomically. */
export const writeMarks = (marksDir: string, added: Readonly<Record<string, Mark>>): Effect.Effect<string, FileFormatError> =>
  Effect.map(readMarks(marksDir), (prev) => {
    const path = join(marksDir, MARKS_FILE)
    writeJsonAtomic(path, { format: MARKS_FORMAT, version: MARKS_VERSION, marks: { ...prev, ...added } } satisfies MarksFile)
    return path
  })
