/**
 * Example plugin: a trajectory-level filter. In every group it keeps the k best and the k worst
 * trajectories by return (the pair that carries the group's advantage signal most sharply) and
 * drops the middle; groups whose returns are all equal are dropped unless keepFlat is set
 * (their advantages are all zero anyway). Ties go to the lower trajectory index, so the
 * decision is deterministic. One file, no core change:
 *   ragen-bench filter apply --plugin examples/filters/extremes-filter.ts --filter extremes/best-worst groups.json
 */
import { Effect, Schema } from "effect"
import { checkGroups } from "../../core/kit.ts"
import { definePlugin, type Filter } from "../../core/contracts/index.ts"

export const BestWorstOptions = Schema.Struct({
  /** Trajectories kept from each end of a group's ranking (2k ≥ G keeps the whole group). */
  k: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.withDecodingDefault(Effect.succeed(1))),
  /** Keep groups whose returns are all equal (default: drop them, they have no signal). */
  keepFlat: Schema.Boolean.pipe(Schema.withDecodingDefault(Effect.succeed(false)))
})
export type BestWorstOptions = typeof BestWorstOptions.Type

/** Indices (ascending) of the k lowest and k highest returns; ties by lower index. */
export const bestWorst = (returns: ReadonlyArray<number>, k: number): number[] => {
  const order = returns.map((_, i) => i).sort((a, b) => returns[a]! - returns[b]! || a - b)
  if (2 * k >= order.length) return order.sort((a, b) => a - b)
  const worst = order.slice(0, k)
  // Best k: highest returns, and among equal returns the lower index first.
  const best = order
    .slice(k)
    .sort((a, b) => returns[b]! - returns[a]! || a - b)
    .slice(0, k)
  return [...worst, ...best].sort((a, b) => a - b)
}

export const bestWorstFilter: Filter<BestWorstOptions> = {
  name: "best-worst",
  description: "Example (trajectory level): in every group keep the k best and the k worst trajectories by return",
  options: BestWorstOptions,
  valueOption: "k",
  select: (groups, { options }) => {
    checkGroups(groups, "best-worst")
    const keep = groups.map((g) => {
      const flat = Math.max(...g.returns) === Math.min(...g.returns)
      return { group: g.index, trajectories: flat && !options.keepFlat ? [] : bestWorst(g.returns, options.k) }
    })
    return { keep }
  }
}

export default definePlugin({ name: "extremes", version: "0.1.0", filters: [bestWorstFilter] })
