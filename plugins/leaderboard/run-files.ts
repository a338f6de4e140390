/**
 * Every run's files inside the site (runs/<run id>/config.json, metrics.jsonl, summary.json), so
 * that a site/ copied alone keeps every link. The files are written from what was decoded, never
 * copied from the input: a run folder's config.json and summary.json as their schemas read them
 * and its metrics lines as decoded (a torn last line left out); a compact record (a reference run)
 * as the same three files from what it holds (its evaluation lines only, its summary as recorded).
 * So nothing but decoded run data reaches the site, whatever an input folder's files are or link to.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"
import { type MetricsLine, writeFileAtomic } from "../../core/host.ts"
import type { RunInput } from "./build.ts"
import { safeName } from "./context.ts"

export const RUNS_DIR = "runs"

/** Lines per write: a run of millions of lines is never one string. */
const CHUNK_LINES = 10_000

/** metrics.jsonl from decoded lines, written to a temp file in chunks and renamed into place. */
const writeLinesAtomic = (path: string, lines: ReadonlyArray<MetricsLine>): void => {
  const tmp = `${path}.tmp-${process.pid}`
  const fd = openSync(tmp, "w")
  try {
    for (let i = 0; i < lines.length; i += CHUNK_LINES) {
      writeSync(
        fd,
        `${lines
          .slice(i, i + CHUNK_LINES)
          .map((l) => JSON.stringify(l))
          .join("\n")}\n`
      )
    }
  } catch (e) {
    closeSync(fd)
    rmSync(tmp, { force: true })
    throw e
  }
  closeSync(fd)
  renameSync(tmp, path)
}

/** Write each run's files; returns run id → its folder relative to the site. */
export const writeRunFiles = (runs: ReadonlyArray<RunInput>, siteDir: string): Map<string, string> => {
  const out = new Map<string, string>()
  for (const { run } of runs) {
    const id = run.config.runId
    if (out.has(id)) continue
    const rel = `${RUNS_DIR}/${safeName(id)}`
    const dir = join(siteDir, rel)
    mkdirSync(dir, { recursive: true })
    writeFileAtomic(join(dir, "config.json"), `${JSON.stringify(run.config, null, 2)}\n`)
    writeLinesAtomic(join(dir, "metrics.jsonl"), run.metrics.lines)
    writeFileAtomic(join(dir, "summary.json"), `${JSON.stringify(run.summary ?? { status: "incomplete" }, null, 2)}\n`)
    out.set(id, rel)
  }
  return out
}
