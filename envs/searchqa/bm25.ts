/**
 * In-process BM25 retriever over a CSR inverted index on typed arrays.
 *
 * Okapi BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", eq. 3.15) with k1 = 1.2, b = 0.75 and the non-negative IDF
 * log(1 + (N − n + 0.5) / (n + 0.5)) that Lucene and Pyserini use. Each distinct query term
 * counts once. Per posting the length-normalised tf weight tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))
 * is precomputed, so a query is one pass over its terms' postings. Ties rank the lower
 * passage index first (deterministic). Results are cached per normalised query (the sorted
 * distinct indexed terms), so repeated searches cost a Map lookup.
 */
export const K1 = 1.2
export const B = 0.75

/** Function words that carry no retrieval signal in this corpus' wording. */
const STOPWORDS = new Set(["a", "an", "the", "is", "in", "of", "was", "by", "that", "for", "has", "where", "what", "which", "who", "does", "did", "to", "and"])

/** Lowercase alphanumeric words minus stopwords (the tokenizer of both index and queries). */
export const terms = (text: string): string[] => {
  const out: string[] = []
  for (const w of String(text)
    .toLowerCase()
    .split(/[^a-z0-9]+/))
    if (w.length > 0 && !STOPWORDS.has(w)) out.push(w)
  return out
}

const CACHE_LIMIT = 100_000

export class BM25 {
  readonly size: number
  private readonly termIds = new Map<string, number>()
  /** (T+1,) start of each term's postings. */
  private readonly offsets: Int32Array
  /** (P,) passage index of each posting, ascending within a term. */
  private readonly docs: Int32Array
  /** (P,) precomputed tf weight of each posting. */
  private readonly weights: Float32Array
  /** (T,) IDF of each term. */
  private readonly idf: Float64Array
  /** (N,) score accumulator, reused across queries (zeroed after each). */
  private readonly acc: Float64Array
  /** (N,) passages touched by the current query. */
  private readonly touched: Int32Array
  private readonly cache = new Map<string, Int32Array>()

  constructor(passages: ReadonlyArray<string>, k1 = K1, b = B) {
    const N = passages.length
    this.size = N
    const docTerms: Array<Map<number, number>> = []
    const lengths = new Float64Array(N)
    let total = 0
    for (let d = 0; d < N; d++) {
      const tf = new Map<number, number>()
      const ws = terms(passages[d]!)
      for (const w of ws) {
        let id = this.termIds.get(w)
        if (id === undefined) this.termIds.set(w, (id = this.termIds.size))
        tf.set(id, (tf.get(id) ?? 0) + 1)
      }
      docTerms.push(tf)
      lengths[d] = ws.length
      total += ws.length
    }
    const T = this.termIds.size
    const avgdl = N > 0 ? total / N : 1
    const df = new Int32Array(T)
    for (const tf of docTerms) for (const t of tf.keys()) df[t]!++
    this.offsets = new Int32Array(T + 1)
    for (let t = 0; t < T; t++) this.offsets[t + 1] = this.offsets[t]! + df[t]!
    const P = this.offsets[T]!
    this.docs = new Int32Array(P)
    this.weights = new Float32Array(P)
    const fill = this.offsets.slice(0, T)
    for (let d = 0; d < N; d++) {
      const norm = k1 * (1 - b + (b * lengths[d]!) / avgdl)
      for (const [t, f] of docTerms[d]!) {
        const p = fill[t]!++
        this.docs[p] = d
        this.weights[p] = (f * (k1 + 1)) / (f + norm)
      }
    }
    this.idf = new Float64Array(T)
    for (let t = 0; t < T; t++) this.idf[t] = Math.log(1 + (N - df[t]! + 0.5) / (df[t]! + 0.5))
    this.acc = new Float64Array(N)
    this.touched = new Int32Array(N)
  }

  /** The normalised form of a query: its sorted distinct indexed terms ("" when none). */
  key(query: string): string {
    // One pass over the characters (this runs on every search): same words as terms().
    const ids: number[] = []
    const q = String(query)
    let start = -1
    for (let i = 0; i <= q.length; i++) {
      const c = i < q.length ? q.charCodeAt(i) | 0x20 : 0
      // c | 0x20 lowercases ASCII letters and leaves digits; the end sentinel 0 closes a word.
      const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57)
      if (alnum) {
        if (start < 0) start = i
      } else if (start >= 0) {
        const id = this.termIds.get(q.slice(start, i).toLowerCase())
        if (id !== undefined && !ids.includes(id)) ids.push(id)
        start = -1
      }
    }
    ids.sort((a, b) => a - b)
    return ids.join(" ")
  }

  /** Indices of the top-k passages for `query`, best first (fewer when fewer match). */
  search(query: string, k: number): Int32Array {
    return this.searchKey(this.key(query), k)
  }

  /** `search` for a query already normalised by `key`. */
  searchKey(key: string, k: number): Int32Array {
    const ck = `${k}|${key}`
    const hit = this.cache.get(ck)
    if (hit !== undefined) return hit
    const result = key === "" ? new Int32Array(0) : this.rank(key.split(" ").map(Number), k)
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear()
    this.cache.set(ck, result)
    return result
  }

  /** The top-k passages with their BM25 scores (the retrieval server reports scores). */
  searchScored(query: string, k: number): Array<{ doc: number; score: number }> {
    const key = this.key(query)
    const ts = key === "" ? [] : key.split(" ").map(Number)
    return Array.from(this.search(query, k), (doc) => {
      let score = 0
      for (const t of ts) {
        // Postings of a term are sorted by passage: binary search for `doc`.
        let lo = this.offsets[t]!
        let hi = this.offsets[t + 1]! - 1
        while (lo <= hi) {
          const mid = (lo + hi) >> 1
          const d = this.docs[mid]!
          if (d === doc) {
            score += this.idf[t]! * this.weights[mid]!
            break
          }
          if (d < doc) lo = mid + 1
          else hi = mid - 1
        }
      }
      return { doc, score }
    })
  }

  private rank(termIds: ReadonlyArray<number>, k: number): Int32Array {
    const acc = this.acc
    const touched = this.touched
    let nt = 0
    for (const t of termIds) {
      const w = this.idf[t]!
      for (let p = this.offsets[t]!, end = this.offsets[t + 1]!; p < end; p++) {
        const d = this.docs[p]!
        if (acc[d] === 0) touched[nt++] = d
        acc[d]! += w * this.weights[p]!
      }
    }
    // Partial selection: keep the k best in a small sorted array.
    const best: number[] = []
    for (let j = 0; j < nt; j++) {
      const d = touched[j]!
      const s = acc[d]!
      if (best.length === k) {
        const last = best[k - 1]!
        if (s < acc[last]! || (s === acc[last]! && d > last)) continue
        best.pop()
      }
      let i = best.length
      while (i > 0 && (acc[best[i - 1]!]! < s || (acc[best[i - 1]!]! === s && best[i - 1]! > d))) i--
      best.splice(i, 0, d)
    }
    const out = Int32Array.from(best)
    for (let j = 0; j < nt; j++) acc[touched[j]!] = 0
    return out
  }
}
