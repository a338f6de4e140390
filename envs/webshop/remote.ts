/**
 * webshop-v1 against a real WebShop server (princeton-nlp/WebShop web_agent_site/app.py) over
 * HTTP. Routes, as app.py defines them:
 *   /<session_id>                                   search page, instruction in #instruction-text h4
 *   /search_results/<sid>/<keywords>/<page>         keywords as a Python list literal, page from 1
 *   /item_page/<sid>/<asin>/<keywords>/<page>/<options>
 *   /item_sub_page/<sid>/<asin>/<keywords>/<page>/<sub_page>/<options>
 *   /done/<sid>/<asin>/<options>                    reward in #reward pre
 * `search[...]` requests the search_results route; `click[...]` loads the URL the page gives
 * that clickable (html.ts). Session ids contain "fixed_<n>": app.py then serves goal n (its
 * shuffled goal list), so the same seed gives the same goal; a unique prefix per episode keeps
 * parallel episodes apart. The env is asynchronous: use resetAsync/stepAsync (the rollout does);
 * the sync reset/step throw. Requests time out after timeoutMs and are retried `retries` times on
 * network errors, timeouts and 5xx answers; then the error names the URL. Answers are capped
 * (MAX_PAGE_BYTES, HTML only) and redirects are followed only within the server's origin.
 *
 * Teacher (no catalogue access, so a heuristic): search the instruction's content words, open
 * the first result, click option values the instruction mentions, buy. Grading: stated item ids
 * must be clickable on the page (or the open item), stated options must be offered on the page
 * and named by the instruction; consistency as the embedded env (the plan's action).
 */
import type { Env, ReasoningGrade, StepResult, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { fetchCapped, FetchRefused } from "../common/fetch.ts"
import { splitWords } from "../common/text.ts"
import { parsePage, type ParsedPage } from "./html.ts"
import { terms } from "./search.ts"
import { actionText, parseAction, type Action } from "./shop.ts"
import { planAction, readPlan, sameAction } from "./teacher.ts"

export interface RemoteServer {
  readonly url: string
  readonly timeoutMs: number
  readonly retries: number
  readonly goals: number
}

export interface RemoteWebShopState {
  readonly server: string
  readonly instruction: string
  readonly page: ParsedPage["kind"] | "none"
  readonly clickables: ReadonlyArray<string>
  /** Option values offered on the page. */
  readonly options: ReadonlyArray<string>
  /** Asin of the open item (lower case), else null. */
  readonly item: string | null
  readonly selected: Readonly<Record<string, string>>
}

export const REMOTE_WORDS = "instruction : want item options plan search click ; ,"
const INVALID_LINE = "no valid action was taken"
const STOP = new Set("i a an the and or for of to with in on is that are am looking need want buy find me my it this these be can please price lower than dollars".split(" "))
const MAX_KEYWORDS = 10

export class WebShopServerError extends Error {
  override readonly name = "WebShopServerError"
}

let instances = 0

/** A WebShop page is tens of kilobytes; a larger answer is refused, not parsed. */
export const MAX_PAGE_BYTES = 2 << 20
const PAGE_TYPES = ["text/html", "application/xhtml+xml"]

/**
 * GET `url` as text, with a timeout and retries on network errors, timeouts and 5xx; at most
 * MAX_PAGE_BYTES of HTML, redirects only within the server's origin (common/fetch.ts).
 */
const fetchPage = async (url: string, s: RemoteServer): Promise<string> => {
  let last = ""
  let attempts = 0
  // A refusal (cross-origin redirect, oversize, content type) or a 4xx can never succeed: no retry.
  let final = false
  for (let attempt = 0; attempt <= s.retries && !final; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempt)))
    attempts++
    try {
      const res = await fetchCapped(url, { signal: AbortSignal.timeout(s.timeoutMs) }, { maxBytes: MAX_PAGE_BYTES, contentTypes: PAGE_TYPES })
      if (res.status >= 200 && res.status < 300) return res.text
      last = `HTTP ${res.status}`
      final = res.status < 500
    } catch (e) {
      const err = e as Error
      final = err instanceof FetchRefused
      last = final
        ? err.message
        : err.name === "TimeoutError" || err.name === "AbortError"
          ? `no answer within ${s.timeoutMs} ms`
          : `${err.message}${(err as { code?: string }).code ? ` (${(err as { code?: string }).code})` : ""}`
    }
  }
  throw new WebShopServerError(
    `webshop server ${s.url} failed on GET ${url}: ${last} after ${attempts} attempt(s)${final ? " (not retried: it cannot succeed)" : ""}; is the WebShop server running there (princeton-nlp/WebShop ./run_dev.sh)? Fix option server.url otherwise.`
  )
}

