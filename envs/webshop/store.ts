/**
 * webshop-v2's product store, shared by every catalogue size (docs/decisions.md#issue-27: with v1, each live
 * session of another size kept its own catalogue and index, about 22 MB at 5,000 products).
 *
 * One generated stream of products (catalogue.ts `productStream("store")`); the catalogue of
 * size n is its first n products, the same objects for every n. The store grows on demand and
 * keeps per-(term, document) counts; a search over the first n products computes BM25 with their
 * own statistics (document frequency and average length among the first n, search.ts's k1, b and
 * idf), so a size's results never depend on which sizes were asked for before.
 */
import { type Catalogue, type Product, productStream } from "./catalogue.ts"
import { BM25_B, BM25_K1, documentTerms, MAX_QUERY_WORDS, SEARCH_RETURN_N, type SearchIndex } from "./search.ts"
import { type ProductLines, productLines } from "./shop.ts"

const MAX_VIEW_CACHE = 1024

class Store {
  readonly products: Product[] = []
  readonly byId = new Map<string, Product>()
  /** Compact page lines of each product (webshop-v2's pages), shared by every size. */
  readonly lines: ProductLines[] = []
  private readonly next = productStream("store")
  private readonly docLen: number[] = []
  /** lenSum[n]: total length of the first n documents. */
  private readonly lenSum: number[] = [0]
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>()

  grow(n: number): void {
    while (this.products.length < n) {
      const p = this.next()
      const d = this.products.length
      this.products.push(p)
      this.byId.set(p.id, p)
      this.lines.push(productLines(p, true))
      const words = documentTerms(p)
      this.docLen.push(words.length)
      this.lenSum.push(this.lenSum[d]! + words.length)
      const tf = new Map<string, number>()
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1)
      for (const [w, c] of tf) {
        let post = this.postings.get(w)
        if (!post) this.postings.set(w, (post = { docs: [], tfs: [] }))
        post.docs.push(d)
        post.tfs.push(c)
      }
    }
  }

  /** Documents among the first n that hold term w (postings are in document order). */
  private within(docs: ReadonlyArray<number>, n: number): number {
    let lo = 0
    let hi = docs.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (docs[mid]! < n) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** BM25 top hits among the first n products for distinct, sorted query words. */
  search(words: ReadonlyArray<string>, n: number): Int32Array {
    const avgdl = this.lenSum[n]! / Math.max(1, n)
    const scores = new Map<number, number>()
    for (const w of words) {
      const post = this.postings.get(w)
      if (!post) continue
      const df = this.within(post.docs, n)
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
      for (let k = 0; k < df; k++) {
        const d = post.docs[k]!
        const tf = post.tfs[k]!
        const weight = (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * this.docLen[d]!) / avgdl))
        scores.set(d, (scores.get(d) ?? 0) + weight)
      }
    }
    const hits = [...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)! || a - b)
    return Int32Array.from(hits.slice(0, SEARCH_RETURN_N))
  }

  /** Terms that occur among the first n products, sorted. */
  vocabulary(n: number): string[] {
    return [...this.postings.entries()]
      .filter(([, p]) => p.docs[0]! < n)
      .map(([w]) => w)
      .sort()
  }
}

const store = new Store()

/** The store's id map seen through the first n products (no copy). */
class PrefixIds implements ReadonlyMap<string, Product> {
  constructor(
    private readonly all: ReadonlyMap<string, Product>,
    private readonly products: ReadonlyArray<Product>
  ) {}
  get size(): number {
    return this.products.length
  }
  get(id: string): Product | undefined {
    const p = this.all.get(id)
    return p !== undefined && p.index < this.products.length ? p : undefined
  }
  has(id: string): boolean {
    return this.get(id) !== undefined
  }
  *entries(): MapIterator<[string, Product]> {
    for (const p of this.products) yield [p.id, p]
  }
  *keys(): MapIterator<string> {
    for (const p of this.products) yield p.id
  }
  *values(): MapIterator<Product> {
    yield* this.products
  }
  [Symbol.iterator](): MapIterator<[string, Product]> {
    return this.entries()
  }
  forEach(f: (value: Product, key: string, map: ReadonlyMap<string, Product>) => void): void {
    for (const p of this.products) f(p, p.id, this)
  }
}

/** The first n products of the shared store as a catalogue (the products are shared objects). */
export const storeCatalogue = (n: number): Catalogue => {
  store.grow(n)
  const products = store.products.slice(0, n)
  return { size: n, products, byId: new PrefixIds(store.byId, products) }
}

/** The compact page lines of the first n products (shared strings). */
export const storeLines = (n: number): ReadonlyArray<ProductLines> => {
  store.grow(n)
  return store.lines.slice(0, n)
}

/** Search over the first n products of the store (BM25 with their statistics), with a small result cache. */
export const storeIndex = (n: number): SearchIndex => {
  store.grow(n)
  const cache = new Map<string, Int32Array>()
  let vocabulary: ReadonlyArray<string> | undefined
  return {
    get vocabulary() {
      vocabulary ??= store.vocabulary(n)
      return vocabulary
    },
    search(words) {
      const key = [...new Set(words.slice(0, MAX_QUERY_WORDS))].sort().join(" ")
      let hit = cache.get(key)
      if (!hit) {
        if (cache.size >= MAX_VIEW_CACHE) cache.clear()
        hit = store.search(key === "" ? [] : key.split(" "), n)
        cache.set(key, hit)
      }
      return hit
    }
  }
}
