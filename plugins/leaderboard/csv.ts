/**
 * cells.csv: one line per cell, the numbers of the cells table, for a spreadsheet. Text fields
 * are quoted, and one that a spreadsheet would run as a formula (= + - @ at its start) is
 * prefixed with ' (OWASP, "CSV injection").
 */
import type { Estimate, Leaderboard, Paired } from "./schema.ts"
import { keptOf, primaryDeltaOf, primaryOf, verdictOf } from "./view.ts"

const text = (s: string): string => `"${(/^[=+\-@\t\r]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`
const num = (x: number | null | undefined): string => (x === null || x === undefined ? "" : String(x))
const est = (e: Estimate | null): string[] => [num(e?.mean), num(e?.lo), num(e?.hi), num(e?.n)]
const paired = (d: Paired | null): string[] => [num(d?.mean), num(d?.lo), num(d?.hi), num(d?.level), num(d?.p), num(d?.pHolm), d ? verdictOf(d) : "", num(d?.seedsNeeded)]

export const CSV_HEADER = [
  "env",
  "algo",
  "setting",
  "filter",
  "kind",
  "primary_mean",
  "primary_lo",
  "primary_hi",
  "seeds",
  "delta_mean",
  "delta_lo",
  "delta_hi",
  "delta_level",
  "p",
  "p_holm",
  "verdict",
  "seeds_for_5pt",
  "kept_fraction",
  "config_hash"
]

export const renderCellsCsv = (lb: Leaderboard): string => {
  const lines = [CSV_HEADER.join(",")]
  for (const r of lb.rows) {
    for (const c of r.cells) {
      lines.push([text(r.env), text(r.algo), text(r.setting), text(c.filter), c.kind, ...est(primaryOf(c)), ...paired(primaryDeltaOf(c)), num(keptOf(c)), c.configHash].join(","))
    }
  }
  return `${lines.join("\n")}\n`
}