/** app.py reads keywords starting with "[" as a Python list literal. */
const keywordsSegment = (words: ReadonlyArray<string>): string => encodeURIComponent(`[${words.map((w) => `'${w}'`).join(", ")}]`)

export class RemoteWebShopEnv implements Env<RemoteWebShopState> {
  /** The env version that made it (webshop-v1 or -v2: both drive a server the same way). */
  id = "webshop-v1"
  private readonly base: string
  private readonly tag: string
  private episode = 0
  private sid = ""
  private page: ParsedPage | null = null
  private item: string | null = null
  private selected: Readonly<Record<string, string>> = {}
  private steps = 0
  private terminated = false
  private truncated = false
  private busy = false

  constructor(
    private readonly server: RemoteServer,
    private readonly binaryReward: boolean,
    private readonly actionBudget = 9
  ) {
    this.base = server.url.replace(/\/+$/, "")
    this.tag = `rb${++instances}`
  }

  get done(): boolean {
    return this.terminated || this.truncated
  }

  private syncError(): never {
    throw new Error(
      `webshop-v1 with option server (${this.base}) talks to a remote server: call resetAsync(seed) and stepAsync(action) instead of reset/step (the trainer's rollout, env show, play, env serve and SFT teacher collection do)`
    )
  }

  reset(_seed: number): string {
    return this.syncError()
  }

  step(_action: string): StepResult {
    return this.syncError()
  }

  async resetAsync(seed: number): Promise<string> {
    const goal = this.server.goals > 0 ? ((seed % this.server.goals) + this.server.goals) % this.server.goals : seed
    this.sid = `${this.tag}x${++this.episode}fixed_${goal}`
    this.page = parsePage(await fetchPage(`${this.base}/${this.sid}`, this.server), this.base)
    this.item = null
    this.selected = {}
    this.steps = 0
    this.terminated = false
    this.truncated = false
    return this.observe(true)
  }

  private observe(valid: boolean): string {
    const p = this.page
    const body = p ? `instruction : ${p.instruction}\n${p.kind === "search" ? "search page : answer search [ keywords ]" : p.text}` : "no page loaded yet"
    return valid ? body : `${INVALID_LINE}\n${body}`
  }

  private urlFor(a: Action): { url: string; click?: ParsedPage["clickables"][number] } | null {
    const p = this.page
    if (!p) return null
    if (a.kind === "search") return p.hasSearch ? { url: `${this.base}/search_results/${encodeURIComponent(this.sid)}/${keywordsSegment(a.words)}/1` } : null
    const c = p.clickables.find((c) => c.name === a.value)
    return c ? { url: c.url, click: c } : null
  }

  async stepAsync(action: string): Promise<StepResult> {
    if (this.busy) throw new Error(`${this.id} (remote): stepAsync called again before the previous step finished`)
    const a = parseAction(action)
    if (this.done || !this.page) {
      return { observation: this.observe(true), reward: 0, terminated: this.terminated, truncated: this.truncated, info: { success: false, valid: a !== null, effective: false } }
    }
    this.steps++
    const target = a ? this.urlFor(a) : null
    let reward = 0
    let success = false
    let extra: Record<string, unknown> = {}
    if (target) {
      this.busy = true
      try {
        this.page = parsePage(await fetchPage(target.url, this.server), this.base)
      } finally {
        this.busy = false
      }
      if (target.click?.kind === "product") {
        this.item = target.click.name
        this.selected = {}
      } else if (target.click?.kind === "option") this.selected = { ...this.selected, [target.click.group ?? ""]: target.click.name }
      else if (a!.kind === "search") {
        this.item = null
        this.selected = {}
      }
      if (this.page.kind === "done") {
        this.terminated = true
        const r = this.page.reward ?? 0
        success = r >= 1 - 1e-9
        reward = this.binaryReward ? (success ? 1 : 0) : r
        extra = { webshopReward: r }
      }
    }
    if (!this.terminated && this.steps >= this.actionBudget) this.truncated = true
    return {
      observation: this.observe(target !== null),
      reward,
      terminated: this.terminated,
      truncated: this.truncated,
      info: { success, valid: target !== null, effective: target !== null, page: this.page.kind, ...extra }
    }
  }

