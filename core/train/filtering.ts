/**
 * The filter of one training step, with dynamic sampling when the algorithm (DAPO) or the filter
 * (dapo-dynamic) asks for it: each draw of P prompts goes through the filter, all-equal groups
 * dropped first when asked, until P groups are kept or the draws run out. The filter statistics
 * are those of the first (the regular) draw. Redraws draw other seeds (core/train/instances.ts).
 */
import { Effect } from "effect"
import type { FilterResult, Group } from "../contracts/index.ts"
import { filterStats, scoreMetricOf } from "../diagnostics/filter-stats.ts"
import { runFilter } from "../filters/run.ts"
import { derive } from "../rng.ts"
import { allEqual } from "../stats.ts"
import type { TrainContext } from "./context.ts"
import { samplingRng, trainSlotSeeds } from "./instances.ts"
import { rollout, type RolloutBatch } from "./rollout.ts"
import type { KeptTrajectory } from "./update.ts"

export const groupsOf = (b: RolloutBatch, offset: number): Group[] => b.seeds.map((seed, g) => ({ index: offset + g, seed, returns: b.trajectories.filter((t) => t.group === g).map((t) => t.ret) }))

export interface Filtered {
  readonly kept: KeptTrajectory[]
  readonly metrics: Record<string, number>
  /** Rollout work of the redraws (the first draw's is the caller's). */
  readonly extraTokens: number
  readonly extraSampleSeconds: number
  readonly extraRollouts: number
  readonly extraEnvSteps: number
}

/**
 * The run's filter over one draw's groups, through the same checked path as `filter apply`
 * (core/filters/run.ts): a filter's input error or a malformed result is a user error.
 */
export const applyFilter = (c: TrainContext, groups: ReadonlyArray<Group>, step: number, draw: number): Promise<FilterResult> => {
  const { s } = c
  const ctx = { options: s.filterOptions, rng: derive(s.config.seed, "filter", step, draw), step, resolveFilter: c.resolveFilter }
  return Effect.runPromise(runFilter(s.filter, groups, ctx, s.filterId))
}

/** `select` is the run's filter (applyFilter); tests pass their own to pin what is kept. */
export const filterStep = async (
  c: TrainContext,
  first: RolloutBatch,
  step: number,
  select: (groups: ReadonlyArray<Group>, draw: number) => Promise<FilterResult> = (groups, draw) => applyFilter(c, groups, step, draw)
): Promise<Filtered> => {
  const { s } = c
  const P = s.config.P
  const algoDraws = s.algo.dynamicSampling?.(s.algoOptions).maxDraws ?? 1
  const filterDyn = s.filter.dynamicSampling?.(s.filterOptions)
  const maxDraws = Math.max(1, algoDraws, filterDyn?.maxDraws ?? 1)
  const dropEqual = algoDraws > 1 || (filterDyn?.dropEqualGroups ?? false)
  const metrics: Record<string, number> = {}
  const kept: KeptTrajectory[] = []
  let keptGroups = 0
  let extraTokens = 0,
    extraSampleSeconds = 0,
    extraRollouts = 0,
    extraEnvSteps = 0
  let batch = first
  for (let draw = 0; draw < maxDraws; draw++) {
    if (draw > 0) {
      batch = await rollout(c.policy, s.rollout, trainSlotSeeds(s, step, draw, maxDraws), s.config.G, samplingRng(s, "rollout", step, draw))
      extraTokens += batch.tokens
      extraRollouts += batch.trajectories.length
      extraEnvSteps += batch.trajectories.reduce((a, t) => a + t.turns.length, 0)
      extraSampleSeconds += batch.sampleSeconds
    }
    const offset = draw * P
    const trajs = batch.trajectories.map((t) => Object.assign(t, { groupId: offset + t.group }))
    let groups = groupsOf(batch, offset)
    if (dropEqual) groups = groups.filter((g) => !allEqual(g.returns, 1e-9))
    const result = await select(groups, draw)
    if (draw === 0) Object.assign(metrics, filterStats(groupsOf(batch, 0), result, scoreMetricOf(s.filter, s.filterOptions), s.filterId))
    for (const k of result.keep) {
      if (keptGroups >= P || k.trajectories.length === 0) continue
      keptGroups++
      for (const j of k.trajectories) kept.push(trajs.find((t) => t.groupId === k.group && t.index === j)!)
    }
    metrics["train/draws"] = draw + 1
    if (maxDraws === 1 || keptGroups >= P) break
  }
  metrics["train/kept_groups"] = keptGroups
  return { kept, metrics, extraTokens, extraSampleSeconds, extraRollouts, extraEnvSteps }
}
