/**
 * Shards of a sweep (`sweep <preset> --shard i/n`): a sweep longer than a working session runs
 * as n invocations, each on its own slice of the grid, whose outputs are committed as they finish.
 *
 * Slices are contiguous in grid order: shard i of n (1-based) holds runs
 * [floor((i−1)·N/n), floor(i·N/n)) of the N runs expandGrid lists. The grid lists seeds
 * outermost and filters innermost (core/sweep/grid.ts), so a shard holds whole filter
 * comparisons of its seeds (paired rows as soon as it finishes) and the runs of one warm start
 * stay together; sizes differ by at most one run. The same spec gives the same slices on any
 * machine, and the n slices partition the grid: every run in exactly one shard.
 */
import { Effect } from "effect"
import { UsageError } from "../errors.ts"

export interface Shard {
  /** 1-based. */
  readonly index: number
  readonly count: number
}

/** Parse `i/n` (1 ≤ i ≤ n). */
export const parseShard = (value: unknown): Effect.Effect<Shard, UsageError> => {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(value))
  const index = m ? Number(m[1]) : Number.NaN
  const count = m ? Number(m[2]) : Number.NaN
  if (!m || count < 1 || index < 1 || index > count)
    return Effect.fail(new UsageError({ field: "--shard", message: `--shard must be i/n with 1 ≤ i ≤ n (e.g. --shard 2/4 runs the second of four slices), got "${String(value)}"` }))
  return Effect.succeed({ index, count })
}

/** The [start, end) run indices of a shard of `total` runs. */
export const shardBounds = (total: number, shard: Shard): readonly [number, number] => [Math.floor(((shard.index - 1) * total) / shard.count), Math.floor((shard.index * total) / shard.count)]

/** The shard's runs, in grid order. */
export const shardRuns = <T>(runs: ReadonlyArray<T>, shard: Shard): T[] => {
  const [start, end] = shardBounds(runs.length, shard)
  return runs.slice(start, end)
}
