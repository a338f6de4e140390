/**
 * A real WebShop page (web_agent_site/templates/*.html) parsed with happy-dom into observation
 * text and clickables, the way WebAgentTextEnv reads pages (web_agent_site/envs/
 * web_agent_text_env.py `get_available_actions`): buttons `.btn` and product links
 * `a.product-link` are clickable by their lower-cased text, option radios
 * `input[type=radio]` by their value; the instruction is `#instruction-text h4`; the done page
 * shows the score in `#reward pre`. Hidden parts (`display:none`, `hidden` — the done page
 * hides the goal there) and scripts never reach the observation. Each clickable carries the
 * URL the real page would load: a button its form's action, a link its href, a radio its
 * `data-url`. Links leaving the server's origin are dropped.
 */
import { Window } from "happy-dom"
import { normalizeClick } from "./shop.ts"

export type RemotePageKind = "search" | "results" | "item" | "sub" | "done"

export interface Clickable {
  /** What `click[...]` names: lower-cased button/link text or the radio's value. */
  readonly name: string
  readonly url: string
  readonly kind: "button" | "product" | "option"
  /** Option group (the radio's name) for options. */
  readonly group?: string
}

export interface ParsedPage {
  readonly kind: RemotePageKind
  readonly instruction: string
  /** Page text, clickables in brackets, one line per block; without the instruction. */
  readonly text: string
  readonly clickables: ReadonlyArray<Clickable>
  readonly hasSearch: boolean
  /** The score on the done page, else null. */
  readonly reward: number | null
}

let window: Window | undefined
const parser = () => {
  window ??= new Window({ settings: { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true } } as ConstructorParameters<typeof Window>[0])
  return new window.DOMParser()
}

const BLOCK = new Set(["DIV", "P", "H1", "H2", "H3", "H4", "H5", "H6", "FORM", "BR", "LI", "UL", "TR", "TABLE", "PRE", "SECTION", "BODY"])
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "IMG", "INPUT"])
const squash = (s: string) => s.replace(/\s+/g, " ").trim()

const hidden = (el: Element): boolean => el.hasAttribute("hidden") || /display\s*:\s*none/i.test(el.getAttribute("style") ?? "")

export const parsePage = (html: string, baseUrl: string): ParsedPage => {
  // Scripts and stylesheets are removed before parsing: nothing is fetched or run.
  const clean = html.replace(/<script\b[\s\S]*?<\/script\s*>/gi, "").replace(/<link\b[^>]*>/gi, "")
  const doc = parser().parseFromString(clean, "text/html") as unknown as Document
  const origin = new URL(baseUrl).origin
  const resolve = (u: string | null): string | null => {
    if (!u) return null
    try {
      const abs = new URL(u, baseUrl)
      return abs.origin === origin ? abs.href : null
    } catch {
      return null
    }
  }
  const instrEl = doc.querySelector("#instruction-text h4")
  const instruction = squash(instrEl?.textContent ?? "").replace(/^instruction:\s*/i, "").toLowerCase()

  const clickables: Clickable[] = []
  const seen = new Set<string>()
  const add = (c: Clickable) => {
    if (c.name === "" || seen.has(c.name)) return
    seen.add(c.name)
    clickables.push(c)
  }
  const hasSearch = doc.querySelector("#search_input, input[name=search_query]") !== null
  for (const b of Array.from(doc.querySelectorAll(".btn"))) {
    const name = normalizeClick(b.textContent ?? "")
    // The search bar's own button is not a click target (WebAgentTextEnv refuses click[search]).
    if (hasSearch && name === "search") continue
    const url = resolve(b.closest("form")?.getAttribute("action") ?? b.getAttribute("href"))
    if (url) add({ name, url, kind: "button" })
  }
  for (const a of Array.from(doc.querySelectorAll("a.product-link"))) {
    const url = resolve(a.getAttribute("href"))
    if (url) add({ name: normalizeClick(a.textContent ?? ""), url, kind: "product" })
  }
  for (const r of Array.from(doc.querySelectorAll("input[type=radio]"))) {
    const url = resolve(r.getAttribute("data-url"))
    if (url) add({ name: normalizeClick(r.getAttribute("value") ?? ""), url, kind: "option", group: (r.getAttribute("name") ?? "").toLowerCase() })
  }

  // Visible text, clickables in brackets.
  const lines: string[] = []
  let line = ""
  const flush = () => {
    const t = squash(line)
    if (t) lines.push(t)
    line = ""
  }
  const walk = (node: Node) => {
    if (node.nodeType === 3) {
      line += ` ${node.textContent ?? ""}`
      return
    }
    if (node.nodeType !== 1) return
    const el = node as Element
    if (SKIP.has(el.tagName) || hidden(el) || el.id === "instruction-text") return
    const clickableText = el.tagName === "BUTTON" || el.tagName === "LABEL" || (el.tagName === "A" && el.classList.contains("product-link"))
    if (clickableText) {
      const t = squash(el.textContent ?? "").toLowerCase()
      if (t) line += ` [${t}]`
      return
    }
    const block = BLOCK.has(el.tagName)
    if (block) flush()
    for (const c of Array.from(el.childNodes)) walk(c as unknown as Node)
    if (block) flush()
  }
  if (doc.body) walk(doc.body as unknown as Node)
  flush()

  const rewardText = doc.querySelector("#reward pre")?.textContent
  const reward = rewardText !== undefined && rewardText !== null && Number.isFinite(Number(rewardText.trim())) ? Number(rewardText.trim()) : null
  const names = new Set(clickables.map((c) => c.name))
  const kind: RemotePageKind =
    reward !== null
      ? "done"
      : hasSearch
        ? "search"
        : names.has("buy now")
          ? "item"
          : clickables.some((c) => c.kind === "product") || /total results/i.test(doc.body?.textContent ?? "")
            ? "results"
            : "sub"
  return { kind, instruction, text: lines.join("\n").toLowerCase(), clickables, hasSearch, reward }
}
