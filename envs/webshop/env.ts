/**
 * WebShop (webshop-v1): buy the product an instruction asks for on a web store
 * (Yao et al. 2022, princeton-nlp/WebShop), text in and text out.
 *
 * Description: an instruction names a product type, attributes, option values and a price cap
 *   ("i need a t-shirt that is cotton , with size m and color red , and price lower than 30
 *   dollars"); the agent searches, browses results, opens an item, picks its options and buys.
 *   Embedded default: a generated catalogue (catalogue.ts) served in-process with the real site's
 *   page flow (shop.ts). With option `server`, a real WebShop server over HTTP (remote.ts).
 * Actions: `search[keywords]` (search page) and `click[value]`, value one of the page's
 *   bracketed clickables: an item id, an option value, `next >`, `< prev`, `back to search`,
 *   `description`, `features`, `buy now`. Anything else is invalid (not applied).
 * Observation: "instruction : …" then the page (results one short line per item; clickables in
 *   brackets); a first line "no valid action was taken" after an invalid action.
 * Start: the search page of the goal drawn from the seed (every goal comes from a product).
 * Rewards: on `buy now`, WebShop's reward (goal.ts) — binary by default (1 iff it is 1, the
 *   paper's setting), the continuous value with binaryReward false; 0 on every other step.
 * Episode end: terminated on buy now (success iff the reward is 1); the harness truncates after
 *   `actionBudget` (9, docs/design.md §3) actions, valid or not (core/env/time-limit.ts).
 * Arguments: catalogueSize 200, resultsPerPage 10 (the real site's page size), binaryReward
 *   true, server (unset = embedded; { url, timeoutMs 10000, retries 2, goals }).
 * Version history: v1 — first version. v2 — compact pages for short-context policies (the
 *   standard suite's tiny model): 4 results per page, results without the query echo and count,
 *   item pages with title, price, option lists, `< prev` and `buy now` only (no rating,
 *   description/features pages or back to search, as RAGEN's WebShop prompt tells the agent
 *   never to click description); Markov (the observation holds the instruction and the chosen
 *   options); the teacher states the whole goal on the search page only. The embedded catalogue
 *   and reward are v1's; the server option drives the same remote adapter.
 */
