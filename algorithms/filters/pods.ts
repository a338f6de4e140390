/**
 * `pods` (PODS, Xu et al. 2025, "Not All Rollouts are Useful"): generate n rollouts per prompt,
 * train on the m of maximum return variance. As `within-group` with m fixed (m ≥ G keeps all).
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, withDefault as dflt } from "../../core/host.ts"
import { maxVarianceSubset } from "./max-variance.ts"
import { PosInt } from "./score.ts"

export const PodsOptions = Schema.Struct({
  /** Trajectories kept per group. */
  m: dflt(PosInt, 8)
})
export type PodsOptions = { readonly m: number }

export const podsFilter: Filter<PodsOptions> = {
  name: "pods",
  description: "Trajectory level: in every group keep the m trajectories of maximum return variance (PODS)",
  options: PodsOptions,
  valueOption: "m",
  select: (groups, { options }) => {
    checkGroups(groups, "pods")
    return { keep: groups.map((g) => ({ group: g.index, trajectories: maxVarianceSubset(g.returns, options.m) })) }
  }
}
