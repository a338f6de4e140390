/**
 * Sweep executor contract: what runs a sweep's grid of runs. The local worker pool is one
 * (plugins/sweep), a distributed queue another; the `sweep` command picks one by id and
 * everything else (run ids, resume, progress, the results folder, the leaderboard) stays the same.
 */
import type { Schema } from "effect"
import type { GridRun } from "../sweep/grid.ts"
import type { RunSummary } from "../schema/results.ts"
import type { Plugin } from "./plugin.ts"

export type SweepEvent =
  | { readonly type: "skip"; readonly run: GridRun }
  | { readonly type: "start"; readonly run: GridRun; readonly worker: number; readonly resume: boolean }
  | { readonly type: "progress"; readonly run: GridRun; readonly step: number; readonly steps: number; readonly success: number | null }
  | { readonly type: "done"; readonly run: GridRun; readonly summary: RunSummary }
  | { readonly type: "failed"; readonly run: GridRun; readonly error: string }
  | { readonly type: "worker-error"; readonly worker: number; readonly error: string }

export interface SweepRequest {
  readonly runs: ReadonlyArray<GridRun>
  /** The results folder every finished run is written into (as a local run writes it). */
  readonly outDir: string
  readonly signal?: AbortSignal
  readonly onEvent?: (e: SweepEvent) => void
  /** User plugin files and config file of this invocation (workers load them again). */
  readonly pluginPaths?: ReadonlyArray<string>
  readonly configPath?: string
  /** The sweep's name (a queue's status groups runs by it). */
  readonly name?: string
  /** The plugins registered in this invocation (a queue's workers must hold those the runs use). */
  readonly plugins?: ReadonlyArray<Plugin>
  /** Queue executors: enqueue the runs and return at once (the outcome counts them unfinished). */
  readonly detach?: boolean
  /** Metric sinks of every run (`sweep --sink`): registry ids, or ids with options; each run writes into its own folder. */
  readonly sinks?: ReadonlyArray<string | { readonly id: string; readonly options?: Readonly<Record<string, unknown>> }>
}

export interface SweepOutcome {
  readonly total: number
  readonly skipped: number
  readonly done: number
  readonly failed: number
  /** Runs left unfinished because the sweep was stopped (or detached). */
  readonly unfinished: number
  readonly wallSeconds: number
  /** Set when no worker could work at all (e.g. the trainer does not load). */
  readonly fatal?: string
}

export interface SweepExecutor {
  readonly id: string
  run(request: SweepRequest): Promise<SweepOutcome>
  /** Queue executors: lines describing what a (detached) sweep's runs are doing (`sweep status`). */
  status?(request: { readonly outDir: string }): Promise<ReadonlyArray<string>>
  /** Queue executors: write the runs finished so far into outDir (`sweep collect`); waits for nothing. */
  collect?(request: Omit<SweepRequest, "runs" | "detach">): Promise<SweepOutcome>
  /** Release connections, child processes. */
  close?(): Promise<void>
}

export interface ExecutorSpec<Options = any> {
  /** Local id, e.g. "local" or "bullmq". */
  readonly id: string
  readonly description: string
  readonly options: Schema.Codec<Options, any>
  make(options: Options): Promise<SweepExecutor>
}
