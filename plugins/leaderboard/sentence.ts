/**
 * The page's verdict in words, from the primary score's comparisons: which filters separate from
 * none (above or below), by how much and at what n — or that none does, and why (nothing beyond
 * the noise floor, or too few seeds to separate at all at this family size).
 */
import { signFlipMinP } from "./statistics/paired-tests.ts"
import { pairsToReject } from "./statistics/verdicts.ts"
import type { Cell, Family, PageVerdict, Paired, Row } from "./schema.ts"

const shortEnv = (env: string): string => env.replace(/^[A-Za-z0-9_.-]+\//, "")
const points = (x: number): string => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`

/** "n = 5" or "n = 3–6" over the comparisons' pairs. */
const nRange = (ds: ReadonlyArray<Paired>): string => {
  const ns = ds.map((d) => d.n)
  const lo = Math.min(...ns)
  const hi = Math.max(...ns)
  return lo === hi ? `n = ${lo}` : `n = ${lo}–${hi}`
}

/**
 * The selection contrasts in words (a filter against its random control at the same kept count,
 * controls.ts; in the page's Holm family): those that separate, and how many do not. Empty where
 * the page holds no matched control.
 */
export const selectionClause = (rows: ReadonlyArray<Row>): { text: string; count: number; separated: PageVerdict["separated"][number][] } => {
  const all = rows.flatMap((r) => r.cells.filter((c) => c.kind === "filter" && c.selection).map((c) => ({ r, c, s: c.selection! })))
  if (all.length === 0) return { text: "", count: 0, separated: [] }
  const hits = all.filter((x) => x.s.delta.verdict === "better" || x.s.delta.verdict === "worse")
  const head = " Selection (a filter against its random control at the same kept count, in the same family)"
  const phrase = (x: (typeof all)[number]): string =>
    `${x.c.filter} ${x.s.delta.verdict === "better" ? "above" : "below"} ${x.s.control} on ${shortEnv(x.r.env)}${x.r.setting ? ` (${x.r.setting})` : ""} by ${points(x.s.delta.mean)} points (n = ${x.s.delta.n})`
  const rest = all.length - hits.length
  const text = hits.length
    ? `${head}: ${hits.map(phrase).join("; ")}.${rest ? ` The other ${rest} selection comparison${rest === 1 ? "" : "s"} do${rest === 1 ? "es" : ""} not separate.` : ""}`
    : `${head}: no filter separates from its control (${all.length} comparison${all.length === 1 ? "" : "s"}, ${nRange(all.map((x) => x.s.delta))}).`
  return {
    text,
    count: all.length,
    separated: hits.map((x) => ({ env: x.r.env, setting: x.r.setting, filter: x.c.filter, verdict: x.s.delta.verdict, mean: x.s.delta.mean, n: x.s.delta.n, against: x.s.control }))
  }
}

/** A cell's key in `yours` (pageVerdict): its row's key and its filter's name. */
export const cellKey = (rowKey: string, filter: string): string => `${rowKey}\u0000${filter}`

/**
 * Pairs a comparison needs to pass the page's first Holm threshold α/m, m: the family it would
 * join with enough seeds (every filter's comparison of two pairs or more, as verdicts.ts counts it).
 */
export const pairsNeeded = (rows: ReadonlyArray<Row>, family: Family): number =>
  pairsToReject(
    family.test,
    family.alpha / Math.max(1, rows.flatMap((r) => r.cells.flatMap((c) => (c.kind === "filter" ? [c.delta, c.selection?.delta ?? null] : []).filter((d) => (d?.n ?? 0) >= 2))).length)
  )

/** One of the user's comparisons in words, whatever its verdict. */
const yourPhrase = (r: Row, c: Cell, needed: number): string => {
  const where = `on ${shortEnv(r.env)}${r.setting ? ` (${r.setting})` : ""}`
  const d = c.delta
  if (d === null) return `${c.filter} shares no seed with none ${where}`
  if (d.verdict === "better" || d.verdict === "worse") return `${c.filter} ${d.verdict === "better" ? "above" : "below"} none ${where} by ${points(d.mean)} points (n = ${d.n})`
  if (d.verdict === "cannot-separate") return `${c.filter} cannot separate from none ${where} at n = ${d.n} (${Math.max(needed, d.n + 1)} seeds needed; ${points(d.mean)} points so far)`
  return `${c.filter} does not separate from none ${where} (${points(d.mean)} points, n = ${d.n})`
}

/**
 * The page's verdict; `yours` (cellKey) names the cells the user ran beside a published reference
 * set: the sentence then leads with them, whatever their verdict, and goes on with the reference's.
 */
export const pageVerdict = (rows: ReadonlyArray<Row>, family: Family, yours: ReadonlySet<string> = new Set()): PageVerdict => {
  const mine = rows.flatMap((r) => r.cells.filter((c) => c.kind === "filter" && yours.has(cellKey(r.key, c.filter))).map((c) => ({ r, c })))
  const theirs = rows.map((r) => ({ ...r, cells: r.cells.filter((c) => !yours.has(cellKey(r.key, c.filter)) || c.kind !== "filter") }))
  if (mine.length > 0 && theirs.some((r) => r.cells.some((c) => c.kind === "filter"))) {
    const rest = pageVerdict(theirs, family)
    const all = pageVerdict(rows, family)
    const needed = pairsNeeded(rows, family)
    const names = [...new Set(mine.map((x) => x.c.filter))]
    return {
      sentence: `Your filter${names.length === 1 ? "" : "s"}: ${mine.map((x) => yourPhrase(x.r, x.c, needed)).join("; ")}. The reference's filters: ${rest.sentence}`,
      separated: all.separated
    }
  }
  const compared = rows.flatMap((r) => r.cells.filter((c) => c.kind === "filter" && c.delta !== null).map((c) => ({ r, c, d: c.delta! })))
  const separated = compared.filter((x) => x.d.verdict === "better" || x.d.verdict === "worse")
  const sel = selectionClause(rows)
  const list = [...separated.map((x) => ({ env: x.r.env, setting: x.r.setting, filter: x.c.filter, verdict: x.d.verdict, mean: x.d.mean, n: x.d.n })), ...sel.separated]
  const floors = rows.flatMap((r) => r.cells.filter((c) => c.kind === "noise-floor" && (c.delta?.verdict === "better" || c.delta?.verdict === "worse")).map(() => r))
  const withControl = family.selection ?? 0
  const members = withControl ? `, ${family.primary - withControl} with none and ${withControl} of a filter with its random control,` : ""
  const holm = `Holm over ${family.primary} comparison${family.primary === 1 ? "" : "s"}${members} at α = ${family.alpha}, ${family.test === "sign-flip" ? "exact sign-flip test" : "paired t-test"}`
  const score = "the area under the validation curve"
  const floorNote =
    sel.text +
    (floors.length
      ? ` The noise floor (none against itself on another sampling stream) separates on ${floors.length} row${floors.length === 1 ? "" : "s"} (${floors.map((r) => shortEnv(r.env)).join(", ")}): read the separations there with care.`
      : "")
  if (compared.length === 0) return { sentence: "No filter is compared with none on this page (no filter shares a seed with none).", separated: list }
  if (separated.length === 0) {
    const ds = compared.map((x) => x.d)
    if (ds.every((d) => d.verdict === "cannot-separate")) {
      const n = Math.max(...ds.map((d) => d.n))
      const threshold = family.alpha / Math.max(1, family.primary || compared.length)
      const need = pairsToReject(family.test, threshold)
      const minP = family.test === "sign-flip" ? ` (the smallest sign-flip p at n = ${n} is ${signFlipMinP(n).toPrecision(3)}, above the page's first Holm threshold ${threshold.toPrecision(3)})` : ""
      return { sentence: `No filter can separate from none at these seeds: n = ${n} cannot separate at this family size${minP}; ${need} seeds per cell are needed.${floorNote}`, separated: list }
    }
    const cannot = ds.filter((d) => d.verdict === "cannot-separate").length
    const cannotNote = cannot ? ` ${cannot} of the ${ds.length} comparisons cannot separate at their n.` : ""
    return { sentence: `No filter separates from none beyond the noise floor on ${score} (${nRange(ds)}; ${holm}).${cannotNote}${floorNote}`, separated: list }
  }
  const phrase = (x: (typeof separated)[number]): string =>
    `${x.c.filter} ${x.d.verdict === "better" ? "above" : "below"} none on ${shortEnv(x.r.env)}${x.r.setting ? ` (${x.r.setting})` : ""} by ${points(x.d.mean)} points (n = ${x.d.n})`
  const rest = compared.length - separated.length
  const others = sel.count ? " with none" : ""
  return {
    sentence:
      `Separated from none on ${score} (${holm}): ${separated.map(phrase).join("; ")}. ${rest ? `The other ${rest} comparison${rest === 1 ? "" : "s"}${others} do${rest === 1 ? "es" : ""} not separate.` : ""}${floorNote}`.trim(),
    separated: list
  }
}
