/**
 * Algorithm contract: turns a batch of rollouts into advantages and a loss.
 * The policy's kernels only see the returned LossFn (docs/design.md §4).
 */
import { Schema } from "effect"
import type { LossFn } from "./policy.ts"

/**
 * Loss aggregation modes (verl's agg_loss names): token-mean: Σ ℓ / #tokens (PPO/DAPO);
 * seq-mean-token-mean: mean over sequences of each sequence's token mean (GRPO);
 * seq-mean-token-sum: mean over sequences of the token sum (Dr.GRPO in the reference's Table 4
 * script); seq-mean-token-sum-norm: Σ ℓ / (#sequences · normLength); seq-sum: Σ ℓ.
 * A "sequence" is one StarPO trajectory, all its turns (the loss items carry `traj`; a padding
 * copy counts once per copy, as the reference's copied rows do).
 * One knob, one type: an algorithm's `lossAgg` option and the trainer's `train.lossAgg` override
 * (LossRegularisers.lossAgg, which wins when set) both take these names, through LossAggOption.
 */
export const lossAggs = ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum", "seq-mean-token-sum-norm", "seq-sum"] as const
export type LossAgg = (typeof lossAggs)[number]
export const LossAggOption = Schema.Literals(lossAggs)

/** One trajectory after rollout, with per-turn completion lengths. */
export interface AlgoTrajectory {
  readonly group: number
  /** Trajectory return R (env rewards + penalties). */
  readonly ret: number
  /** Reward credited at the end of each turn (sums to ret). */
  readonly turnRewards: ReadonlyArray<number>
  /** Completion token count of each turn. */
  readonly turnLengths: ReadonlyArray<number>
  /** Value-head estimates per turn token (PPO), concatenated over turns. */
  readonly values?: Float32Array
  /** Old log-probs per turn token, concatenated over turns. */
  readonly oldLogprobs: Float32Array
  /** Reference-policy log-probs per turn token (when KL is on). */
  readonly refLogprobs?: Float32Array
  /** Whether generation hit the token limit (for overlong shaping). */
  readonly truncatedTokens?: boolean
}

/** What the trainer passes to `loss` besides the algorithm's own options. */
export interface LossRegularisers {
  readonly entropyCoef: number
  readonly klCoef: number
  /** KL estimator (default k3, the low-variance one). */
  readonly klEstimator?: "k1" | "k3"
  /** Loss aggregation override, train.lossAgg (default: the algorithm's own). */
  readonly lossAgg?: LossAgg
  /** Generation cap, the denominator of Dr.GRPO's seq-mean-token-sum-norm. */
  readonly normLength?: number
  /** Only these terms (gradient decomposition, paper Fig. 3); default "all". */
  readonly terms?: "all" | "task" | "entropy" | "kl"
}

export interface Algorithm<Options = any> {
  readonly name: string
  readonly description: string
  readonly options: Schema.Codec<Options, any>
  /** PPO needs the value head. */
  readonly needsValue: boolean
  /** Smallest G the algorithm can work with (GRPO needs group statistics: 2). */
  readonly minGroupSize: number
  /**
   * Options the trainer fills in from its own settings when the user did not set them (DAPO's
   * overlong shaping measures against the generation cap). They land in the resolved config.
   */
  trainerDefaults?(trainer: { readonly maxTokens: number }): Record<string, unknown>
  /**
   * DAPO's dynamic sampling: when set and it returns maxDraws > 1, the trainer drops groups whose
   * returns are all equal and draws new prompts (at most maxDraws rollouts in all, the first
   * included) until P groups remain.
   */
  dynamicSampling?(options: Options): { readonly maxDraws: number }
  /** Per-token advantages (and returns for the critic) for each trajectory. */
  advantages(trajectories: ReadonlyArray<AlgoTrajectory>, options: Options): ReadonlyArray<{ readonly advantages: Float32Array; readonly returns?: Float32Array }>
  /** The loss over a minibatch of per-token data, given the options and the regularisers. */
  loss(
    batch: ReadonlyArray<{
      readonly advantages: Float32Array
      readonly oldLogprobs: Float32Array
      readonly refLogprobs?: Float32Array
      readonly returns?: Float32Array
      readonly oldValues?: Float32Array
      /** Index of the item's trajectory within the update's kept set (the sequence of the seq-mean-* modes). */
      readonly traj?: number
    }>,
    options: Options & LossRegularisers
  ): LossFn
}
