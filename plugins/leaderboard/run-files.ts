/**
 * Every run's files inside the site (runs/<run id>/config.json, metrics.jsonl, summary.json), so
 * that a site/ copied alone keeps every link: a run folder's files are copied byte for byte; a
 * compact record (a reference run) is written out as the same three files from what it holds
 * (its evaluation lines only, its summary as recorded).
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { writeFileAtomic } from "../../core/host.ts"
import type { RunInput } from "./build.ts"
import { safeName } from "./context.ts"

export const RUNS_DIR = "runs"

/** Write each run's files; returns run id → its folder relative to the site. */
export const writeRunFiles = (runs: ReadonlyArray<RunInput>, siteDir: string): Map<string, string> => {
  const out = new Map<string, string>()
  for (const { run } of runs) {
    const id = run.config.runId
    if (out.has(id)) continue
    const rel = `${RUNS_DIR}/${safeName(id)}`
    const dir = join(siteDir, rel)
    mkdirSync(dir, { recursive: true })
    const folder = existsSync(join(run.dir, "config.json"))
    for (const f of ["config.json", "metrics.jsonl", "summary.json"]) {
      if (folder && existsSync(join(run.dir, f))) copyFileSync(join(run.dir, f), join(dir, f))
      else if (f === "config.json") writeFileAtomic(join(dir, f), `${JSON.stringify(run.config, null, 2)}\n`)
      else if (f === "metrics.jsonl") writeFileAtomic(join(dir, f), run.metrics.lines.map((l) => JSON.stringify(l)).join("\n") + (run.metrics.lines.length ? "\n" : ""))
      else writeFileAtomic(join(dir, f), `${JSON.stringify(run.summary ?? { status: "incomplete" }, null, 2)}\n`)
    }
    out.set(id, rel)
  }
  return out
}
