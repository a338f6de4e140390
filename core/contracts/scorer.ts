/**
 * CrossScorer contract (docs/design.md §4, §6): L[r, j] = log p(z_r | x_j) for reasoning samples r
 * against prompts j, by teacher forcing, as a per-token mean and as a sum.
 */
import type { Schema } from "effect"
import type { Policy, TokenForward, TrainItem } from "./policy.ts"

export interface CrossScores {
  /** R rows × N columns, row-major: per-token mean log-prob. */
  readonly tokenMean: Float64Array
  /** R rows × N columns, row-major: summed log-prob. */
  readonly sum: Float64Array
  readonly rows: number
  readonly cols: number
}

export interface CrossScorer {
  readonly id: string
  /** Score every reasoning text against every prompt (prompts end with "<think>"). */
  score(reasonings: ReadonlyArray<string>, prompts: ReadonlyArray<string>): Promise<CrossScores>
  /**
   * Teacher-forced forward of `policy` on this scorer's device: per item its tokens' log-probs,
   * entropies and values as `TrainablePolicy.forward` gives them (the trainer's old log-probs and
   * reference KL under `train.teacherForcing: scorer`). Optional; resolves undefined when this
   * scorer cannot run that policy (the trainer then uses the policy's own forward).
   */
  forward?(policy: Policy, items: ReadonlyArray<TrainItem>): Promise<TokenForward[] | undefined>
}

/** What a scorer's `make` gets besides its options and the policy: the other registered scorers. */
export interface ScorerContext {
  /**
   * The scorer registered as `id` (full or short id, as `train.scorer`), made for the same policy
   * with `options` decoded through its schema: how a GPU scorer gets its CPU fallback.
   */
  readonly scorer: (id: string, options?: unknown) => Promise<CrossScorer>
}

export interface ScorerSpec<Options = any> {
  readonly id: string
  readonly description: string
  readonly options: Schema.Codec<Options, any>
  make(options: Options, policy: Policy, context: ScorerContext): Promise<CrossScorer>
  /**
   * One line on whether this scorer can run here and, when not, why and the fix (e.g. the WebGPU
   * adapter probe). Optional; `ragen-bench list scorers` prints it under the scorer.
   */
  probe?(): Promise<string>
}
