/**
 * The core's training entry for callers outside the core (a sweep worker, `leaderboard verify`):
 * runTraining (core/train/run.ts), or, when RAGEN_TRAIN_MODULE names a module, that module's
 * `train` export. The override is for tests and runner benchmarks (test/helpers/fake-train.ts, a
 * deterministic fake), so the fake never ships in the product: it is honoured only for a module
 * inside this package's own test/ folder (which the published package does not hold), so an
 * environment variable from elsewhere (a .env in a received folder) cannot name code to run.
 */
import { realpathSync } from "node:fs"
import { isAbsolute, join, relative, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { RunSummary } from "../contracts/results.ts"
import type { RunConfig } from "../contracts/run-config.ts"
import type { TrainRunOptions } from "./run.ts"

export type TrainFn = (config: RunConfig, opts: TrainRunOptions) => Promise<RunSummary>

/** An absolute path (or file URL) of a module exporting `train: TrainFn`, used instead of runTraining. */
export const TRAIN_MODULE_ENV = "RAGEN_TRAIN_MODULE"

/** The folder an override module must be in: this package's test/ (tests and benchmarks only). */
const TEST_DIR = join(fileURLToPath(new URL("../..", import.meta.url)), "test")

/** Why `override` may not be loaded (outside the package's test/ folder, or missing), or undefined. */
export const trainModuleProblem = (override: string): string | undefined => {
  let real: string
  let testDir: string
  try {
    real = realpathSync(override.startsWith("file:") ? fileURLToPath(override) : override)
    testDir = realpathSync(TEST_DIR)
  } catch {
    return `${TRAIN_MODULE_ENV}=${override} is not a file of this package's test/ folder: refused (the override is for ragen-bench's own tests; unset it)`
  }
  const rel = relative(testDir, real)
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    return `${TRAIN_MODULE_ENV}=${override} is outside this package's test/ folder: refused (the override is for ragen-bench's own tests; unset it)`
  }
  return undefined
}

export const loadTrainer = async (): Promise<TrainFn> => {
  const override = process.env[TRAIN_MODULE_ENV] || undefined
  if (override) {
    const problem = trainModuleProblem(override)
    if (problem) throw new Error(problem)
  }
  // Imported on demand, so that starting a command that may train loads no trainer code.
  const path = override ? (override.startsWith("file:") ? override : pathToFileURL(override).href) : new URL("./run.ts", import.meta.url).href
  const mod = (await import(path)) as { train?: TrainFn; runTraining?: TrainFn }
  const fn = override ? mod.train : mod.runTraining
  if (typeof fn !== "function") throw new Error(override ? `${TRAIN_MODULE_ENV}=${override} does not export a train function` : "core/train/run.ts does not export runTraining")
  return fn
}
