/**
 * WebShop teacher and reasoning grader.
 *
 * Teacher (scripted expert with full view of the catalogue): on the search page it searches the
 * goal's attributes and type; on a results page it clicks the listed item with the highest
 * reachable reward (or `next >` when none on the page can reach 1); on an item page it picks the
 * goal's option values one by one, then buys; from a worse item or a sub page it goes `< prev`.
 * Reasoning (noise 0):
 *   "want t-shirt ; attributes cotton , slim fit ; options m , red ; budget 30 ;
 *    item b0k3x9 has cotton , slim fit , price 24 ; plan click b0k3x9"
 * Reasoning noise swaps marker synonyms and list separators and shuffles the segment order
 * (the plan stays last).
 *
 * Grading reads any text with the same markers: facts are the goal's type/attributes/options/cap
 * (true iff they are the goal's), an item id (true iff listed on the page or the open item) and
 * that item's attributes and price (true iff the catalogue says so). Consistency is 1 iff the
 * text states a plan ("plan search …" / "plan click …") and the action is exactly that action.
 */
import type { ReasoningGrade, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { splitWords } from "../common/text.ts"
import { ALL_ATTRIBUTES, ALL_OPTION_VALUES, ALL_TYPES, type Catalogue } from "./catalogue.ts"
import { bestSelection, type Goal } from "./goal.ts"
import { terms } from "./search.ts"
import { actionText, BUY_NOW, NEXT_PAGE, normalizeClick, parseAction, PREV_PAGE, BACK_TO_SEARCH, type Action, type PageKind, type Shop } from "./shop.ts"

export interface WebShopState {
  readonly goal: Goal
  readonly page: PageKind
  /** Keywords of the current search ("" on the search page). */
  readonly query: string
  readonly resultsPage: number
  /** Ids listed on the current results page. */
  readonly visible: ReadonlyArray<string>
  /** Id of the open item (item and sub pages), else null. */
  readonly item: string | null
  readonly selected: Readonly<Record<string, string>>
  readonly clickables: ReadonlyArray<string>
}

const MARKERS = {
  type: ["want", "need", "goal"],
  attr: ["attributes", "traits"],
  opt: ["options", "choices"],
  cap: ["budget", "under", "below"],
  item: ["item", "product"],
  has: ["has", "offers"],
  price: ["price", "costs"],
  plan: ["plan", "so", "then"]
} as const
type Marker = keyof typeof MARKERS
const MARKER_OF = new Map<string, Marker>()
for (const [k, ws] of Object.entries(MARKERS)) for (const w of ws) MARKER_OF.set(w, k as Marker)

/** Every word the teacher may write besides catalogue words (for the vocabulary). */
export const TEACHER_WORDS = `${Object.values(MARKERS).flat().join(" ")} search click ; , and`

const pickWord = (m: Marker, noisy: boolean, rng: Rng): string => (noisy ? rng.pick(MARKERS[m]) : MARKERS[m][0])

/** Ids on the results page the shop is on or came from. */
const resultIds = (shop: Shop): number[] => {
  const out: number[] = []
  const { perPage } = shop.data
  const end = Math.min(shop.hits.length, shop.resultsPage * perPage)
  for (let i = (shop.resultsPage - 1) * perPage; i < end; i++) out.push(shop.hits[i]!)
  return out
}

const argBest = (shop: Shop, ids: ReadonlyArray<number>): { i: number; r: number } => {
  let best = { i: -1, r: -1 }
  for (const i of ids) {
    const r = shop.bestReward(i)
    if (r > best.r + 1e-12) best = { i, r }
  }
  return best
}

/** What the teacher does on this page, as an action. */
export const teacherAction = (shop: Shop): Action => {
  const goal = shop.goal
  switch (shop.page) {
    case "search":
      return { kind: "search", words: terms(`${goal.attributes.join(" ")} ${goal.type}`) }
    case "results": {
      const ids = resultIds(shop)
      if (ids.length === 0) return { kind: "click", value: BACK_TO_SEARCH }
      const best = argBest(shop, ids)
      if (best.r < 1 - 1e-9 && shop.clickables.includes(NEXT_PAGE)) return { kind: "click", value: NEXT_PAGE }
      return { kind: "click", value: shop.data.cat.products[best.i]!.id }
    }
    case "item": {
      const best = argBest(shop, resultIds(shop))
      if (shop.bestReward(shop.item) < best.r - 1e-9) return { kind: "click", value: PREV_PAGE }
      const want = bestSelection(shop.data.cat.products[shop.item]!, goal)
      for (const [g, v] of Object.entries(want)) if (shop.selected[g] !== v) return { kind: "click", value: v }
      return { kind: "click", value: BUY_NOW }
    }
    case "description":
    case "features":
      return { kind: "click", value: PREV_PAGE }
    default:
      return { kind: "click", value: BUY_NOW }
  }
}

/**
 * The goal part of the reasoning: type, attributes, options, budget. Compact shops (webshop-v2)
 * state it whole on the search page only, then just the options on an item page (what the
 * clicks there choose): the instruction stays in every observation.
 */
const goalSegments = (shop: Shop, noisy: () => boolean, sep: () => string, rng: Rng): { segs: string[]; facts: string[] } => {
  const goal = shop.goal
  const whole = !shop.data.compact || shop.page === "search"
  const segs: string[] = []
  const facts: string[] = []
  if (whole) {
    segs.push(`${pickWord("type", noisy(), rng)} ${goal.type}`, `${pickWord("attr", noisy(), rng)} ${goal.attributes.join(sep())}`)
    facts.push(`type ${goal.type}`, ...goal.attributes.map((a) => `attribute ${a}`))
  }
  const opts = Object.values(goal.options)
  if (opts.length > 0 && (whole || shop.page === "item")) {
    segs.push(`${pickWord("opt", noisy(), rng)} ${opts.join(sep())}`)
    facts.push(...opts.map((v) => `option ${v}`))
  }
  if (goal.priceCap !== null && whole) {
    segs.push(`${pickWord("cap", noisy(), rng)} ${goal.priceCap}`)
    facts.push(`cap ${goal.priceCap}`)
  }
  return { segs, facts }
}

export const teachShop = (shop: Shop, options: TeacherOptions, rng: Rng, randomAction: (rng: Rng) => string): TeacherStep => {
  const noise = Math.min(1, Math.max(0, options.reasoningNoise))
  const noisy = () => noise > 0 && rng.float() < noise
  const sep = () => (noisy() ? " and " : " , ")
  const goal = shop.goal
  const { segs, facts } = goalSegments(shop, noisy, sep, rng)
  const intended = teacherAction(shop)
  // The item the action is about: the clicked id on a results page, the open item elsewhere.
  const cat = shop.data.cat
  const about = intended.kind === "click" && cat.byId.has(intended.value) ? cat.byId.get(intended.value)! : shop.item >= 0 && shop.page === "item" ? cat.products[shop.item]! : undefined
  if (about) {
    const has = goal.attributes.filter((a) => about.attributes.includes(a))
    const price = `${pickWord("price", noisy(), rng)} ${about.price}`
    segs.push(`${pickWord("item", noisy(), rng)} ${about.id}${has.length > 0 ? ` ${pickWord("has", noisy(), rng)} ${has.join(sep())} ,` : ""} ${price}`)
    facts.push(`item ${about.id}`, ...has.map((a) => `item-attribute ${about.id} ${a}`), `item-price ${about.id} ${about.price}`)
  }
  if (noisy()) rng.shuffle(segs)
  const planText = intended.kind === "search" ? `search ${intended.words.join(" ")}` : `click ${intended.value}`
  const plan = `${pickWord("plan", noisy(), rng)} ${planText}`
  const reasoning = segs.length > 0 ? `${segs.join(" ; ")} ; ${plan}` : plan
  const intendedAction = actionText(intended)
  const action = options.epsilon > 0 && rng.float() < options.epsilon ? randomAction(rng) : intendedAction
  return { reasoning, action, facts, intendedAction }
}

// ---- grading -------------------------------------------------------------------------------

const MAX_CHARS = 20_000
const MAX_PLAN_WORDS = 30

type Lexicon = Map<string, ReadonlyArray<ReadonlyArray<string>>>
const lexicon = (phrases: ReadonlyArray<string>): Lexicon => {
  const m = new Map<string, string[][]>()
  for (const p of phrases) {
    const ws = splitWords(p)
    const list = m.get(ws[0]!) ?? []
    list.push(ws)
    m.set(ws[0]!, list)
  }
  for (const list of m.values()) list.sort((a, b) => b.length - a.length)
  return m
}
const TYPES = lexicon(ALL_TYPES)
const ATTRS = lexicon(ALL_ATTRIBUTES)
const VALUES = lexicon(ALL_OPTION_VALUES)

/** The longest phrase of `lex` starting at words[i], or null. */
const phraseAt = (lex: Lexicon, words: ReadonlyArray<string>, i: number): string[] | null => {
  const cands = lex.get(words[i]!)
  if (!cands) return null
  for (const c of cands) {
    let ok = true
    for (let k = 0; k < c.length && ok; k++) ok = words[i + k] === c[k]
    if (ok) return c as string[]
  }
  return null
}

const isNumber = (w: string | undefined) => w !== undefined && /^\d{1,6}$/.test(w)

export interface ParsedPlan {
  readonly verb: "search" | "click"
  readonly words: ReadonlyArray<string>
}

/** The action a plan names, or null when it names none. */
export const planAction = (p: ParsedPlan): Action | null => {
  if (p.verb === "search") {
    const words = terms(p.words.join(" "))
    return words.length > 0 ? { kind: "search", words } : null
  }
  const value = normalizeClick(p.words.filter((w) => w !== "[" && w !== "]").join(" "))
  return value.length > 0 ? { kind: "click", value } : null
}

export const sameAction = (a: Action | null, b: Action | null): boolean => {
  if (!a || !b || a.kind !== b.kind) return false
  if (a.kind === "click" || b.kind === "click") return a.kind === "click" && b.kind === "click" && a.value === b.value
  const set = (ws: ReadonlyArray<string>) => [...new Set(ws)].sort().join(" ")
  return set(a.words) === set(b.words)
}

/** Words that open a plan in free text besides the teacher's markers ("I will search for …"). */
const FREE_PLAN = new Set(["will", "should", "let's", "lets", "i'll", "next", "now"])
/** Between the plan word and the verb ("so I will now search"), and before the argument ("search for …", "click on …"). */
const PLAN_SKIP = new Set(["i", "will", "now", "first", "then", "to", "we", "should", "let's"])
const ARG_SKIP = new Set(["for", "on", "the", "["])

/**
 * The first plan of a text, or null: the teacher's "plan search …" / "plan click …" (up to ";")
 * and what an LLM writes: "so I will search for cotton t-shirt.", "Next, click on b0k3x9",
 * "I should click[buy now]" (up to ";", "]" or a sentence end).
 */
export const readPlan = (words: ReadonlyArray<string>, from = 0): ParsedPlan | null => {
  for (let i = from; i < words.length; i++) {
    if (MARKER_OF.get(words[i]!) !== "plan" && !FREE_PLAN.has(words[i]!)) continue
    let v = i + 1
    while (v < words.length && v <= i + 4 && (PLAN_SKIP.has(words[v]!) || words[v] === ",")) v++
    const verb = words[v]
    if (verb !== "search" && verb !== "click") continue
    let j = v + 1
    while (j < words.length && ARG_SKIP.has(words[j]!)) j++
    const ws: string[] = []
    for (; j < words.length && words[j] !== ";" && words[j] !== "]" && ws.length < MAX_PLAN_WORDS; j++) {
      // a sentence ends at "." unless it sits inside a number ("8.5")
      if (words[j] === "." && !(/^\d+$/.test(words[j - 1] ?? "") && /^\d+$/.test(words[j + 1] ?? ""))) break
      ws.push(words[j]!)
    }
    return { verb, words: ws }
  }
  return null
}

export const gradeShop = (cat: Catalogue, state: WebShopState, reasoning: string, action: string): ReasoningGrade => {
  const words = splitWords(String(reasoning).slice(0, MAX_CHARS).toLowerCase())
  const goal = state.goal
  const goalValues = Object.values(goal.options)
  let stated = 0
  let right = 0
  const fact = (ok: boolean) => {
    stated++
    if (ok) right++
  }
  let mode: Marker | null = null
  let item: string | null = null
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!
    if (w === ";") {
      mode = null
      continue
    }
    const m = MARKER_OF.get(w)
    if (m === "plan" && (words[i + 1] === "search" || words[i + 1] === "click")) {
      // The plan is graded as consistency; skip its words.
      while (i + 1 < words.length && words[i + 1] !== ";") i++
      mode = null
      continue
    }
    if (m !== undefined && m !== "plan") {
      if (m === "item") {
        const id = words[i + 1]
        if (id !== undefined && /^b0[a-z0-9]{4}$/.test(id)) {
          fact(state.visible.includes(id) || state.item === id)
          item = id
          i++
        }
        mode = null
      } else if ((m === "has" || m === "price") && item === null) mode = null
      else mode = m
      continue
    }
    if (mode === "type") {
      const p = phraseAt(TYPES, words, i)
      if (p) {
        fact(p.join(" ") === splitWords(goal.type).join(" "))
        i += p.length - 1
        mode = null
      }
    } else if (mode === "attr" || mode === "has") {
      const p = phraseAt(ATTRS, words, i)
      if (p) {
        const a = p.join(" ")
        fact(mode === "attr" ? goal.attributes.includes(a) : (cat.byId.get(item!)?.attributes.includes(a) ?? false))
        i += p.length - 1
      }
    } else if (mode === "opt") {
      const p = phraseAt(VALUES, words, i)
      if (p) {
        fact(goalValues.includes(p.join(" ")))
        i += p.length - 1
      }
    } else if (mode === "cap" && isNumber(w)) {
      fact(goal.priceCap !== null && Number(w) === goal.priceCap)
      mode = null
    } else if (mode === "price" && isNumber(w)) {
      fact(cat.byId.get(item!)?.price === Number(w))
      mode = null
    }
  }
  const plan = readPlan(words)
  const consistency = plan !== null && sameAction(planAction(plan), parseAction(action)) ? 1 : 0
  return { factAccuracy: stated === 0 ? 0 : right / stated, consistency }
}
