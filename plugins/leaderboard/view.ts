/**
 * What the page reads from a Leaderboard, in one place: the primary score and its paired
 * difference, each comparison's verdict, the page's first sentence, the across-env aggregates
 * and what a cell's filter kept. The renderers (html.ts, plots/, rows.ts, csv.ts) read these
 * accessors only, so a change of the leaderboard's fields is a change here.
 */
import { MIN_PAIRS_TO_SEPARATE } from "../../core/statistics/paired.ts"
import { pct, shortId } from "./format.ts"
import type { Across, Aggregate, Cell, Estimate, Leaderboard, Paired, Row } from "./schema.ts"

export type Verdict = "better" | "worse" | "not-separated" | "cannot-separate"

/** The score the page leads with, in words. */
export const PRIMARY_LABEL = "peak validation success"

/** A cell's primary score over seeds. */
export const primaryOf = (c: Cell): Estimate | null => c.peak

/** A cell's paired difference from `none` on the primary score (null for none itself). */
export const primaryDeltaOf = (c: Cell): Paired | null => c.delta

/** The verdict on one paired comparison. */
export const verdictOf = (d: Paired): Verdict => (d.separated ? (d.mean > 0 ? "better" : "worse") : d.n < MIN_PAIRS_TO_SEPARATE || d.lo === null ? "cannot-separate" : "not-separated")

/** The fraction of groups the cell's filter kept (null where not known). */
export const keptOf = (_c: Cell): number | null => null

export const iqmOf = (a: Across): Aggregate | null => a.iqmPeak
export const improvementOf = (a: Across): Aggregate | null => a.improvementPeak

/** The row's noise-floor cell (none on another sampling stream), if any. */
export const noiseFloorOf = (r: Row): Cell | undefined => r.cells.find((c) => c.kind === "noise-floor")

/** The page's verdict in one sentence: which filters separate from none, by how much, at what n. */
export const pageSentence = (lb: Leaderboard): string => {
  const tested = lb.rows.flatMap((r) => r.cells.flatMap((c) => (c.kind === "filter" && primaryDeltaOf(c) ? [{ r, c, d: primaryDeltaOf(c)! }] : [])))
  if (tested.length === 0) return "No filter has paired runs against none on this page yet."
  const sep = tested.filter((t) => verdictOf(t.d) === "better" || verdictOf(t.d) === "worse")
  const ns = [...new Set(tested.map((t) => t.d.n))].sort((a, b) => a - b)
  const nText = ns.length === 1 ? `n = ${ns[0]} seeds` : `n = ${ns[0]}–${ns[ns.length - 1]} seeds`
  if (sep.length === 0) return `No filter separates from none beyond the noise floor (${tested.length} comparisons of ${PRIMARY_LABEL}, Holm at α = ${lb.family.alpha}, ${nText}).`
  const said = sep.map((t) => `${t.c.filter} is ${verdictOf(t.d)} than none on ${shortId(t.r.env)} by ${pct(Math.abs(t.d.mean))} points (n = ${t.d.n})`)
  return `${said.join("; ")}; the other ${tested.length - sep.length} of ${tested.length} comparisons do not separate (Holm at α = ${lb.family.alpha}).`
}
