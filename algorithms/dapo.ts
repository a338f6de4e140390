/**
 * DAPO (Yu et al. 2025, "DAPO: An Open-Source LLM Reinforcement Learning System at Scale"):
 * GRPO-style group-normalised advantages with
 *  - clip-higher: decoupled ε_low 0.2 / ε_high 0.28,
 *  - token-level loss (token-mean over the batch),
 *  - dynamic sampling: groups whose returns are all equal carry no signal and are dropped; the
 *    trainer draws new prompts until P groups remain (at most maxDraws rollouts in all),
 *  - overlong reward shaping (their Eq. 13): a completion longer than maxLength − cache is
 *    penalised linearly up to −1 at maxLength; here per turn, maxLength = the generation cap.
 * With a filter as well (core/train/filtering.ts): each draw's all-equal groups are dropped, the
 * filter selects among the rest of that draw, and kept groups accumulate across draws until P are
 * kept (the first P in draw order) or maxDraws is spent; the update sees at most P·G trajectories,
 * every group with non-zero spread. The filter statistics are the first draw's.
 * This is the full DAPO. The paper's Table 4 "DAPO" row is something else: PPO with clip-higher,
 * token-mean and no KL (mll-lab-nu/RAGEN scripts/runs/run_main_table_diff_algo.sh), the same
 * settings as its PPO row; see docs/train.md.
 */
import { Schema } from "effect"
import { type Algorithm, type AlgoTrajectory, type LossRegularisers, withDefault as dflt } from "../core/host.ts"
import { buildObjective, LossAggOption, type ObjectiveItem } from "./common/objective.ts"
import { broadcastToTokens, groupNormalised } from "./grpo.ts"

export const DapoOptions = Schema.Struct({
  clipLow: dflt(Schema.Finite, 0.2),
  clipHigh: dflt(Schema.Finite, 0.28),
  /** DAPO itself does not dual-clip; 0 = off. */
  dualClip: dflt(Schema.Finite, 0),
  lossAgg: dflt(LossAggOption, "token-mean"),
  /** Dynamic sampling on/off and the bound on rollout draws per step (the first included). */
  dynamicSampling: dflt(Schema.Boolean, true),
  maxDraws: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), 3),
  /** Overlong shaping: soft-penalty window in tokens (DAPO: 4096 of 20480; here 1/4 of the cap by default). */
  overlongCache: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  overlongShaping: dflt(Schema.Boolean, true),
  /** Generation cap the shaping measures against; filled in by the trainer (its maxTokens). */
  maxLength: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  epsilon: dflt(Schema.Finite, 1e-6)
})
export type DapoOptions = typeof DapoOptions.Type

/** DAPO Eq. 13: 0 if L ≤ Lmax − Lc; ((Lmax − Lc) − L)/Lc inside the window; −1 beyond Lmax. */
export const overlongPenalty = (length: number, maxLength: number, cache: number): number => {
  if (length <= maxLength - cache) return 0
  if (length <= maxLength) return cache > 0 ? (maxLength - cache - length) / cache : 0
  return -1
}

export const dapoShapedReturns = (trajectories: ReadonlyArray<AlgoTrajectory>, o: DapoOptions): Float64Array =>
  Float64Array.from(trajectories, (t) => {
    if (!o.overlongShaping || o.maxLength === undefined) return t.ret
    const cache = o.overlongCache ?? Math.floor(o.maxLength / 4)
    let r = t.ret
    for (const L of t.turnLengths) r += overlongPenalty(L, o.maxLength, cache)
    return r
  })

export const dapo: Algorithm<DapoOptions> = {
  name: "dapo",
  description: "DAPO: clip-higher, token-level loss, dynamic sampling, overlong reward shaping",
  options: DapoOptions,
  needsValue: false,
  minGroupSize: 2,
  trainerDefaults: ({ maxTokens }) => ({ maxLength: maxTokens }),
  dynamicSampling: (o) => ({ maxDraws: o.dynamicSampling ? o.maxDraws : 1 }),
  advantages: (trajectories, o) => broadcastToTokens(trajectories, groupNormalised(trajectories, dapoShapedReturns(trajectories, o), o.epsilon, true)),
  loss: (batch: ReadonlyArray<ObjectiveItem>, o: DapoOptions & LossRegularisers) =>
    buildObjective(batch, {
      clipLow: o.clipLow,
      clipHigh: o.clipHigh,
      dualClip: o.dualClip,
      lossAgg: o.lossAgg,
      normLength: o.normLength ?? o.maxLength ?? 1,
      entropyCoef: o.entropyCoef,
      klCoef: o.klCoef,
      klEstimator: o.klEstimator ?? "k3",
      valueCoef: 0,
      valueClip: 0,
      terms: o.terms ?? "all"
    })
}
