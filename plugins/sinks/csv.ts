/**
 * CSV sink: `<runDir>/metrics.csv` (option `file`), one row per metrics line, one column per key (wide format:
 * what a spreadsheet or `pandas.read_csv` wants). `step` is the first column, then the keys in
 * the order they first appeared. Empty cell = not logged at that step (or null).
 *
 * Keys appear late (validation every evalEvery steps, MI every diagEvery, the filter's own stats
 * when it first reports them), so the header cannot be known from the first line. When a line
 * brings a new key, the file is rewritten once with the wider header and the earlier rows padded
 * with empty cells (written to a temp file and renamed, so a reader never sees a torn file); this
 * happens a handful of times per run, since the key set settles within the first eval step.
 * Rows are appended with one write call each. Option `exclude`: key prefixes to leave out. RFC 4180 quoting for header cells that need it.
 *
 * Resume-safe: opened with resumeFromStep, the sink keeps the rows with step ≤ resumeFromStep
 * (and drops a torn last row), so the rewritten steps never appear twice; a fresh run replaces
 * the file.
 */
import { Effect, Schema } from "effect"
import { appendFileSync, existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { type MetricSink, type MetricsRecord, type SinkContext, type SinkSpec, writeFileAtomic } from "../../core/host.ts"

export const CSV_FILE = "metrics.csv"

const quote = (s: string): string => (/[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)

/** Shortest round-trip decimal; non-finite as numpy/pandas read them. */
export const formatCell = (v: number | null | undefined): string => (v === null || v === undefined ? "" : Number.isFinite(v) ? String(v) : Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf")

/** One CSV line's fields (RFC 4180: quoted fields, "" for a quote inside). */
export const parseCsvLine = (line: string): string[] => {
  const out: string[] = []
  let i = 0
  for (;;) {
    if (line[i] === '"') {
      let s = ""
      i++
      for (;;) {
        const j = line.indexOf('"', i)
        if (j < 0) throw new Error(`unterminated quoted field in: ${line}`)
        s += line.slice(i, j)
        if (line[j + 1] === '"') {
          s += '"'
          i = j + 2
        } else {
          i = j + 1
          break
        }
      }
      out.push(s)
    } else {
      const j = line.indexOf(",", i)
      out.push(j < 0 ? line.slice(i) : line.slice(i, j))
      i = j < 0 ? line.length : j
    }
    if (i >= line.length) return out
    i++ // the comma
    if (i === line.length) {
      out.push("")
      return out
    }
  }
}

export const CsvSinkOptions = Schema.Struct({
  /** File name inside the run folder. */
  file: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9._-]+\.csv$/)).pipe(Schema.withDecodingDefault(Effect.succeed(CSV_FILE))),
  /** Keys starting with any of these prefixes are left out (e.g. ["perf/"]). */
  exclude: Schema.Array(Schema.String).pipe(Schema.withDecodingDefault(Effect.succeed([])))
})
export type CsvSinkOptions = typeof CsvSinkOptions.Type

export const makeCsvSink = (o: CsvSinkOptions, ctx: SinkContext): MetricSink & { readonly path: string } => {
  const path = join(ctx.runDir, o.file)
  const skip = (k: string) => o.exclude.some((p) => k.startsWith(p))
  let header: string[] = []
  /** Rows as written (no newline); kept so a widening rewrite needs no re-read. */
  let rows: string[] = []
  if (ctx.resumeFromStep === undefined) rmSync(path, { force: true })
  else if (existsSync(path)) {
    const text = readFileSync(path, "utf8")
    const lines = text.split("\n")
    // The last element is "" after a final newline, else a torn row: dropped either way.
    lines.pop()
    if (lines.length > 0) {
      header = parseCsvLine(lines[0]!)
      if (header[0] !== "step") throw new Error(`${path}: not a metrics CSV (first column "${header[0]}", expected "step")`)
      rows = lines.slice(1).filter((r) => {
        const step = Number(r.slice(0, r.indexOf(",") < 0 ? r.length : r.indexOf(",")))
        return Number.isFinite(step) && step <= ctx.resumeFromStep!
      })
    }
    writeFileAtomic(path, render(header, rows))
  }
  const index = new Map(header.map((k, i) => [k, i]))
  return {
    path,
    write: (line: MetricsRecord) => {
      const added = Object.keys(line).filter((k) => !index.has(k) && k !== "step" && !skip(k))
      if (header.length === 0) added.unshift("step")
      if (added.length > 0) {
        header = [...header, ...added]
        for (const k of added) index.set(k, index.size)
        const pad = ",".repeat(added.length)
        rows = rows.map((r) => r + pad)
        writeFileAtomic(path, render(header, rows))
      }
      const cells = new Array<string>(header.length).fill("")
      for (const [k, v] of Object.entries(line)) if (!skip(k) || k === "step") cells[index.get(k)!] = formatCell(v)
      const row = cells.join(",")
      rows.push(row)
      appendFileSync(path, row + "\n")
    },
    close: () => {}
  }
}

const render = (header: ReadonlyArray<string>, rows: ReadonlyArray<string>): string => (header.length === 0 ? "" : [header.map(quote).join(","), ...rows].join("\n") + "\n")

export const csvSinkSpec: SinkSpec<CsvSinkOptions> = {
  id: "csv",
  description: "metrics.csv in the run folder: one row per step, one column per key (wide; columns added as keys appear)",
  options: CsvSinkOptions,
  make: (o, ctx) => makeCsvSink(o, ctx)
}
