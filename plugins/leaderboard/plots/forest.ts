/**
 * Forest plots: per row (env · algo · setting), each filter's paired difference from `none` on
 * the primary score with its interval, the noise floor (none′ − none) as its own shaded band and
 * line, and the verdict as a glyph and a word beside each line. Every panel of a page shares one
 * symmetric domain, so a wide interval looks wide next to a narrow one.
 */
import { pct, shortId, signedPct } from "../format.ts"
import type { Cell, Leaderboard, Row } from "../schema.ts"
import { primaryDeltaOf, PRIMARY_LABEL, type Verdict, verdictOf } from "../view.ts"
import { type IntervalItem, intervalChart, symmetricDomain } from "./intervals.ts"
import { BETTER_COLOUR, colourOf, NOISE_FLOOR_COLOUR, WORSE_COLOUR } from "./palette.ts"

/** How each verdict reads: a glyph and a word, and a colour that is never the only cue. */
export const VERDICT_MARK: Readonly<Record<Verdict, { glyph: string; word: string; colour: string }>> = {
  better: { glyph: "▲", word: "better", colour: BETTER_COLOUR },
  worse: { glyph: "▼", word: "worse", colour: WORSE_COLOUR },
  "not-separated": { glyph: "≈", word: "not separated", colour: "#555555" },
  "cannot-separate": { glyph: "?", word: "cannot separate", colour: "#555555" }
}

export type CellHref = (row: Row, cell: Cell) => string | undefined

/**
 * The shared domain of every forest panel on a page: it holds every mean and every interval of a
 * comparison that could separate (and the noise floor's); the interval of one that cannot at its
 * n may be far wider, and runs off the panel with an arrow rather than squash the others.
 */
export const forestDomain = (lb: Leaderboard): readonly [number, number] =>
  symmetricDomain(
    lb.rows.flatMap((r) =>
      r.cells.flatMap((c) => {
        const d = primaryDeltaOf(c)
        return d ? (verdictOf(d) === "cannot-separate" && c.kind !== "noise-floor" ? [d.mean] : [d.lo, d.hi, d.mean]) : []
      })
    )
  )

const interval = (lo: number | null, hi: number | null): string => (lo === null || hi === null ? "no interval" : `[${signedPct(lo)}, ${signedPct(hi)}]`)

const itemOf = (row: Row, c: Cell, href: CellHref, filters: ReadonlyArray<string>): IntervalItem | null => {
  const d = primaryDeltaOf(c)
  if (!d) return null
  const floor = c.kind === "noise-floor"
  const v = verdictOf(d)
  const mark = VERDICT_MARK[v]
  // A comparison that cannot separate at its n shows its mean only, as the tables do: its interval
  // could exclude 0 and look decisive while the test could not reject (the noise floor keeps its band).
  const bare = v === "cannot-separate" && !floor
  const it: IntervalItem = {
    label: c.filter,
    value: d.mean,
    lo: bare ? null : d.lo,
    hi: bare ? null : d.hi,
    colour: floor ? NOISE_FLOOR_COLOUR : colourOf(c.filter, filters),
    filled: !floor && (v === "better" || v === "worse"),
    note: floor ? `${signedPct(d.mean)} noise floor` : `${signedPct(d.mean)} ${mark.glyph} ${mark.word}`,
    noteColour: floor ? NOISE_FLOOR_COLOUR : mark.colour,
    strong: !floor && (v === "better" || v === "worse"),
    hover: `${c.filter} − none on ${shortId(row.env)}: ${signedPct(d.mean)} points${bare ? "" : ` ${interval(d.lo, d.hi)} at ${pct(d.level)}%`}, n = ${d.n} pairs${floor ? " (the noise floor: none on another sampling stream)" : `; ${mark.word}${v === "cannot-separate" ? " at this n and family size" : ""}`}`,
    dashed: floor
  }
  const h = href(row, c)
  return h ? { ...it, href: h } : it
}

export const rowTitle = (row: Row): string => `${shortId(row.env)} · ${shortId(row.algo)}${row.setting ? ` · ${row.setting}` : ""}`

/** One row's forest panel (an empty string when no cell has a paired difference); `filters`: the page's, for each one's colour. */
export const rowForest = (row: Row, domain: readonly [number, number], href: CellHref = () => undefined, filters: ReadonlyArray<string> = row.cells.map((c) => c.filter)): string => {
  const cells = [...row.cells.filter((c) => c.kind === "noise-floor"), ...row.cells.filter((c) => c.kind === "filter")]
  const items = cells.flatMap((c) => itemOf(row, c, href, filters) ?? [])
  if (items.length === 0) return ""
  const floor = cells.find((c) => c.kind === "noise-floor")
  const fd = floor ? primaryDeltaOf(floor) : null
  const band = fd && fd.lo !== null && fd.hi !== null ? { lo: fd.lo, hi: fd.hi, label: `noise floor: none′ − none ${interval(fd.lo, fd.hi)}` } : null
  return intervalChart({
    title: `${rowTitle(row)}${row.notLearning ? " (none does not learn)" : ""}`,
    items,
    domain,
    tick: (t) => signedPct(t).replace(/\.0$/, ""),
    axisLabel: `difference from none, ${PRIMARY_LABEL} (points)`,
    refLines: [{ at: 0, label: "none" }],
    band,
    kind: "forest"
  })
}