  state(): RemoteWebShopState {
    const p = this.page
    return {
      server: this.base,
      instruction: p?.instruction ?? "",
      page: p?.kind ?? "none",
      clickables: p ? p.clickables.map((c) => c.name) : [],
      options: p ? p.clickables.filter((c) => c.kind === "option").map((c) => c.name) : [],
      item: this.item,
      selected: this.selected
    }
  }

  private intended(): { action: Action; item: string | null; options: string[] } {
    const p = this.page
    const wanted = p ? p.clickables.filter((c) => c.kind === "option" && mentions(p.instruction, c.name)).map((c) => c.name) : []
    if (!p || p.kind === "search" || p.kind === "done") {
      const words = terms(p?.instruction.replace(/price lower than.*$/, "") ?? "")
        .filter((w) => !STOP.has(w))
        .slice(0, MAX_KEYWORDS)
      return { action: { kind: "search", words: words.length > 0 ? words : ["product"] }, item: null, options: [] }
    }
    const names = p.clickables.map((c) => c.name)
    if (p.kind === "results") {
      const first = p.clickables.find((c) => c.kind === "product")
      return { action: { kind: "click", value: first ? first.name : (names.find((n) => n === "back to search") ?? names[0] ?? "back to search") }, item: first?.name ?? null, options: [] }
    }
    if (p.kind === "item") {
      const chosen = new Set(Object.values(this.selected))
      const next = wanted.find((v) => !chosen.has(v))
      return { action: { kind: "click", value: next ?? "buy now" }, item: this.item, options: wanted }
    }
    const back = names.find((n) => n.startsWith("<")) ?? names[0] ?? "back to search"
    return { action: { kind: "click", value: back }, item: this.item, options: [] }
  }

  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    const p = this.page
    const { action, item, options: wanted } = this.intended()
    const segs: string[] = []
    const facts: string[] = []
    if (item) {
      segs.push(`item ${item}`)
      facts.push(`item ${item}`)
    }
    if (wanted.length > 0) {
      segs.push(`options ${wanted.join(" , ")}`)
      facts.push(...wanted.map((v) => `option ${v}`))
    }
    if (options.reasoningNoise > 0 && rng.float() < options.reasoningNoise) rng.shuffle(segs)
    const plan = action.kind === "search" ? `search ${action.words.join(" ")}` : `click ${action.value}`
    const reasoning = [`want ${p?.instruction.split(" ").slice(0, 12).join(" ") ?? ""}`, ...segs, `plan ${plan}`].join(" ; ")
    const intendedAction = actionText(action)
    const act = options.epsilon > 0 && rng.float() < options.epsilon ? this.randomAction(rng) : intendedAction
    return { reasoning, action: act, facts, intendedAction }
  }

  gradeReasoning(state: RemoteWebShopState, reasoning: string, action: string): ReasoningGrade {
    const words = splitWords(String(reasoning).slice(0, 20_000).toLowerCase())
    let stated = 0
    let right = 0
    for (let i = 0; i < words.length; i++) {
      if (words[i] === "item" && words[i + 1] !== undefined) {
        stated++
        if (state.clickables.includes(words[i + 1]!) || state.item === words[i + 1]) right++
        i++
      } else if (words[i] === "options") {
        // Option values are phrases separated by "," or "and", up to ";".
        let phrase: string[] = []
        const close = () => {
          if (phrase.length === 0) return
          const v = phrase.join(" ")
          stated++
          if (state.options.includes(v) && mentions(state.instruction, v)) right++
          phrase = []
        }
        let j = i + 1
        for (; j < words.length && words[j] !== ";"; j++) {
          if (words[j] === "," || words[j] === "and") close()
          else phrase.push(words[j]!)
        }
        close()
        i = j - 1
      }
    }
    const plan = readPlan(words)
    const consistency = plan !== null && sameAction(planAction(plan), parseAction(action)) ? 1 : 0
    return { factAccuracy: stated === 0 ? 0 : right / stated, consistency }
  }

  randomAction(rng: Rng): string {
    const p = this.page
    if (!p || p.kind === "search" || p.clickables.length === 0) {
      const words = terms(p?.instruction ?? "product").filter((w) => !STOP.has(w))
      return `search[${words.length > 0 ? rng.pick(words) : "product"}]`
    }
    return `click[${rng.pick(p.clickables).name}]`
  }
}

/** Whether `text` names `value` as whole words. */
const mentions = (text: string, value: string): boolean => {
  if (value === "") return false
  const t = ` ${terms(text).join(" ")} `
  const v = terms(value).join(" ")
  return v !== "" && t.includes(` ${v} `)
}
