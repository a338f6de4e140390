/**
 * `within-group` (trajectory level; the paper's Table 7 control): keep every group, and in each
 * the m = round(ρ·G) trajectories whose returns have the largest variance (at least 1), round
 * being Python's (half to even, as the reference code's counts: ρ = 0.5, G = 5 → 2).
 */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups, roundHalfEven, withDefault as dflt } from "../../core/host.ts"
import { maxVarianceSubset } from "./max-variance.ts"
import { Fraction } from "./score.ts"

export const WithinGroupOptions = Schema.Struct({
  /** Share of each group's trajectories to keep (Table 7 keeps 64 of 128: 0.5). */
  rho: dflt(Fraction, 0.5)
})
export type WithinGroupOptions = { readonly rho: number }

export const withinGroupCount = (G: number, rho: number): number => Math.min(G, Math.max(1, roundHalfEven(rho * G)))

export const withinGroupFilter: Filter<WithinGroupOptions> = {
  name: "within-group",
  description: "Trajectory level: in every group keep the round(rho*G) trajectories of maximum return variance",
  options: WithinGroupOptions,
  valueOption: "rho",
  select: (groups, { options }) => {
    checkGroups(groups, "within-group")
    return {
      keep: groups.map((g) => ({ group: g.index, trajectories: maxVarianceSubset(g.returns, withinGroupCount(g.returns.length, options.rho)) }))
    }
  }
}
