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
  window ??= new Window({
    settings: {
      disableJavaScriptEvaluation: true,
      disableJavaScriptFileLoading: true,
      disableCSSFileLoading: true,
      disableIframePageLoading: true,
      navigation: { disableMainFrameNavigation: true, disableChildFrameNavigation: true, disableChildPageNavigation: true }
    }
  } as ConstructorParameters<typeof Window>[0])
  return new window.DOMParser()
}

/** Whether `s` has the ASCII letters `word` (lower case) at `i`, in any case. */
const hasWordAt = (s: string, i: number, word: string): boolean => {
  if (i + word.length > s.length) return false
  for (let k = 0; k < word.length; k++) if ((s.charCodeAt(i + k) | 0x20) !== word.charCodeAt(k)) return false
  return true
}

/** A tag name ends at whitespace, ">", "/" or the end of the text. */
const endsName = (s: string, i: number): boolean => i >= s.length || /[\s/>]/.test(s[i]!)

/**
 * Remove `<script>…</script>` blocks and `<link>` tags in one left-to-right pass: every
 * character is looked at a bounded number of times, whatever the page holds (a backtracking
 * regex took 47 s on 1 MB of repeated "<script"). An unclosed script runs to the end of the
 * page, as an HTML parser reads it; an unclosed link tag likewise.
 */
export const stripScripts = (html: string): string => {
  const out: string[] = []
  let i = 0 // start of the text not yet copied
  let at = html.indexOf("<")
  while (at >= 0) {
    if (hasWordAt(html, at + 1, "script") && endsName(html, at + 7)) {
      out.push(html.slice(i, at))
      // The block ends at the next "</script" (followed by a name end), wherever it is.
      let close = html.indexOf("</", at + 7)
      while (close >= 0 && !(hasWordAt(html, close + 2, "script") && endsName(html, close + 8))) close = html.indexOf("</", close + 2)
      if (close < 0) return out.join("")
      const gt = html.indexOf(">", close + 8)
      if (gt < 0) return out.join("")
      i = gt + 1
      at = html.indexOf("<", i)
    } else if (hasWordAt(html, at + 1, "link") && endsName(html, at + 5)) {
      out.push(html.slice(i, at))
      const gt = html.indexOf(">", at + 5)
      if (gt < 0) return out.join("")
      i = gt + 1
      at = html.indexOf("<", i)
    } else at = html.indexOf("<", at + 1)
  }
  out.push(html.slice(i))
  return out.join("")
}

const BLOCK = new Set(["DIV", "P", "H1", "H2", "H3", "H4", "H5", "H6", "FORM", "BR", "LI", "UL", "TR", "TABLE", "PRE", "SECTION", "BODY"])
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "IMG", "INPUT"])
const squash = (s: string) => s.replace(/\s+/g, " ").trim()

// The style attribute is bounded before the test: no long scan per element.
const hidden = (el: Element): boolean => el.hasAttribute("hidden") || /display\s*:\s*none/i.test((el.getAttribute("style") ?? "").slice(0, 1000))

/** Real WebShop pages have hundreds of tags; the parser is slow on adversarial nesting, so a page with more is refused. */
export const MAX_TAGS = 10_000
/** Text below this element depth is not shown (and the walk cannot overflow the stack). */
const MAX_DEPTH = 200

/** Elements that never hold children (the HTML spec's void elements). */
const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"])
/** Open tags left unclosed at most: a bound on the nesting depth the parser must handle. */
export const MAX_UNCLOSED = 1000
/** HTML tag names are short; a page with a longer one ("<script<script<script…") is refused. */
const MAX_TAG_NAME = 64

/**
 * In one pass: the number of start tags ("<" then a letter, the name read to its end as a
 * tokenizer reads it) and the most start tags of non-void elements left unclosed at any point.
 */
const tagStats = (html: string): { tags: number; unclosed: number; longName: boolean } => {
  let tags = 0
  let open = 0
  let most = 0
  let at = html.indexOf("<")
  while (at >= 0 && tags <= MAX_TAGS) {
    const closing = html.charCodeAt(at + 1) === 0x2f
    const start = closing ? at + 2 : at + 1
    const c = html.charCodeAt(start) | 0x20
    if (c < 0x61 || c > 0x7a) {
      at = html.indexOf("<", at + 1)
      continue
    }
    let end = start
    while (end < html.length && !/[\s/>]/.test(html[end]!)) end++
    if (end - start > MAX_TAG_NAME) return { tags, unclosed: most, longName: true }
    if (closing) open = Math.max(0, open - 1)
    else {
      tags++
      if (end - start > 10 || !VOID.has(html.slice(start, end).toLowerCase())) most = Math.max(most, ++open)
    }
    at = html.indexOf("<", end)
  }
  return { tags, unclosed: most, longName: false }
}

export class PageError extends Error {
  override readonly name = "PageError"
}

export const parsePage = (html: string, baseUrl: string): ParsedPage => {
  const clean = stripScripts(html)
  const st = tagStats(clean)
  if (st.longName) throw new PageError(`the page has a tag name over ${MAX_TAG_NAME} characters`)
  if (st.tags > MAX_TAGS) throw new PageError(`the page has more than ${MAX_TAGS} tags; a WebShop page has hundreds`)
  if (st.unclosed > MAX_UNCLOSED) throw new PageError(`the page nests more than ${MAX_UNCLOSED} unclosed tags; a WebShop page closes its tags`)
  try {
    return parseClean(clean, baseUrl)
  } catch (e) {
    if (e instanceof RangeError) throw new PageError("the page is nested too deeply to parse")
    throw e
  }
}

const parseClean = (clean: string, baseUrl: string): ParsedPage => {
  // Scripts and stylesheets were removed before parsing (and the parser neither runs nor
  // fetches anything): a linear scan, no backtracking regex on an untrusted page.
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
  const instruction = squash(instrEl?.textContent ?? "")
    .replace(/^instruction:\s*/i, "")
    .toLowerCase()

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
  const walk = (node: Node, depth: number) => {
    if (depth > MAX_DEPTH) return
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
    for (const c of Array.from(el.childNodes)) walk(c as unknown as Node, depth + 1)
    if (block) flush()
  }
  if (doc.body) walk(doc.body as unknown as Node, 0)
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
