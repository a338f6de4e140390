/**
 * cells.csv: one line per cell, the numbers of the cells table, for a spreadsheet. Text fields
 * are quoted, and one that a spreadsheet could run as a formula is prefixed with ' (OWASP, "CSV
 * injection"): one starting with = + - @ (or their full-width forms), a tab, a line break, or any
 * blank or invisible character a spreadsheet may skip before reading a formula — a space, NBSP,
 * the other Unicode spaces, a byte-order mark, zero-width spaces and joiners.
 */
import type { Estimate, Leaderboard, Paired } from "./schema.ts"
import { keptOf, primaryDeltaOf, primaryOf, verdictOf } from "./view.ts"

/** What a field may not start with unprefixed: formula starters, whitespace (\s: tab, LF, CR, space, NBSP, BOM, Unicode spaces) and zero-width characters. */
const RISKY_START = /^[=+\-@\uff1d\uff0b\uff0d\uff20\s\u180e\u200b-\u200f\u2060-\u2064\u00ad]/

export const csvText = (s: string): string => `"${(RISKY_START.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`
const text = csvText
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
