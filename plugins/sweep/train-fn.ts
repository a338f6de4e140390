/**
 * The training function a sweep worker calls: the trainer's `runTraining` (core/train/run.ts),
 * or, when RAGEN_SWEEP_FAKE_TRAIN=1, the deterministic fake of core/sweep/fake-train.ts
 * (tests and runner benchmarks only).
 */
import type { PluginInput } from "../../core/contracts/index.ts"
import type { SinkBinding } from "../../core/metrics/sinks.ts"
import type { RunConfig } from "../../core/schema/run-config.ts"
import type { RunSummary } from "../../core/schema/results.ts"

export interface TrainProgress {
  readonly step: number
  readonly steps: number
  readonly metrics: Record<string, number | null>
}

export interface TrainOpts {
  readonly outDir: string
  readonly onProgress?: (p: TrainProgress) => void
  readonly signal?: AbortSignal
  readonly resume?: boolean
  /**
   * User plugins of the sweep (--plugin files, ragen-bench.config.ts), loaded in the worker so
   * that plugin envs and filters resolve there too. A trainer that builds its own registry
   * should register these next to the built-ins.
   */
  readonly plugins?: ReadonlyArray<PluginInput>
  /** Metric sinks (CSV, TensorBoard, ...) the run writes into its own folder besides metrics.jsonl. */
  readonly sinks?: ReadonlyArray<SinkBinding>
}

export type TrainFn = (config: RunConfig, opts: TrainOpts) => Promise<RunSummary>

export const useFakeTrain = (): boolean => process.env.RAGEN_SWEEP_FAKE_TRAIN === "1"

export const loadTrainFn = async (): Promise<TrainFn> => {
  if (useFakeTrain()) return (await import("./fake-train.ts")).fakeTrain
  // Resolved at run time so that the sweep code builds before the trainer exists.
  const mod = (await import(new URL("../../core/train/run.ts", import.meta.url).href)) as { runTraining?: TrainFn }
  if (typeof mod.runTraining !== "function") throw new Error("core/train/run.ts does not export runTraining")
  return mod.runTraining
}