import { Schema } from "effect"
import type { Env, EnvSpec, ReasoningGrade, StepResult, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import { derive, type Rng, withDefault as dflt } from "../../core/host.ts"
import { DIGITS, vocabularyOf } from "../common/text.ts"
import { ALL_GROUP_NAMES, catalogue, type Product } from "./catalogue.ts"
import { INSTRUCTION_WORDS, makeGoal } from "./goal.ts"
import { RemoteWebShopEnv, REMOTE_WORDS } from "./remote.ts"
import { buildIndex, type SearchIndex } from "./search.ts"
import { storeCatalogue, storeIndex, storeLines } from "./store.ts"
import { BACK_TO_SEARCH, BUY_NOW, DESCRIPTION, FEATURES, NEXT_PAGE, parseAction, PREV_PAGE, Shop, shopData, type ShopData } from "./shop.ts"
import { gradeShop, teachShop, TEACHER_WORDS, type WebShopState } from "./teacher.ts"

const int = (lo: number, hi: number) => Schema.Int.check(Schema.isBetween({ minimum: lo, maximum: hi }))

export const ServerOptions = Schema.Struct({
  /** Base URL of a running WebShop server (web_agent_site/app.py), e.g. "http://127.0.0.1:3000". */
  url: Schema.String.check(Schema.makeFilter((u: string) => (/^https?:\/\/[^\s/]+/.test(u) ? undefined : `server.url must be an http(s) URL like "http://127.0.0.1:3000", got "${u}"`))),
  /** Per-request timeout. */
  timeoutMs: dflt(int(100, 600_000), 10_000),
  /** Extra attempts after a failed request (network error, 5xx, timeout). */
  retries: dflt(int(0, 10), 2),
  /** Number of goals on the server; when > 0 the goal index is seed mod goals (else the seed). */
  goals: dflt(int(0, 10_000_000), 0)
})
export type ServerOptions = typeof ServerOptions.Type

const webShopOptions = (resultsPerPage: number) =>
  Schema.Struct({
    /** Products in the generated catalogue. */
    catalogueSize: dflt(int(10, 5000), 200),
    /** Results per results page (the real site shows 10; webshop-v2 shows 4 by default). */
    resultsPerPage: dflt(int(1, 50), resultsPerPage),
    /** Pay 1 for a perfect purchase and 0 otherwise (the paper's setting); false = WebShop's continuous reward. */
    binaryReward: dflt(Schema.Boolean, true),
    /** Drive a real WebShop server instead of the embedded catalogue. */
    server: Schema.optional(ServerOptions)
  })
export const WebShopOptions = webShopOptions(10)
export const WebShopV2Options = webShopOptions(4)
export type WebShopOptions = typeof WebShopOptions.Type

export const MAX_TURNS = 5
export const ACTION_BUDGET = 9
export const INVALID_LINE = "no valid action was taken"

const dataCache = new Map<string, { data: ShopData; index: SearchIndex }>()
/** v1: a catalogue and index per size (bounded caches; live sessions keep theirs). */
const v1DataFor = (o: WebShopOptions): { data: ShopData; index: SearchIndex } => {
  const key = `${o.catalogueSize}/${o.resultsPerPage}`
  let d = dataCache.get(key)
  if (!d) {
    const cat = catalogue(o.catalogueSize)
    const index = dataCache.get(`${o.catalogueSize}/idx`)?.index ?? buildIndex(cat)
    d = { data: shopData(cat, index, o.resultsPerPage), index }
    // Bounded: each option set costs tens of megabytes and a server builds one per client's
    // choice; the oldest entries go first (live sessions keep theirs).
    while (dataCache.size >= 8) dataCache.delete(dataCache.keys().next().value as string)
    dataCache.set(key, d)
    dataCache.set(`${o.catalogueSize}/idx`, d)
  }
  return d
}

/** v2: views of the shared product store (store.ts); a view of another size costs pointers only. */
const v2Cache = new Map<string, { data: ShopData; index: SearchIndex }>()
const v2DataFor = (o: WebShopOptions): { data: ShopData; index: SearchIndex } => {
  const key = `${o.catalogueSize}/${o.resultsPerPage}`
  let d = v2Cache.get(key)
  if (!d) {
    const index = storeIndex(o.catalogueSize)
    d = { data: shopData(storeCatalogue(o.catalogueSize), index, o.resultsPerPage, true, storeLines(o.catalogueSize)), index }
    while (v2Cache.size >= 16) v2Cache.delete(v2Cache.keys().next().value as string)
    v2Cache.set(key, d)
  }
  return d
}

class WebShopEnv implements Env<WebShopState> {
  private readonly data: ShopData
  private shop!: Shop
  private instructionLine = ""
  private terminated = false

  constructor(
    readonly id: string,
    private readonly options: WebShopOptions,
    compact: boolean
  ) {
    this.data = (compact ? v2DataFor(options) : v1DataFor(options)).data
    this.reset(0)
  }

  get done(): boolean {
    return this.terminated
  }

  reset(seed: number): string {
    const goal = makeGoal(derive(seed, "webshop", "goal"), this.data.cat)
    this.shop = new Shop(this.data, goal, this.data.cat.byId.get(goal.asin)!)
    this.instructionLine = `instruction : ${goal.instruction}\n`
    this.terminated = false
    return this.observe(true)
  }

  private observe(valid: boolean): string {
    return valid ? this.instructionLine + this.shop.text() : `${INVALID_LINE}\n${this.instructionLine}${this.shop.text()}`
  }

  step(action: string): StepResult {
    const a = parseAction(action)
    const valid = a !== null && !this.done && this.shop.accepts(a)
    if (this.done) {
      return { observation: this.observe(true), reward: 0, terminated: true, truncated: false, info: { success: false, valid: a !== null, effective: false } }
    }
    let effective = false
    let reward = 0
    let success = false
    let info: Record<string, unknown> = {}
    if (valid) {
      effective = this.shop.apply(a!)
      const out = this.shop.outcome
      if (this.shop.page === "done" && out) {
        this.terminated = true
        success = out.reward >= 1 - 1e-9
        reward = this.options.binaryReward ? (success ? 1 : 0) : out.reward
        info = { webshopReward: out.reward, rType: out.rType, attributeMatches: out.attributeMatches, optionMatches: out.optionMatches, priceOk: out.priceOk }
      }
    }
    return { observation: this.observe(valid), reward, terminated: this.terminated, truncated: false, info: { success, valid, effective, page: this.shop.page, ...info } }
  }

  state(): WebShopState {
    const s = this.shop
    return {
      goal: s.goal,
      page: s.page,
      query: s.query,
      resultsPage: s.resultsPage,
      visible: s.visibleIds(),
      item: s.item >= 0 ? this.data.cat.products[s.item]!.id : null,
      selected: s.selected,
      clickables: s.clickables
    }
  }

  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    return teachShop(this.shop, options, rng, (r) => this.randomAction(r))
  }

  gradeReasoning(state: WebShopState, reasoning: string, action: string): ReasoningGrade {
    return gradeShop(this.data.cat, state, reasoning, action)
  }

  /** Search page: 1–3 random indexed words; elsewhere a uniformly random clickable. */
  randomAction(rng: Rng): string {
    const c = this.shop.clickables
    if (this.shop.page === "search" || c.length === 0) {
      const vocab = this.data.index.vocabulary
      const k = 1 + rng.int(3)
      let q = vocab[rng.int(vocab.length)]!
      for (let i = 1; i < k; i++) q += ` ${vocab[rng.int(vocab.length)]!}`
      return `search[${q}]`
    }
    return `click[${c[rng.int(c.length)]!}]`
  }
}

