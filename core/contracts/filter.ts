/**
 * Filter contract (docs/design.md §5): the project's main extension point.
 * A filter sees one training step's groups (one per prompt, G trajectory returns each) and
 * decides what the update uses: whole groups or trajectories within groups. It must be pure
 * and deterministic given `ctx.rng`.
 */
import type { Schema } from "effect"
import type { Rng } from "./rng.ts"

export interface Group {
  /** Index of the group in the step's batch (0..P-1). */
  readonly index: number
  /** Env seed of the prompt. */
  readonly seed: number
  /** Trajectory returns (env rewards + format penalties), length G. */
  readonly returns: ReadonlyArray<number>
}

/** What `ctx.resolveFilter` answers: the registered filter, or why there is none (one line). */
export type ResolvedFilter = { readonly ok: true; readonly filter: Filter; readonly id: string } | { readonly ok: false; readonly message: string }

export interface FilterContext<Options = unknown> {
  readonly options: Options
  readonly rng: Rng
  readonly step: number
  /**
   * Look up any registered filter by id, as `--filter` takes it (full "<plugin>/<name>" or a
   * unique short name), plugin filters included. Filters that wrap another one (the `random`
   * control matches another filter's kept count) use it and decode that filter's options with
   * its own schema. The trainer and `filter apply` provide it; absent in bare unit tests.
   */
  readonly resolveFilter?: (id: string) => ResolvedFilter
}

/** What a filter that resamples asks of the trainer (DAPO's dynamic sampling, Yu et al. 2025). */
export interface DynamicSampling {
  /** Rollout draws per step in all, the first included (1: never redraw). */
  readonly maxDraws: number
  /** Drop groups whose returns are all equal before `select` sees a draw's groups. */
  readonly dropEqualGroups: boolean
}

export interface KeptGroup {
  readonly group: number
  /** Indices of kept trajectories within the group (all of them for group-level filters). */
  readonly trajectories: ReadonlyArray<number>
}

export interface FilterResult {
  readonly keep: ReadonlyArray<KeptGroup>
  /** Filter-specific numbers, logged under filter/<name>/*. */
  readonly stats?: Readonly<Record<string, number>>
}

export interface Filter<Options = any> {
  /** Local id, e.g. "top-p". */
  readonly name: string
  readonly description: string
  /** Options schema; decoding fills defaults. */
  readonly options: Schema.Codec<Options, any>
  /** Name of the option that `--filter-value v` sets (e.g. "p" for top-p). */
  readonly valueOption?: string
  /**
   * Dynamic sampling: when set and it returns maxDraws > 1, the trainer keeps drawing P new
   * prompts (at most maxDraws rollouts per step in all) until P groups are kept, each draw's
   * groups going through `select` (after dropping all-equal groups when dropEqualGroups).
   */
  dynamicSampling?(options: Options): DynamicSampling
  /**
   * The group score a score-based filter ranks by ("std" or "var"); the per-step filter
   * statistics (filter/rv_*, zero-spread and dropped counts) use it. Default "std".
   */
  scoreMetric?(options: Options): "std" | "var"
  select(groups: ReadonlyArray<Group>, ctx: FilterContext<Options>): FilterResult
}
