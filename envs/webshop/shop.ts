/**
 * The embedded WebShop site: the real site's page flow (web_agent_site/app.py and the text env's
 * SimServer) served in-process over the generated catalogue, rendered as compact text.
 *
 *   search page   --search[keywords]-->  results page (page 1)
 *   results page  --click[next >] / click[< prev]--> other result pages;
 *                 --click[<item id>]--> item page (no option chosen);
 *                 --click[back to search]--> search page
 *   item page     --click[<option value>]--> same page with that option chosen;
 *                 --click[description] / click[features]--> sub page;
 *                 --click[< prev]--> the results page it came from; --click[buy now]--> done
 *   sub page      --click[< prev]--> item page (choices kept); --click[back to search]
 *
 * Clickables are written in brackets inside the page text ("[b0k3x9] luma cotton t-shirt ,
 * 24 dollars"), as WebShop's text_rich mode marks buttons; `click[v]` must name one of them.
 * `search[...]` is accepted on the search page only (the other pages have no search bar).
 */
import type { Catalogue, Product } from "./catalogue.ts"
import { bestSelection, purchaseReward, type Goal, type RewardParts } from "./goal.ts"
import { terms, type SearchIndex } from "./search.ts"

export type PageKind = "search" | "results" | "item" | "description" | "features" | "done"

export const BACK_TO_SEARCH = "back to search"
export const NEXT_PAGE = "next >"
export const PREV_PAGE = "< prev"
export const DESCRIPTION = "description"
export const FEATURES = "features"
export const BUY_NOW = "buy now"
const MAX_ACTION_CHARS = 400
const MAX_QUERY_WORDS = 12

export type Action = { readonly kind: "search"; readonly words: ReadonlyArray<string> } | { readonly kind: "click"; readonly value: string }

const ACTION_RE = /^\s*(search|click)\s*\[([^[\]]*)\]\s*\.?\s*$/i

/** Lower case, spaces around < and >, single spaces: "<Prev" and "< prev" name the same button. */
export const normalizeClick = (v: string): string =>
  v
    .toLowerCase()
    .replace(/([<>])/g, " $1 ")
    .replace(/\s+/g, " ")
    .trim()

/** `search[keywords]` or `click[value]` (case-insensitive); anything else is null. */
export const parseAction = (text: string): Action | null => {
  if (typeof text !== "string" || text.length > MAX_ACTION_CHARS) return null
  const m = ACTION_RE.exec(text)
  if (!m) return null
  if (m[1]!.toLowerCase() === "search") {
    const words = terms(m[2]!).slice(0, MAX_QUERY_WORDS)
    return words.length > 0 ? { kind: "search", words } : null
  }
  const value = normalizeClick(m[2]!)
  return value.length > 0 ? { kind: "click", value } : null
}

export const actionText = (a: Action): string => (a.kind === "search" ? `search[${a.words.join(" ")}]` : `click[${a.value}]`)

interface Rendered {
  readonly text: string
  readonly clickables: ReadonlyArray<string>
}

/** Per-catalogue render caches shared by every env instance with the same options. */
export interface ShopData {
  readonly cat: Catalogue
  readonly index: SearchIndex
  readonly perPage: number
  readonly resultLines: ReadonlyArray<string>
  readonly itemHeads: ReadonlyArray<string>
  readonly itemClickables: ReadonlyArray<ReadonlyArray<string>>
  readonly pages: Map<string, Rendered>
  /**
   * Compact pages (webshop-v2, for short-context policies): results without the query echo and
   * count; item pages with title and price, option values as lists, and only `< prev` and
   * `buy now` besides them (no rating, description, features or back to search).
   */
  readonly compact: boolean
}

/** A product's result line, item page head and item page clickables. */
export interface ProductLines {
  readonly result: string
  readonly head: string
  readonly clickables: ReadonlyArray<string>
}

export const productLines = (p: Product, compact: boolean): ProductLines => ({
  result: `[${p.id}] ${p.title} , ${p.price} dollars`,
  head: compact ? `item ${p.id} : ${p.title} , ${p.price} dollars` : `item ${p.id} : ${p.title} , ${p.price} dollars , rating ${p.rating}`,
  clickables: compact ? [PREV_PAGE, ...p.groups.flatMap((g) => g.values), BUY_NOW] : [BACK_TO_SEARCH, PREV_PAGE, ...p.groups.flatMap((g) => g.values), DESCRIPTION, FEATURES, BUY_NOW]
})

/** `lines`: the products' lines when they are shared (webshop-v2's store); else rendered here. */
export const shopData = (cat: Catalogue, index: SearchIndex, perPage: number, compact = false, lines?: ReadonlyArray<ProductLines>): ShopData => {
  const ls = lines ?? cat.products.map((p) => productLines(p, compact))
  return {
    cat,
    index,
    perPage,
    resultLines: ls.map((l) => l.result),
    itemHeads: ls.map((l) => l.head),
    itemClickables: ls.map((l) => l.clickables),
    pages: new Map(),
    compact
  }
}

const MAX_PAGES_CACHED = 16_384
const SEARCH_PAGE: Rendered = { text: "search page : answer search [ keywords ]", clickables: [] }

export class Shop {
  page: PageKind = "search"
  query = ""
  hits: Int32Array = new Int32Array(0)
  resultsPage = 1
  item = -1
  selected: Readonly<Record<string, string>> = {}
  outcome: RewardParts | null = null
  private rendered: Rendered = SEARCH_PAGE

  constructor(
    readonly data: ShopData,
    readonly goal: Goal,
    readonly goalProduct: Product
  ) {}

  get clickables(): ReadonlyArray<string> {
    return this.rendered.clickables
  }