const instructions = (o: WebShopOptions): string =>
  [
    "You are shopping on a web store . Buy the product that the instruction asks for .",
    "On the search page answer search [ keywords ] . On other pages answer click [ value ] , where value is one of the clickables shown in brackets :",
    "an item id , an option value , next > , < prev , back to search , description , features or buy now .",
    "Choose the options the instruction names before you buy now .",
    o.binaryReward
      ? "Reward 1 if the product matches the type , attributes , options and price , else 0 ."
      : "Reward : the share of matched attributes , options and price , times a product type match ."
  ].join("\n")

const catalogueWords = (p: Product): string => `${p.id} ${p.title} ${p.description} ${p.features.join(" ")} ${p.groups.flatMap((g) => g.values).join(" ")} ${p.category} ${p.rating}`

const v2Instructions = (o: WebShopOptions): string =>
  [
    "You are shopping on a web store . Buy the product that the instruction asks for .",
    "On the search page answer search [ keywords ] . On other pages answer click [ value ] , where value is an item id , a value in brackets or an option value listed on the item page .",
    "Choose the options the instruction names before you buy now .",
    o.binaryReward
      ? "Reward 1 if the product matches the type , attributes , options and price , else 0 ."
      : "Reward : the share of matched attributes , options and price , times a product type match ."
  ].join("\n")

interface Version {
  readonly id: string
  readonly options: typeof WebShopOptions
  readonly compact: boolean
  readonly instructions: (o: WebShopOptions) => string
}

const webShopVersion = (v: Version): EnvSpec<WebShopOptions> => ({
  id: v.id,
  externalOptions: [{ path: ["server", "url"], kind: "url" }],
  description: `WebShop: search a generated catalogue, open an item, choose its options and buy what the instruction asks for (WebShop's page flow and reward; option server = a real WebShop server over HTTP)${v.compact ? "; compact pages that fit a 128-token context" : ""}`,
  options: v.options,
  maxTurns: MAX_TURNS,
  actionBudget: ACTION_BUDGET,
  // Compact pages carry all the agent needs (the instruction, the page, the chosen options).
  markov: v.compact,
  make: (options) => {
    if (!options.server) return new WebShopEnv(v.id, options, v.compact)
    const env = new RemoteWebShopEnv(options.server, options.binaryReward)
    env.id = v.id
    return env
  },
  vocabulary: (o) =>
    vocabularyOf(
      v.instructions(o),
      INVALID_LINE,
      INSTRUCTION_WORDS,
      "instruction : search page : answer search [ keywords ] results for page of results no results item dollars rating chosen description features you bought with for score",
      [BACK_TO_SEARCH, NEXT_PAGE, PREV_PAGE, DESCRIPTION, FEATURES, BUY_NOW].join(" "),
      ALL_GROUP_NAMES.join(" "),
      TEACHER_WORDS,
      o.server ? REMOTE_WORDS : "",
      ...(o.server ? [] : (v.compact ? storeCatalogue : catalogue)(o.catalogueSize).products.map(catalogueWords)),
      DIGITS
    ),
  instructions: v.instructions
})

export const webShopSpec = webShopVersion({ id: "webshop-v1", options: WebShopOptions, compact: false, instructions })
export const webShopV2Spec = webShopVersion({ id: "webshop-v2", options: WebShopV2Options, compact: true, instructions: v2Instructions })
