/**
 * CrossScorer contract (DESIGN.md §4, §6): L[r, j] = log p(z_r | x_j) for reasoning samples r
 * against prompts j, by teacher forcing, as a per-token mean and as a sum.
 */
import type { Schema } from "effect"
import type { Policy } from "./policy.ts"

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
}

export interface ScorerSpec<Options = any> {
  readonly id: string
  readonly description: string
  readonly options: Schema.Codec<Options, any>
  make(options: Options, policy: Policy): Promise<CrossScorer>
}
