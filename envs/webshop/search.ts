/**
 * Keyword search over the catalogue: BM25 on a precomputed inverted index, top 50 results as
 * WebShop's engine returns (web_agent_site/engine/engine.py: SEARCH_RETURN_N = 50, Pyserini's
 * LuceneSearcher with its BM25 defaults k1 = 0.9, b = 0.4 and Lucene's idf
 * log(1 + (N − df + 0.5)/(df + 0.5))). A document is a product's title, features, description,
 * category and type. Per-(term, document) weights are query-independent, so they are computed
 * once; a query sums postings. Results are cached per normalized query.
 */
import type { Catalogue, Product } from "./catalogue.ts"

export const SEARCH_RETURN_N = 50
export const BM25_K1 = 0.9
export const BM25_B = 0.4
const K1 = BM25_K1
const B = BM25_B
export const MAX_QUERY_WORDS = 12
const MAX_CACHE = 8192

/** Lower-case words of a query or document ([a-z0-9] runs with inner hyphens). */
export const terms = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []

export interface SearchIndex {
  /** Product indices of the top hits, best first (ties by catalogue order). */
  search(words: ReadonlyArray<string>): Int32Array
  /** Indexed terms (a random policy draws its keywords from these). */
  readonly vocabulary: ReadonlyArray<string>
}

/** A product's document: title, features, description, category and type. */
export const documentTerms = (p: Product): string[] => terms(`${p.title} ${p.features.join(" ")} ${p.description} ${p.category} ${p.type}`)

export const buildIndex = (cat: Catalogue): SearchIndex => {
  const n = cat.products.length
  const docTerms = cat.products.map(documentTerms)
  const avgdl = docTerms.reduce((s, d) => s + d.length, 0) / Math.max(1, n)
  const raw = new Map<string, Map<number, number>>()
  docTerms.forEach((words, d) => {
    for (const w of words) {
      let m = raw.get(w)
      if (!m) raw.set(w, (m = new Map()))
      m.set(d, (m.get(d) ?? 0) + 1)
    }
  })
  const postings = new Map<string, { docs: Int32Array; weights: Float64Array }>()
  for (const [w, m] of raw) {
    const df = m.size
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
    const docs = new Int32Array(df)
    const weights = new Float64Array(df)
    let k = 0
    for (const [d, tf] of m) {
      docs[k] = d
      weights[k] = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * docTerms[d]!.length) / avgdl))
      k++
    }
    postings.set(w, { docs, weights })
  }
  const scores = new Float64Array(n)
  const touched = new Int32Array(n)
  const isTouched = new Uint8Array(n)
  const cache = new Map<string, Int32Array>()

  const run = (ws: ReadonlyArray<string>): Int32Array => {
    let nt = 0
    for (const w of ws) {
      const p = postings.get(w)
      if (!p) continue
      for (let k = 0; k < p.docs.length; k++) {
        const d = p.docs[k]!
        if (!isTouched[d]) {
          isTouched[d] = 1
          touched[nt++] = d
          scores[d] = 0
        }
        scores[d] = scores[d]! + p.weights[k]!
      }
    }
    const hits = Array.from(touched.subarray(0, nt))
    hits.sort((a, b) => scores[b]! - scores[a]! || a - b)
    for (let i = 0; i < nt; i++) isTouched[touched[i]!] = 0
    return Int32Array.from(hits.slice(0, SEARCH_RETURN_N))
  }

  return {
    vocabulary: [...postings.keys()].sort(),
    search(words) {
      // Lucene scores a repeated query term once per occurrence; we use each distinct term once.
      const key = [...new Set(words.slice(0, MAX_QUERY_WORDS))].sort().join(" ")
      let hit = cache.get(key)
      if (!hit) {
        if (cache.size >= MAX_CACHE) cache.clear()
        hit = run(key === "" ? [] : key.split(" "))
        cache.set(key, hit)
      }
      return hit
    }
  }
}
