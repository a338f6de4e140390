/**
 * The local retriever every SearchQA env shares: one BM25 index over the shipped corpus
 * (built at import, about 15 ms), with the formatted result block cached per result list.
 */
import { BM25 } from "./bm25.ts"
import { CORPUS } from "./corpus.ts"

const INDEX = new BM25(CORPUS.passages)
export const sharedIndex = (): BM25 => INDEX

/** A result list as the observation shows it: "1 . passage" per line. */
export const formatPassages = (texts: ReadonlyArray<string>): string => (texts.length === 0 ? "no passages found" : texts.map((t, i) => `${i + 1} . ${t}`).join("\n"))

// BM25.search returns the same (cached) array for a repeated query, so the block is cached by it.
const blocks = new WeakMap<Int32Array, string>()

export interface LocalResult {
  /** Passage indices, best first. */
  readonly docs: Int32Array
  /** The formatted result lines. */
  readonly block: string
  /** The normalised query (BM25.key). */
  readonly key: string
  /** The query as the observation echoes it. */
  readonly shown: string
}

// Exact repeats of a query string (the common case: teachers, random policies, G copies of a
// prompt) skip tokenising too. Bounded: cleared when full.
const byRaw = new Map<string, LocalResult>()
const RAW_LIMIT = 100_000

export const localSearch = (query: string, k: number, show: (q: string) => string): LocalResult => {
  const rk = `${k}|${query}`
  const hit = byRaw.get(rk)
  if (hit !== undefined) return hit
  const key = INDEX.key(query)
  const docs = INDEX.searchKey(key, k)
  let block = blocks.get(docs)
  if (block === undefined) blocks.set(docs, (block = formatPassages(Array.from(docs, (d) => CORPUS.passages[d]!))))
  const r = { docs, block, key, shown: show(query) }
  if (byRaw.size >= RAW_LIMIT) byRaw.clear()
  byRaw.set(rk, r)
  return r
}

const MAX_REMOTE_CHARS = 300
const squash = (t: string): string => t.replace(/\s+/g, " ").trim()
const byText = new Map(CORPUS.passages.map((p, i) => [squash(p).toLowerCase(), i]))

/** A remote passage as shown (whitespace collapsed, at most 300 characters). */
export const showRemote = (text: string): string => {
  const t = squash(text)
  return t.length > MAX_REMOTE_CHARS ? `${t.slice(0, MAX_REMOTE_CHARS)} ...` : t
}

/** The shipped passage a remote text is (when the server serves this corpus), else -1. */
export const localPassageOf = (text: string): number => byText.get(squash(text).toLowerCase()) ?? -1
