/**
 * The marks of the tables: a verdict reads as a glyph and a word in one of two colour-blind-safe
 * colours (better ▲ blue, worse ▼ vermillion), never one green ✓ for both; ★ only for a cell
 * separated above none.
 */
import { esc } from "./escape.ts"
import { fmtPaired, signedPct } from "./format.ts"
import { VERDICT_MARK } from "./plots/forest.ts"
import type { Cell, Paired } from "./schema.ts"
import { bestOf, verdictOf } from "./view.ts"

export const verdictHtml = (d: Paired): string => {
  const v = verdictOf(d)
  const m = VERDICT_MARK[v]
  return `<span class="v v-${v}" title="${esc(m.word)} (Holm over the page)">${m.glyph} ${esc(m.word)}</span>`
}

/** A Δ with its interval, signed by its verdict (never by its sign alone). */
export const deltaHtml = (d: Paired, mark = true): string => {
  const v = verdictOf(d)
  const cls = v === "better" ? "pos" : v === "worse" ? "neg" : ""
  // One that cannot separate keeps its mean, not its interval (which would look decisive without being so).
  const text = v === "cannot-separate" ? signedPct(d.mean) : fmtPaired(d)
  return `<span class="${cls}">${esc(text)}</span>${mark ? ` ${verdictHtml(d)}` : ""}`
}

/** Best in its row: the highest primary among cells separated above none (a difference inside its interval is never best). */
export const isBest = (c: Cell): boolean => bestOf(c)
