/** A run folder's files to and from a job result (checkpoints stay where the run ran). */
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { writeFileAtomic } from "../../core/results/atomic.ts"
import { type JobResult, packFile, RUN_FILES, unpackFile } from "./job.ts"

export const packRunFiles = (runDir: string): JobResult["files"] => RUN_FILES.filter((n) => existsSync(join(runDir, n))).map((n) => packFile(n, readFileSync(join(runDir, n), "utf8")))

/**
 * Write a finished run into the results folder as a local run leaves it. summary.json goes last:
 * a folder is complete only once its summary is there (isComplete), so a crash halfway leaves a
 * folder the next sweep redoes, never a torn one.
 */
export const writeRunFiles = (outDir: string, result: JobResult): void => {
  const dir = join(outDir, result.runId)
  mkdirSync(dir, { recursive: true })
  const order = [...result.files].sort((a, b) => Number(a.name === "summary.json") - Number(b.name === "summary.json"))
  for (const f of order) writeFileAtomic(join(dir, f.name), unpackFile(f))
}
