/**
 * `random`: the control (docs/design.md §10: keeping the same number of groups at random is as bad
 * as no filter). Keeps a uniformly random subset of the groups of the size a reference filter
 * would keep on this batch (`like`, default "top-p", with the reference's own options given
 * inline, e.g. {like: "top-p", p: 0.9}), or a fixed `count`, or a `ratio` of P (int(ratio·P),
 * at least 1, as top-k counts). `like` names any registered filter, plugin ones included, through
 * `ctx.resolveFilter` (the trainer and `filter apply` provide it; without it, the built-ins).
 * When the reference works at trajectory level, each chosen group keeps as many random
 * trajectories as the reference kept in the group it replaces. Uses ctx.rng only.
 */
import { Schema } from "effect"
import type { Filter, FilterContext, Group, KeptGroup } from "../../core/contracts/index.ts"
import { checkGroups, decodeSync, FilterInputError, withDefault as dflt } from "../../core/host.ts"
import { dapoDynamicFilter } from "./dapo-dynamic.ts"
import { minPFilter } from "./min-p.ts"
import { noneFilter } from "./none.ts"
import { podsFilter } from "./pods.ts"
import { quantileFilter } from "./quantile.ts"
import { Fraction } from "./score.ts"
import { topKCount, topKFilter } from "./top-k.ts"
import { topPSoftmaxFilter } from "./top-p-softmax.ts"
import { topPFilter } from "./top-p.ts"
import { withinGroupFilter } from "./within-group.ts"

/** Filters `random` can take its size from. */
export const referenceFilters: ReadonlyArray<Filter> = [noneFilter, topPFilter, topPSoftmaxFilter, topKFilter, minPFilter, quantileFilter, withinGroupFilter, dapoDynamicFilter, podsFilter]

export const RandomOptions = Schema.StructWithRest(
  Schema.Struct({
    /** Registered filter whose kept count to match (its options go alongside, e.g. p). */
    like: dflt(Schema.String, "top-p"),
    /** Keep exactly this many groups (overrides like). */
    count: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
    /** Keep int(ratio·P) groups, at least 1, as top-k counts (overrides like). */
    ratio: Schema.optional(Fraction)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
export type RandomOptions = { readonly like: string; readonly count?: number; readonly ratio?: number; readonly [k: string]: unknown }

/** The filter `like` names: through ctx.resolveFilter when given, else among the built-ins. */
const referenceOf = (like: string, ctx: FilterContext<RandomOptions>): Filter => {
  if (ctx.resolveFilter) {
    const r = ctx.resolveFilter(like)
    if (!r.ok) throw new FilterInputError("like", `random: like "${like}": ${r.message}`)
    if (r.filter === randomFilter) throw new FilterInputError("like", `random: like "${like}" is the random control itself; name the filter whose kept count to match, e.g. like=top-p`)
    return r.filter
  }
  const ref = referenceFilters.find((f) => f.name === like)
  if (!ref) {
    throw new FilterInputError("like", `random: like "${like}" is not a built-in filter; use one of ${referenceFilters.map((f) => f.name).join(", ")}, or set count or ratio`)
  }
  return ref
}

/** The per-group trajectory counts to match: one entry per group to keep. */
const targetSizes = (groups: ReadonlyArray<Group>, ctx: FilterContext<RandomOptions>): number[] => {
  const o = ctx.options
  const P = groups.length
  if (o.count !== undefined) return Array(Math.min(P, o.count)).fill(Infinity)
  if (o.ratio !== undefined) return Array(topKCount(P, o.ratio)).fill(Infinity)
  const ref = referenceOf(o.like, ctx)
  const { like: _l, count: _c, ratio: _r, ...refRaw } = o
  const decoded = decodeSync(ref.options, refRaw)
  if (!decoded.ok) throw new FilterInputError("like", `random: options for like "${o.like}": ${decoded.message}`)
  const result = ref.select(groups, { ...ctx, options: decoded.value, rng: ctx.rng.split("random/like") })
  return result.keep.filter((k) => k.trajectories.length > 0).map((k) => k.trajectories.length)
}

export const randomFilter: Filter<RandomOptions> = {
  name: "random",
  description: "Control: keep a random subset of groups of the size a reference filter (like) would keep",
  options: RandomOptions as unknown as Schema.Codec<RandomOptions, any>,
  valueOption: "ratio",
  select: (groups, ctx) => {
    checkGroups(groups, "random")
    const sizes = targetSizes(groups, ctx)
    const pick = ctx.rng.split("random/groups")
    const chosen = pick.shuffle(Array.from(groups.keys())).slice(0, sizes.length)
    const keep: KeptGroup[] = chosen.map((pos, n) => {
      const G = groups[pos]!.returns.length
      const all = Array.from({ length: G }, (_, k) => k)
      const m = Math.min(G, sizes[n]!)
      const traj =
        m >= G
          ? all
          : pick
              .shuffle(all)
              .slice(0, m)
              .sort((a, b) => a - b)
      return { group: groups[pos]!.index, trajectories: traj }
    })
    keep.sort((a, b) => a.group - b.group)
    return { keep, stats: { target: sizes.length } }
  }
}
