/**
 * The core's training entry for callers outside the core (a sweep worker, `leaderboard verify`):
 * runTraining (core/train/run.ts), or, when RAGEN_TRAIN_MODULE names a module, that module's
 * `train` export. The override is for tests and runner benchmarks (test/helpers/fake-train.ts, a
 * deterministic fake), so the fake never ships in the product.
 */
import { pathToFileURL } from "node:url"
import type { RunSummary } from "../contracts/results.ts"
import type { RunConfig } from "../contracts/run-config.ts"
import type { TrainRunOptions } from "./run.ts"

export type TrainFn = (config: RunConfig, opts: TrainRunOptions) => Promise<RunSummary>

/** An absolute path (or file URL) of a module exporting `train: TrainFn`, used instead of runTraining. */
export const TRAIN_MODULE_ENV = "RAGEN_TRAIN_MODULE"

export const loadTrainer = async (): Promise<TrainFn> => {
  const override = process.env[TRAIN_MODULE_ENV]
  // Imported on demand, so that starting a command that may train loads no trainer code.
  const path = override ? (override.startsWith("file:") ? override : pathToFileURL(override).href) : new URL("./run.ts", import.meta.url).href
  const mod = (await import(path)) as { train?: TrainFn; runTraining?: TrainFn }
  const fn = override ? mod.train : mod.runTraining
  if (typeof fn !== "function") throw new Error(override ? `${TRAIN_MODULE_ENV}=${override} does not export a train function` : "core/train/run.ts does not export runTraining")
  return fn
}
