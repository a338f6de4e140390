/**
 * WebShop goals (instructions) and the purchase reward, after princeton-nlp/WebShop
 * web_agent_site/engine/goal.py.
 *
 * Goals: every goal is made from an existing product (as `get_synthetic_goals`): its type, 1–2
 * of its attributes, one value of each of its option groups, and a price cap drawn as goal.py
 * draws it: of the multiples of 10 above the price (PRICE_RANGE = 10, 20, …, 990) take the
 * first four, sample two and keep the larger; with fewer than two there is no cap.
 *
 * Reward (`get_reward`): r = (matched attributes + matched options + price ok)
 *                             / (#goal attributes + #goal options + 1) × r_type.
 *  - attributes (`get_attribute_reward`): a goal attribute matches when the product lists it,
 *    else when it is a substring of the product's title, features or description (the real
 *    code's first test is a fuzzy token-set ratio > 85 against the product's attributes; our
 *    attribute strings are canonical, so exact membership stands in for it).
 *  - options (`get_option_reward`): each purchased option counts when its value is one of the
 *    goal's option values (exact for "size", as EXACT_MATCH_OPTS; for other groups token-set
 *    equality stands in for fuzzy > 85). The real code's last fallback (value substring of the
 *    title) is left out: with one-letter sizes ("m") it would match almost any title.
 *  - r_type (`get_type_reward`): query_match (same `query`), category_match (≥ 2 shared levels of
 *    the category breadcrumb) and title_score = share of the goal product's title nouns found in
 *    the purchased title. goal.py takes nouns with spaCy; our titles are "brand attribute type",
 *    so the nouns are approximated by the product-type words. r_type = 1, 0.5 if none of
 *    query/category/title_score > 0.2 matches, 0.1 if title_score < 0.1, 0 if title_score = 0.
 *  - success = r = 1; the binary form (the paper trains on it) pays 1 on success, else 0.
 */
import type { Rng } from "../../core/host.ts"
import type { Catalogue, Product } from "./catalogue.ts"

export interface Goal {
  /** Id of the product the goal was made from. */
  readonly asin: string
  readonly type: string
  readonly attributes: ReadonlyArray<string>
  /** Option group → wanted value. */
  readonly options: Readonly<Record<string, string>>
  /** Whole dollars, or null (no cap). */
  readonly priceCap: number | null
  readonly instruction: string
}

const LEADS = ["i need a", "i am looking for a", "i want to buy a", "find me a"] as const
/** Words of the instruction templates (for the vocabulary). */
export const INSTRUCTION_WORDS = `${LEADS.join(" ")} that is and , with price lower than dollars`

/** goal.py's price cap: larger of two draws from the first four multiples of 10 above the price. */
export const drawPriceCap = (rng: Rng, price: number): number | null => {
  const above: number[] = []
  for (let p = 10; p <= 990 && above.length < 4; p += 10) if (p > price) above.push(p)
  if (above.length < 2) return null
  const i = rng.int(above.length)
  let j = rng.int(above.length - 1)
  if (j >= i) j++
  return Math.max(above[i]!, above[j]!)
}

export const makeGoal = (rng: Rng, cat: Catalogue): Goal => {
  const p = cat.products[rng.int(cat.products.length)]!
  const k = 1 + rng.int(2)
  const attributes = rng.shuffle([...p.attributes]).slice(0, k)
  const options: Record<string, string> = {}
  for (const g of p.groups) options[g.name] = rng.pick(g.values)
  const priceCap = drawPriceCap(rng, p.price)
  const opts = Object.entries(options).map(([n, v]) => `${n} ${v}`)
  const instruction =
    `${rng.pick(LEADS)} ${p.type} that is ${attributes.join(" and ")}` +
    (opts.length > 0 ? ` , with ${opts.join(" and ")}` : "") +
    (priceCap !== null ? ` , and price lower than ${priceCap} dollars` : "")
  return { asin: p.id, type: p.type, attributes, options, priceCap, instruction }
}

export interface RewardParts {
  /** The continuous WebShop reward in [0, 1]. */
  readonly reward: number
  readonly rType: number
  readonly attributeMatches: number
  readonly optionMatches: number
  readonly priceOk: boolean
  readonly titleScore: number
}

const tokenSet = (s: string) => [...new Set(s.split(/\s+/).filter(Boolean))].sort().join(" ")

export const typeReward = (purchased: Product, goalProduct: Product): { rType: number; titleScore: number } => {
  const queryMatch = purchased.type === goalProduct.type
  const categoryMatch = purchased.category === goalProduct.category && purchased.type === goalProduct.type
  const want = new Set(goalProduct.type.split(" "))
  const have = new Set(purchased.type.split(" "))
  let inter = 0
  for (const w of want) if (have.has(w)) inter++
  const titleScore = inter / want.size
  let rType = 1
  if (!(queryMatch || categoryMatch || titleScore > 0.2)) rType = 0.5
  if (titleScore < 0.1) rType = 0.1
  if (titleScore === 0) rType = 0
  return { rType, titleScore }
}

export const purchaseReward = (purchased: Product, goal: Goal, goalProduct: Product, selected: Readonly<Record<string, string>>): RewardParts => {
  const { rType, titleScore } = typeReward(purchased, goalProduct)
  let attributeMatches = 0
  for (const a of goal.attributes) if (purchased.attributes.includes(a) || purchased.text.includes(a)) attributeMatches++
  const goalValues = Object.values(goal.options)
  const goalSets = goalValues.map(tokenSet)
  let optionMatches = 0
  for (const [k, v] of Object.entries(selected)) {
    if (k === "size" ? goalValues.includes(v) : goalSets.includes(tokenSet(v))) optionMatches++
  }
  optionMatches = Math.min(optionMatches, goalValues.length)
  const priceOk = goal.priceCap === null || purchased.price <= goal.priceCap
  const r = (attributeMatches + optionMatches + (priceOk ? 1 : 0)) / (goal.attributes.length + goalValues.length + 1)
  return { reward: r * rType, rType, attributeMatches, optionMatches, priceOk, titleScore }
}

/** The options a buyer of `p` should pick for `goal` (the goal's value where `p` offers it). */
export const bestSelection = (p: Product, goal: Goal): Record<string, string> => {
  const sel: Record<string, string> = {}
  for (const g of p.groups) {
    const want = goal.options[g.name]
    if (want !== undefined && g.values.includes(want)) sel[g.name] = want
  }
  return sel
}
