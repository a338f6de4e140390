/**
 * PPO (Schulman et al. 2017) for multi-turn LLM agents, as verl/RAGEN run it: a value head on
 * the policy is the critic; token-level GAE (γ, λ; both 1.0 in the RAGEN reference config) over
 * the trajectory's concatenated turns; advantages whitened over the whole batch; clipped ratio
 * with clip-low 0.2, clip-high 0.28 and dual clip 3; clipped value loss (cleanrl's clip_vloss);
 * token-mean aggregation. Minibatches and epochs are the trainer's (core/train/options.ts).
 * Reward placement: the reference (mll-lab-nu/RAGEN config/base.yaml, agent_proxy.use_turn_scores
 * False) puts the trajectory's return R on the final token of its last turn; "per-turn" (its
 * use_turn_scores True) puts each turn's reward on that turn's last token.
 */
import { Schema } from "effect"
import { type Algorithm, type AlgoTrajectory, type LossRegularisers, withDefault as dflt } from "../core/host.ts"
import { finalTokenRewards, gae, tokenRewards } from "./common/gae.ts"
import { buildObjective, LossAggOption, type ObjectiveItem } from "./common/objective.ts"
import { whitenInPlace } from "./common/stats.ts"

export const rewardPlacements = ["final-token", "per-turn"] as const
export type RewardPlacement = (typeof rewardPlacements)[number]

export const PpoOptions = Schema.Struct({
  /** Discount γ per token (RAGEN reference: 1.0). */
  gamma: dflt(Schema.Finite, 1),
  /** GAE λ (RAGEN reference: 1.0). */
  lambda: dflt(Schema.Finite, 1),
  clipLow: dflt(Schema.Finite, 0.2),
  clipHigh: dflt(Schema.Finite, 0.28),
  /** Dual-clip constant c (0 = off). */
  dualClip: dflt(Schema.Finite, 3),
  /** Value-loss coefficient (cleanrl vf_coef 0.5). */
  valueCoef: dflt(Schema.Finite, 0.5),
  /** Value clipping range around the rollout's value (verl cliprange_value 0.5). */
  valueClip: dflt(Schema.Finite, 0.5),
  /** Whiten advantages over the batch (verl, cleanrl norm_adv). */
  whiten: dflt(Schema.Boolean, true),
  lossAgg: dflt(LossAggOption, "token-mean"),
  /** Where rewards sit for GAE: the return on the trajectory's final token (reference) or each turn's reward on its last token. */
  rewardPlacement: dflt(Schema.Literals(rewardPlacements), "final-token")
})
export type PpoOptions = typeof PpoOptions.Type

export const ppoAdvantages = (
  trajectories: ReadonlyArray<AlgoTrajectory>,
  o: Pick<PpoOptions, "gamma" | "lambda" | "whiten"> & { readonly rewardPlacement?: RewardPlacement }
): Array<{ advantages: Float32Array; returns: Float32Array }> => {
  const out = trajectories.map((t) => {
    const rewards = (o.rewardPlacement ?? "final-token") === "per-turn" ? tokenRewards(t.turnRewards, t.turnLengths) : finalTokenRewards(t.ret, t.turnLengths)
    const values = t.values ?? new Float32Array(rewards.length)
    return gae(rewards, values, o.gamma, o.lambda)
  })
  if (o.whiten) whitenInPlace(out.map((x) => x.advantages))
  return out
}

export const ppo: Algorithm<PpoOptions> = {
  name: "ppo",
  description: "PPO: value-head critic, token-level GAE, whitened advantages, clipped ratio with dual clip, clipped value loss",
  options: PpoOptions,
  needsValue: true,
  minGroupSize: 1,
  advantages: (trajectories, o) => ppoAdvantages(trajectories, o),
  loss: (batch: ReadonlyArray<ObjectiveItem>, o: PpoOptions & LossRegularisers) =>
    buildObjective(batch, {
      clipLow: o.clipLow,
      clipHigh: o.clipHigh,
      dualClip: o.dualClip,
      lossAgg: o.lossAgg,
      normLength: o.normLength ?? 1,
      entropyCoef: o.entropyCoef,
      klCoef: o.klCoef,
      klEstimator: o.klEstimator ?? "k3",
      valueCoef: o.valueCoef,
      valueClip: o.valueClip,
      terms: o.terms ?? "all"
    })
}
