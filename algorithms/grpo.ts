/**
 * GRPO (Shao et al. 2024, DeepSeekMath §4.1.2) with outcome supervision, as the RAGEN reference
 * code runs it: no critic; each trajectory's advantage is its return normalised within its
 * group, A = (R − mean_group)/(std_group + 1e-6) with the unbiased std (torch.std), broadcast to
 * every completion token of every turn of the trajectory.
 * A group of one trajectory (a trajectory-level filter kept one) gets mean 0 and std 1, so its
 * advantage is R/(1 + ε), as verl's compute_grpo_outcome_advantage (used by the reference): such a
 * trajectory still learns.
 * Loss aggregation as the paper's runs (mll-lab-nu/RAGEN scripts/runs/run_main_table_diff_algo.sh,
 * get_algo_overrides): GRPO seq-mean-token-mean, Dr.GRPO (Liu et al. 2025, "Understanding
 * R1-Zero-Like Training") no std division and seq-mean-token-sum; a sequence is one trajectory.
 * The loss is the clipped-ratio objective of ./common/objective.ts.
 */
import { Schema } from "effect"
import { type Algorithm, type AlgoTrajectory, type LossRegularisers, withDefault as dflt } from "../core/host.ts"
import { buildObjective, type LossAgg, LossAggOption, type ObjectiveItem } from "./common/objective.ts"
import { mean, stdUnbiased } from "./common/stats.ts"

export const GrpoOptions = Schema.Struct({
  /** "grpo" divides by the group std; "dr-grpo" does not and sums over each trajectory's tokens. */
  variant: dflt(Schema.Literals(["grpo", "dr-grpo"]), "grpo"),
  /** Lower clip ε of the ratio (PPO's 0.2). */
  clipLow: dflt(Schema.Finite, 0.2),
  /** Upper clip ε (the RAGEN reference config uses 0.28, DAPO's clip-higher). */
  clipHigh: dflt(Schema.Finite, 0.28),
  /** Dual-clip constant c (0 = off); the reference config uses 3. */
  dualClip: dflt(Schema.Finite, 3),
  /** Loss aggregation; default seq-mean-token-mean (grpo) or seq-mean-token-sum (dr-grpo), as the paper's runs. */
  lossAgg: Schema.optional(LossAggOption),
  /** Added to the std before dividing (reference: 1e-6). */
  epsilon: dflt(Schema.Finite, 1e-6)
})
export type GrpoOptions = typeof GrpoOptions.Type

/**
 * Each trajectory's return centred on its group's mean and, when divideByStd, divided by the
 * group's unbiased std + epsilon; one number per trajectory. A group of one has mean 0 and std 1
 * (verl), so its advantage is R/(1 + epsilon), or R without the std. DAPO uses it on its shaped returns.
 */
export const groupNormalised = (trajectories: ReadonlyArray<AlgoTrajectory>, returns: ArrayLike<number>, epsilon: number, divideByStd: boolean): Float64Array => {
  const byGroup = new Map<number, number[]>()
  trajectories.forEach((t, i) => {
    const g = byGroup.get(t.group) ?? []
    g.push(i)
    byGroup.set(t.group, g)
  })
  const out = new Float64Array(trajectories.length)
  for (const idx of byGroup.values()) {
    const rs = idx.map((i) => returns[i]!)
    const m = rs.length === 1 ? 0 : mean(rs)
    const sd = rs.length === 1 ? 1 : stdUnbiased(rs)
    for (const i of idx) {
      const centred = returns[i]! - m
      out[i] = divideByStd ? centred / (sd + epsilon) : centred
    }
  }
  return out
}

/** Group-normalised outcome advantages, one number per trajectory. */
export const grpoTrajectoryAdvantages = (trajectories: ReadonlyArray<AlgoTrajectory>, variant: "grpo" | "dr-grpo", epsilon: number): Float64Array =>
  groupNormalised(
    trajectories,
    trajectories.map((t) => t.ret),
    epsilon,
    variant === "grpo"
  )

/** One advantage per trajectory, broadcast to every completion token of its turns. */
export const broadcastToTokens = (trajectories: ReadonlyArray<AlgoTrajectory>, perTrajectory: ArrayLike<number>) =>
  trajectories.map((t, i) => ({ advantages: new Float32Array(t.turnLengths.reduce((a, b) => a + b, 0)).fill(perTrajectory[i]!) }))

/** The paper's aggregation per variant (run_main_table_diff_algo.sh): GRPO seq-mean-token-mean, Dr.GRPO seq-mean-token-sum. */
export const grpoDefaultLossAgg = (variant: GrpoOptions["variant"]): LossAgg => (variant === "dr-grpo" ? "seq-mean-token-sum" : "seq-mean-token-mean")

export const grpo: Algorithm<GrpoOptions> = {
  name: "grpo",
  description: "GRPO: group-normalised outcome advantages, clipped ratio (clip-higher, dual clip); variant dr-grpo",
  options: GrpoOptions,
  needsValue: false,
  minGroupSize: 2,
  advantages: (trajectories, o) => broadcastToTokens(trajectories, grpoTrajectoryAdvantages(trajectories, o.variant, o.epsilon)),
  loss: (batch: ReadonlyArray<ObjectiveItem>, o: GrpoOptions & LossRegularisers) =>
    buildObjective(batch, {
      clipLow: o.clipLow,
      clipHigh: o.clipHigh,
      dualClip: o.dualClip,
      lossAgg: o.lossAgg ?? grpoDefaultLossAgg(o.variant),
      normLength: o.normLength ?? 1,
      entropyCoef: o.entropyCoef,
      klCoef: o.klCoef,
      klEstimator: o.klEstimator ?? "k3",
      valueCoef: 0,
      valueClip: 0,
      terms: o.terms ?? "all"
    })
}
