/**
 * Loader for the real MetaMathQA file (meta-math/MetaMathQA: a JSON array, or JSON lines, of
 * records with `query` and `response`, the response ending "The answer is: X"). Extra fields
 * (`type`, `original_question`) are ignored. Records whose response has no final answer are
 * skipped and counted; an unreadable file or one with no usable record is an error naming it.
 * Only a regular file of at most MAX_DATASET_BYTES is read (core/files.ts): a FIFO or a device
 * is refused, not read. The env server loads its operator's files with the async loader first.
 */
import { Schema } from "effect"
import { decodeSync, MiB, readRegularFile, readRegularFileSync, utf8 } from "../../core/host.ts"
import type { Problem } from "./problems.ts"

const Record_ = Schema.Struct({ query: Schema.String, response: Schema.String })

const ANSWER_RE = /The answer is\s*:?\s*(.+?)\s*$/is

export interface Loaded {
  readonly problems: ReadonlyArray<Problem>
  readonly skipped: number
}

const quantitiesOf = (text: string): number[] => (text.match(/\d+(?:\.\d+)?/g) ?? []).slice(0, 50).map(Number)

/** The real MetaMathQA file is about 400 MB of JSON lines; anything larger is refused. */
export const MAX_DATASET_BYTES = 512 * MiB

// Parsed files by path; few distinct paths are ever loaded (an operator's or a user's), but a
// long-lived process must not grow without bound: the oldest entry goes first.
const cache = new Map<string, Loaded>()
const CACHE_LIMIT = 8
const remember = (path: string, loaded: Loaded): Loaded => {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string)
  cache.set(path, loaded)
  return loaded
}

/** JSON.parse or undefined: the parser's message quotes the text, and the text may be a file that is not ours to show. */
const tryJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const parseDataset = (path: string, raw: string): Loaded => {
  let records: unknown
  if (raw.trimStart().startsWith("[")) {
    const r = tryJson(raw)
    if (!r.ok) throw new Error(`metamathqa: ${path} is neither a JSON array nor JSON lines (not valid JSON)`)
    records = r.value
  } else {
    const lines = raw.split("\n")
    const out: unknown[] = []
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.trim() === "") continue
      const r = tryJson(lines[i]!)
      if (!r.ok) throw new Error(`metamathqa: ${path} is neither a JSON array nor JSON lines (line ${i + 1} is not valid JSON)`)
      out.push(r.value)
    }
    records = out
  }
  if (!Array.isArray(records)) throw new Error(`metamathqa: ${path} is neither a JSON array nor JSON lines`)
  const problems: Problem[] = []
  let skipped = 0
  for (const r of records) {
    const d = decodeSync(Record_, r, { strict: false })
    const m = d.ok ? ANSWER_RE.exec(d.value.response) : null
    if (!d.ok || !m) {
      skipped++
      continue
    }
    problems.push({ template: "dataset", question: d.value.query.trim(), answer: m[1]!.trim(), quantities: quantitiesOf(d.value.query), steps: [] })
  }
  if (problems.length === 0) throw new Error(`metamathqa: ${path} has no record with "query" and a "response" ending "The answer is: X"`)
  return { problems, skipped }
}

const readError = (path: string, e: unknown): Error => new Error(`metamathqa: cannot read dataPath ${path}: ${(e as Error).message}`)

/** Load (or reuse) a dataset file synchronously: for the CLI, where the user names the file. */
export const loadMetaMathQA = (path: string): Loaded => {
  const hit = cache.get(path)
  if (hit) return hit
  let raw: string
  try {
    raw = utf8(readRegularFileSync(path, MAX_DATASET_BYTES))
  } catch (e) {
    throw readError(path, e)
  }
  return remember(path, parseDataset(path, raw))
}

/** Load (or reuse) a dataset file without blocking the event loop: for servers. */
export const loadMetaMathQAAsync = async (path: string): Promise<Loaded> => {
  const hit = cache.get(path)
  if (hit) return hit
  let raw: string
  try {
    raw = utf8(await readRegularFile(path, MAX_DATASET_BYTES))
  } catch (e) {
    throw readError(path, e)
  }
  return remember(path, parseDataset(path, raw))
}
