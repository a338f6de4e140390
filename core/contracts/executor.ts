/**
 * What a sweep executor is given and reports: the runs of a grid, the events of their progress
 * and the outcome. The executor itself (SweepExecutor, ExecutorSpec) is in ./plugin.ts, beside
 * the Plugin whose set it receives. The local worker pool is one executor (plugins/sweep), a
 * distributed queue another; the `sweep` command picks one by id and everything else (run ids,
 * resume, progress, the results folder, the leaderboard) stays the same.
 */
import type { RunSummary } from "./results.ts"
import type { RunConfig } from "./run-config.ts"

/** One run of a sweep's grid, resolved (core/sweep/grid.ts expands a spec into them). */
export interface GridRun {
  readonly runId: string
  readonly hash: string
  readonly config: RunConfig
  /** Short human label of what varies: "frozenlake grpo top-p(p=0.9) lr=0.001 s1". */
  readonly label: string
  /** Why this run starts from scratch though its env has shipped warm starts (TrainSetup.warmStartNotice). */
  readonly notice?: string
}

export type SweepEvent =
  | { readonly type: "skip"; readonly run: GridRun }
  | { readonly type: "start"; readonly run: GridRun; readonly worker: number; readonly resume: boolean }
  | { readonly type: "progress"; readonly run: GridRun; readonly step: number; readonly steps: number; readonly success: number | null }
  | { readonly type: "done"; readonly run: GridRun; readonly summary: RunSummary }
  | { readonly type: "failed"; readonly run: GridRun; readonly error: string }
  | { readonly type: "worker-error"; readonly worker: number; readonly error: string }

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
