/** Number formatting shared by the Markdown and HTML renderers. */
import type { Aggregate, Estimate, NotRanked, Paired } from "./schema.ts"

/** Success rates as percent with one decimal, as the paper's tables print them. */
export const pct = (x: number): string => (100 * x).toFixed(1)

/** A signed percent: "+2.5", "-1.0", "+0.0" (never "-0.0"). */
export const signedPct = (x: number): string => {
  const t = pct(x)
  return t.startsWith("-") ? (t === "-0.0" ? "+0.0" : t) : `+${t}`
}

/** "85.0 [80.0, 90.0] (n=2)"; without an interval (one seed) "85.0 (n=1)"; `withN` false drops the n. */
export const fmtEstimate = (e: Estimate, withN = true): string => `${pct(e.mean)}${e.lo !== null && e.hi !== null ? ` [${pct(e.lo)}, ${pct(e.hi)}]` : ""}${withN ? ` (n=${e.n})` : ""}`

/** "+25.0 [+10.0, +40.0]"; one pair: "+25.0". */
export const fmtPaired = (d: Paired): string => `${signedPct(d.mean)}${d.lo !== null && d.hi !== null ? ` [${signedPct(d.lo)}, ${signedPct(d.hi)}]` : ""}`

/** Why the ranking leaves a filter out: "not ranked: n = 2 (8 seeds needed)", or "not ranked: no seed shared with none". */
export const notRankedText = (e: NotRanked): string =>
  `not ranked${e.rows > 1 ? ` in ${e.rows} rows` : ""}: ${e.needed === null ? "no seed shared with none" : `n = ${e.n} (${e.needed} seeds needed)`}`

/** A comparison's mark in words: "▲ better", "▼ worse", "" (not separated), "n = 5 cannot separate at this family size". */
export const verdictMark = (d: Paired): string =>
  d.verdict === "better" ? "▲ better" : d.verdict === "worse" ? "▼ worse" : d.verdict === "cannot-separate" ? `n = ${d.n} cannot separate at this family size` : ""

/**
 * A comparison as a table shows it: "+25.0 [+10.0, +40.0] ▲ better"; one that cannot separate
 * keeps its mean but not its interval (an interval there would look decisive without being so).
 */
export const fmtVerdict = (d: Paired): string => {
  const mark = verdictMark(d)
  if (d.verdict === "cannot-separate") return `${signedPct(d.mean)} (${mark})`
  return mark ? `${fmtPaired(d)} ${mark}` : fmtPaired(d)
}

/** A fraction as a percent without decimals: "88%"; "—" when not logged. */
export const fmtFraction = (x: number | null): string => (x === null ? "—" : `${(100 * x).toFixed(0)}%`)

/** Pairs and unpaired seeds: "n=4" or "n=3, 1 unpaired". */
export const fmtPairs = (d: Paired): string => `n=${d.n}${d.unpaired ? `, ${d.unpaired} unpaired` : ""}`

/** The pairs column: "4" or "3 (+1 unpaired)". */
export const fmtPairCount = (d: Paired | null): string => (d === null ? "–" : `${d.n}${d.unpaired ? ` (+${d.unpaired} unpaired)` : ""}`)

/** An interval's coverage: "95%", "98.33%". */
export const fmtLevel = (level: number): string => `${Number((100 * level).toPrecision(4))}%`

export const fmtP = (p: number | null): string => (p === null ? "—" : p < 0.001 ? "<0.001" : p.toFixed(3))

/** An aggregate of success-like scores in percent: "62.3 [55.0, 70.1]". */
export const fmtAggregatePct = (a: Aggregate | null): string => (a === null ? "—" : `${pct(a.value)}${a.lo !== null && a.hi !== null ? ` [${pct(a.lo)}, ${pct(a.hi)}]` : ""}`)

/** A probability: "0.75 [0.50, 1.00]". */
export const fmtProbability = (a: Aggregate | null): string => (a === null ? "—" : `${a.value.toFixed(2)}${a.lo !== null && a.hi !== null ? ` [${a.lo.toFixed(2)}, ${a.hi.toFixed(2)}]` : ""}`)

/** Counts: 950, 12.3k, 1.25M; "—" when not logged. */
export const fmtCount = (x: number | null): string => (x === null ? "—" : x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : x >= 1e4 ? `${(x / 1e3).toFixed(1)}k` : String(Number(x.toFixed(1))))

/** A registry id as a table shows it: "envs/sokoban-v1" → "sokoban-v1" (the full id is in the JSON). */
export const shortId = (id: string): string => id.replace(/^[A-Za-z0-9_.-]+\//, "")
