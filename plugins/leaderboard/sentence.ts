/**
 * The page's verdict in words, from the primary score's comparisons: which filters separate from
 * none (above or below), by how much and at what n — or that none does, and why (nothing beyond
 * the noise floor, or too few seeds to separate at all at this family size).
 */
import { signFlipMinP } from "./statistics/paired-tests.ts"
import { pairsToReject } from "./statistics/verdicts.ts"
import type { Family, PageVerdict, Paired, Row } from "./schema.ts"

const shortEnv = (env: string): string => env.replace(/^[A-Za-z0-9_.-]+\//, "")
const points = (x: number): string => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`

/** "n = 5" or "n = 3–6" over the comparisons' pairs. */
const nRange = (ds: ReadonlyArray<Paired>): string => {
  const ns = ds.map((d) => d.n)
  const lo = Math.min(...ns)
  const hi = Math.max(...ns)
  return lo === hi ? `n = ${lo}` : `n = ${lo}–${hi}`
}

export const pageVerdict = (rows: ReadonlyArray<Row>, family: Family): PageVerdict => {
  const compared = rows.flatMap((r) => r.cells.filter((c) => c.kind === "filter" && c.delta !== null).map((c) => ({ r, c, d: c.delta! })))
  const separated = compared.filter((x) => x.d.verdict === "better" || x.d.verdict === "worse")
  const list = separated.map((x) => ({ env: x.r.env, setting: x.r.setting, filter: x.c.filter, verdict: x.d.verdict, mean: x.d.mean, n: x.d.n }))
  const floors = rows.flatMap((r) => r.cells.filter((c) => c.kind === "noise-floor" && (c.delta?.verdict === "better" || c.delta?.verdict === "worse")).map(() => r))
  const holm = `Holm over ${family.primary} comparison${family.primary === 1 ? "" : "s"} at α = ${family.alpha}, ${family.test === "sign-flip" ? "exact sign-flip test" : "paired t-test"}`
  const score = "the area under the validation curve"
  const floorNote = floors.length
    ? ` The noise floor (none against itself on another sampling stream) separates on ${floors.length} row${floors.length === 1 ? "" : "s"} (${floors.map((r) => shortEnv(r.env)).join(", ")}): read the separations there with care.`
    : ""
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
  return {
    sentence:
      `Separated from none on ${score} (${holm}): ${separated.map(phrase).join("; ")}. ${rest ? `The other ${rest} comparison${rest === 1 ? "" : "s"} do${rest === 1 ? "es" : ""} not separate.` : ""}${floorNote}`.trim(),
    separated: list
  }
}
