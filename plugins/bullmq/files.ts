/**
 * A run folder's files to and from a job result (checkpoints stay where the run ran). What comes
 * back from the queue is written only into the coordinator's own folder for the run: its name
 * is the coordinator's (never the result's), checked to be a plain name inside `--out`, and the
 * files' config must be the run's.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { join, resolve, sep } from "node:path"
import { canonicalJson, type RunConfig, writeFileAtomic } from "../../core/host.ts"
import { type InflateAllowance, type JobResult, packFile, QueueDataError, RUN_FILES, unpackFiles } from "./job.ts"

export const packRunFiles = (runDir: string): JobResult["files"] => RUN_FILES.filter((n) => existsSync(join(runDir, n))).map((n) => packFile(n, readFileSync(join(runDir, n), "utf8")))

/** As core/results/compact.ts: what runIdOf makes (a slug and a hash), nothing with a separator or a leading dot. */
const PLAIN_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/

/** The run's folder under outDir; a run id that is not a plain folder name is refused. */
export const runFolder = (outDir: string, runId: string): string => {
  const base = resolve(outDir)
  const dir = resolve(base, runId)
  if (!PLAIN_RUN_ID.test(runId) || !dir.startsWith(base + sep)) throw new QueueDataError({ message: `run id ${JSON.stringify(runId.slice(0, 80))} is not a plain folder name: refused` })
  return dir
}

/** config.json's recorded config, when it is the given one (the folder a worker returns must be the run's). */
const configMatches = (text: string, config: RunConfig): boolean => {
  try {
    const file = JSON.parse(text) as { config?: unknown }
    return canonicalJson(file.config) === canonicalJson(config)
  } catch {
    return false
  }
}

/**
 * Write a finished run into the results folder as a local run leaves it, in the folder of `runId`
 * (the coordinator's). summary.json goes last: a folder is complete only once its summary is
 * there (isComplete), so a crash halfway leaves a folder the next sweep redoes, never a torn one.
 * Everything is inflated and checked before anything is written.
 */
export const writeRunFiles = (outDir: string, runId: string, config: RunConfig, files: JobResult["files"], allowance?: InflateAllowance): void => {
  const dir = runFolder(outDir, runId)
  const unpacked = unpackFiles(files, allowance)
  const cfg = unpacked.find((f) => f.name === "config.json")
  const hasSummary = unpacked.some((f) => f.name === "summary.json")
  if ((cfg || hasSummary) && !(cfg && configMatches(cfg.text, config))) throw new QueueDataError({ message: `the returned config.json is not the config of run ${runId}: refused` })
  mkdirSync(dir, { recursive: true })
  const order = [...unpacked].sort((a, b) => Number(a.name === "summary.json") - Number(b.name === "summary.json"))
  for (const f of order) writeFileAtomic(join(dir, f.name), f.text)
}
