/**
 * Loader for the real MetaMathQA file (meta-math/MetaMathQA: a JSON array, or JSON lines, of
 * records with `query` and `response`, the response ending "The answer is: X"). Extra fields
 * (`type`, `original_question`) are ignored. Records whose response has no final answer are
 * skipped and counted; an unreadable file or one with no usable record is an error naming it.
 */
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { decodeSync } from "../../core/schema/decode.ts"
import type { Problem } from "./problems.ts"

const Record_ = Schema.Struct({ query: Schema.String, response: Schema.String })

const ANSWER_RE = /The answer is\s*:?\s*(.+?)\s*$/is

export interface Loaded {
  readonly problems: ReadonlyArray<Problem>
  readonly skipped: number
}

const quantitiesOf = (text: string): number[] => (text.match(/\d+(?:\.\d+)?/g) ?? []).slice(0, 50).map(Number)

const cache = new Map<string, Loaded>()

export const loadMetaMathQA = (path: string): Loaded => {
  const hit = cache.get(path)
  if (hit) return hit
  let raw: string
  try {
    raw = readFileSync(path, "utf8")
  } catch (e) {
    throw new Error(`metamathqa: cannot read dataPath ${path}: ${(e as Error).message}`)
  }
  let records: unknown[]
  const trimmed = raw.trimStart()
  try {
    records = trimmed.startsWith("[") ? (JSON.parse(raw) as unknown[]) : raw.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))
  } catch (e) {
    throw new Error(`metamathqa: ${path} is neither a JSON array nor JSON lines: ${(e as Error).message}`)
  }
  const problems: Problem[] = []
  let skipped = 0
  for (const r of records) {
    const d = decodeSync(Record_, r)
    const m = d.ok ? ANSWER_RE.exec(d.value.response) : null
    if (!d.ok || !m) {
      skipped++
      continue
    }
    problems.push({ template: "dataset", question: d.value.query.trim(), answer: m[1]!.trim(), quantities: quantitiesOf(d.value.query), steps: [] })
  }
  if (problems.length === 0) throw new Error(`metamathqa: ${path} has no record with "query" and a "response" ending "The answer is: X"`)
  const out = { problems, skipped }
  cache.set(path, out)
  return out
}