  /** Ids on the current results page (empty elsewhere). */
  visibleIds(): string[] {
    if (this.page !== "results") return []
    const { perPage, cat } = this.data
    const out: string[] = []
    const end = Math.min(this.hits.length, this.resultsPage * perPage)
    for (let i = (this.resultsPage - 1) * perPage; i < end; i++) out.push(cat.products[this.hits[i]!]!.id)
    return out
  }

  /** The page text (without the instruction line). */
  text(): string {
    return this.rendered.text
  }

  accepts(a: Action): boolean {
    if (a.kind === "search") return this.page === "search"
    return this.rendered.clickables.includes(a.value)
  }

  /** Apply an accepted action; returns whether the state changed. */
  apply(a: Action): boolean {
    if (a.kind === "search") {
      this.query = a.words.join(" ")
      this.hits = this.data.index.search(a.words)
      return this.goResults(1)
    }
    const v = a.value
    switch (this.page) {
      case "results":
        if (v === BACK_TO_SEARCH) return this.goSearch()
        if (v === NEXT_PAGE) return this.goResults(this.resultsPage + 1)
        if (v === PREV_PAGE) return this.goResults(this.resultsPage - 1)
        this.selected = {}
        return this.goItem(this.data.cat.byId.get(v)!.index)
      case "item": {
        if (v === BACK_TO_SEARCH) return this.goSearch()
        if (v === PREV_PAGE) return this.goResults(this.resultsPage)
        if (v === DESCRIPTION || v === FEATURES) return this.goSub(v)
        if (v === BUY_NOW) return this.buy()
        const p = this.data.cat.products[this.item]!
        const g = p.groups.find((g) => g.values.includes(v))!
        if (this.selected[g.name] === v) return false
        this.selected = { ...this.selected, [g.name]: v }
        return this.goItem(this.item)
      }
      case "description":
      case "features":
        if (v === BACK_TO_SEARCH) return this.goSearch()
        return this.goItem(this.item)
      default:
        return false
    }
  }

  private goSearch(): boolean {
    this.page = "search"
    this.query = ""
    this.hits = new Int32Array(0)
    this.item = -1
    this.selected = {}
    this.rendered = SEARCH_PAGE
    return true
  }

  private goResults(n: number): boolean {
    this.page = "results"
    this.resultsPage = n
    this.item = -1
    this.selected = {}
    const key = `${this.query}\u0000${n}`
    const { pages } = this.data
    let r = pages.get(key)
    if (!r) {
      if (pages.size >= MAX_PAGES_CACHED) pages.clear()
      r = this.renderResults(n)
      pages.set(key, r)
    }
    this.rendered = r
    return true
  }

  private renderResults(n: number): Rendered {
    const { perPage, resultLines, cat } = this.data
    const total = this.hits.length
    if (total === 0) return { text: `no results for ${this.query}\n[${BACK_TO_SEARCH}]`, clickables: [BACK_TO_SEARCH] }
    const pages = Math.ceil(total / perPage)
    const nav = [BACK_TO_SEARCH]
    if (n > 1) nav.push(PREV_PAGE)
    if (n * perPage < total) nav.push(NEXT_PAGE)
    const navText = nav.map((b) => `[${b}]`).join(" ")
    const lines = this.data.compact ? [`page ${n} of ${pages} ${navText}`] : [`results for ${this.query} : page ${n} of ${pages} , ${total} results`, navText]
    const clickables = [...nav]
    const end = Math.min(total, n * perPage)
    for (let i = (n - 1) * perPage; i < end; i++) {
      const d = this.hits[i]!
      lines.push(resultLines[d]!)
      clickables.push(cat.products[d]!.id)
    }
    return { text: lines.join("\n"), clickables }
  }

  private goItem(i: number): boolean {
    this.page = "item"
    this.item = i
    const p = this.data.cat.products[i]!
    const lines = [this.data.itemHeads[i]!]
    const compact = this.data.compact
    for (const g of p.groups) {
      const chosen = this.selected[g.name]
      const values = compact ? g.values.join(" , ") : g.values.map((v) => `[${v}]`).join(" ")
      lines.push(`${g.name} : ${values}${chosen !== undefined ? ` chosen ${chosen}` : ""}`)
    }
    lines.push(compact ? `[${PREV_PAGE}] [${BUY_NOW}]` : `[${BACK_TO_SEARCH}] [${PREV_PAGE}] [${DESCRIPTION}] [${FEATURES}] [${BUY_NOW}]`)
    this.rendered = { text: lines.join("\n"), clickables: this.data.itemClickables[i]! }
    return true
  }

  private goSub(which: "description" | "features"): boolean {
    this.page = which
    const p = this.data.cat.products[this.item]!
    const body = which === "description" ? `description of ${p.id} : ${p.description}` : `features of ${p.id} : ${p.features.join(" , ")}`
    this.rendered = { text: `${body}\n[${BACK_TO_SEARCH}] [${PREV_PAGE}]`, clickables: [BACK_TO_SEARCH, PREV_PAGE] }
    return true
  }

  private buy(): boolean {
    const p = this.data.cat.products[this.item]!
    this.outcome = purchaseReward(p, this.goal, this.goalProduct, this.selected)
    this.page = "done"
    const sel = Object.values(this.selected)
    this.rendered = {
      text: `you bought ${p.id} ${p.title}${sel.length > 0 ? ` with ${sel.join(" , ")}` : ""} for ${p.price} dollars\nscore ${this.outcome.reward.toFixed(2)}`,
      clickables: []
    }
    return true
  }

  /** Expected reward of buying product `i` with the best choice of its options. */
  bestReward(i: number): number {
    const p = this.data.cat.products[i]!
    return purchaseReward(p, this.goal, this.goalProduct, bestSelection(p, this.goal)).reward
  }
}
