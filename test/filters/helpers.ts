/** Small builders for filter tests. */
import { Effect } from "effect"
import type { Filter, FilterResult, Group } from "../../core/contracts/index.ts"
import { decodeFilterOptions } from "../../core/filters/options.ts"
import { Rng } from "../../core/rng.ts"

export const groupsOf = (returns: ReadonlyArray<ReadonlyArray<number>>): Group[] => returns.map((r, i) => ({ index: i, seed: 10000 + i, returns: r }))

/** Groups whose unbiased std equals the given scores: returns [0, s·√2] (std of two = s). */
export const groupsWithStd = (scores: ReadonlyArray<number>): Group[] => groupsOf(scores.map((s) => [0, s * Math.SQRT2]))

export const apply = (filter: Filter, groups: ReadonlyArray<Group>, raw: Record<string, unknown> = {}, seed = 0): FilterResult => {
  const options = Effect.runSync(decodeFilterOptions(filter, raw))
  return filter.select(groups, { options, rng: new Rng(seed), step: 0 })
}

export const keptGroups = (r: FilterResult): number[] => r.keep.filter((k) => k.trajectories.length > 0).map((k) => k.group)
