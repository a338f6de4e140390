/**
 * Filter contract (DESIGN.md §5): the project's main extension point.
 * A filter sees one training step's groups (one per prompt, G trajectory returns each) and
 * decides what the update uses: whole groups or trajectories within groups. It must be pure
 * and deterministic given `ctx.rng`.
 */
import type { Schema } from "effect"
import type { Rng } from "../rng.ts"

export interface Group {
  /** Index of the group in the step's batch (0..P-1). */
  readonly index: number
  /** Env seed of the prompt. */
  readonly seed: number
  /** Trajectory returns (env rewards + format penalties), length G. */
  readonly returns: ReadonlyArray<number>
}

export interface FilterContext<Options = unknown> {
  readonly options: Options
  readonly rng: Rng
  readonly step: number
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
  select(groups: ReadonlyArray<Group>, ctx: FilterContext<Options>): FilterResult
}
