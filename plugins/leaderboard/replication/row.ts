/** One claim's row of docs/replication.md, as the claim functions return it and render.ts writes it. */
import type { RunView } from "./runs.ts"
import type { Verdict } from "./stats.ts"

export interface Preset {
  readonly name: string
  /** The shell command that runs it; null when no shipped preset does (the note says what to run). */
  readonly command: string | null
  /** What of it the claim uses, or how to run the claim without a preset. */
  readonly note?: string
}

/** A shipped sweep preset, run with `ragen-bench sweep <name>`. */
export const preset = (name: string, note?: string): Preset => ({ name, command: `ragen-bench sweep ${name}`, ...(note ? { note } : {}) })

export interface ClaimRow {
  readonly id: string
  /** The claim in one sentence, as the paper states it. */
  readonly claim: string
  /** Where in the paper (table or figure). */
  readonly paper: string
  readonly presets: ReadonlyArray<Preset>
  /** What n counts ("5 pairs over 1 setting"). */
  readonly n: string
  /** The headline numbers, one short line each, with their intervals. */
  readonly numbers: ReadonlyArray<string>
  readonly verdict: Verdict
  /** The runs the row used (for seeds, wall time, versions). */
  readonly runs: ReadonlyArray<RunView>
  /** How the numbers are computed (one paragraph of markdown). */
  readonly method: string
  /** Markdown blocks below the summary table: per-setting tables. */
  readonly details: ReadonlyArray<string>
}

/** A markdown table from a header and rows (cells are plain text; `|` is escaped). */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ")
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map(cell).join(" | ")} |`
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n")
}
