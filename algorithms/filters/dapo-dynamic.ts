/**
 * `dapo-dynamic` (DAPO's dynamic sampling, Yu et al. 2025): drop groups whose returns are all
 * equal (no advantage signal under group normalisation). Refilling the batch with new prompts
 * is the trainer's job: it reads the filter's `dynamicSampling(options)` (maxDraws total rollout
 * draws per step, 1 = no resampling; equal-return groups dropped before select) and asks
 * `needsMoreGroups` after each draw.
 */
import { Schema } from "effect"
import type { Filter, FilterResult } from "../../core/contracts/index.ts"
import { allEqual, checkGroups, withDefault as dflt } from "../../core/host.ts"
import { keepWhole, PosInt } from "./score.ts"

export const DapoDynamicOptions = Schema.Struct({
  /** Total rollout draws per step, first included (1: drop only, never resample). */
  maxDraws: dflt(PosInt, 1),
  /** Two returns closer than this count as equal. */
  tolerance: dflt(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)), 1e-9)
})
export type DapoDynamicOptions = { readonly maxDraws: number; readonly tolerance: number }

/** Whether the trainer should draw more prompts: fewer than `target` groups kept so far. */
export const needsMoreGroups = (result: FilterResult, target: number): boolean => result.keep.length < target

export const dapoDynamicFilter: Filter<DapoDynamicOptions> = {
  name: "dapo-dynamic",
  description: "DAPO dynamic sampling: drop groups whose returns are all equal (trainer may resample up to maxDraws)",
  options: DapoDynamicOptions,
  valueOption: "maxDraws",
  dynamicSampling: (o) => ({ maxDraws: o.maxDraws, dropEqualGroups: true }),
  select: (groups, { options }) => {
    checkGroups(groups, "dapo-dynamic")
    const kept: number[] = []
    for (let i = 0; i < groups.length; i++) if (!allEqual(groups[i]!.returns, options.tolerance)) kept.push(i)
    return keepWhole(groups, kept, { dropped: groups.length - kept.length })
  }
}
