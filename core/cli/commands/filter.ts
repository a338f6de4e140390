/**
 * `ragen-bench filter apply`: run any registered filter on a file of group returns and print
 * its decisions as JSON, so a user can check a filter and a trainer in another language can
 * call it. Input: {"groups": [[r, ...], ...], "seeds"?: [...]}. Output: {filter, options,
 * keptGroups (batch indices), keptTrajectories (per input group; [] when dropped), stats}.
 */
import { Console, Effect, Schema } from "effect"
import { decodeFilterOptions } from "../../filters/options.ts"
import { parsePairs } from "../kv.ts"
import { filterResolver, runFilter } from "../../filters/run.ts"
import type { Group } from "../../contracts/index.ts"
import { filterStats, scoreMetricOf } from "../../diagnostics/filter-stats.ts"
import { UsageError } from "../../errors.ts"
import { Registry } from "../../registry.ts"
import { Rng } from "../../rng.ts"
import { readJsonFile } from "../../schema/decode.ts"
import { listFlag, numberFlagOr } from "../flags.ts"
import { defineCommand } from "../../contracts/plugin.ts"

export const GroupsFile = Schema.Struct({
  /** Trajectory returns per group (one array per prompt). */
  groups: Schema.Array(Schema.Array(Schema.Finite)),
  /** Env seed of each group (optional; default 0..P-1). */
  seeds: Schema.optional(Schema.Array(Schema.Int))
})

export default defineCommand({
  pattern: "filter <action> [file]",
  description: "Run a rollout filter on a groups file and print what it keeps (action: apply)",
  options: [
    { flags: "--json", description: "JSON output (the default: the command prints JSON; the flag is accepted like on every command that prints results)" },
    { flags: "--filter <id>", description: "Filter id (see `ragen-bench list filters`)" },
    { flags: "--filter-value <v>", description: "Value of the filter's main option (e.g. p for top-p)" },
    { flags: "--option <kv>", description: "Filter option name=value (repeatable)" },
    { flags: "--seed <n>", description: "Seed of the filter's RNG (random filters)", default: 0 },
    { flags: "--step <n>", description: "Training step passed to the filter", default: 0 }
  ],
  examples: ["ragen-bench filter apply --filter top-p --filter-value 0.6 groups.json", "ragen-bench filter apply --filter random --option like=top-p --option p=0.9 --seed 3 groups.json"],
  run: ([action, file], opts) =>
    Effect.gen(function* () {
      if (action !== "apply") {
        return yield* new UsageError({ field: "action", message: `unknown filter action "${action}"; use: ragen-bench filter apply --filter <id> <groups.json>` })
      }
      if (!file) return yield* new UsageError({ field: "file", message: 'filter apply needs a groups file: {"groups": [[r, r, ...], ...]}' })
      if (!opts.filter || opts.filter === true) {
        return yield* new UsageError({ field: "--filter", message: "filter apply needs --filter <id>; see `ragen-bench list filters`" })
      }
      const registry = yield* Registry
      const entry = yield* registry.resolve("filters", String(opts.filter))
      const data = yield* readJsonFile(GroupsFile, file)
      if (data.seeds && data.seeds.length !== data.groups.length) {
        return yield* new UsageError({ field: "seeds", message: `${file}: seeds has ${data.seeds.length} entries but groups has ${data.groups.length}; give one seed per group or drop seeds` })
      }
      const raw = yield* parsePairs(listFlag(opts.option), "--option", "p=0.9")
      const options = yield* decodeFilterOptions(entry.value, raw, opts.filterValue === undefined ? undefined : String(opts.filterValue))
      const seed = yield* numberFlagOr(opts.seed, "--seed", 0, { integer: true })
      const step = yield* numberFlagOr(opts.step, "--step", 0, { integer: true })
      const groups: Group[] = data.groups.map((returns, i) => ({ index: i, seed: data.seeds?.[i] ?? i, returns }))
      const ctx = { options, rng: new Rng(seed), step, resolveFilter: filterResolver(registry.data) }
      const result = yield* runFilter(entry.value, groups, ctx, entry.fullId)
      const metric = scoreMetricOf(entry.value, options)
      const kept = new Map(result.keep.map((k) => [k.group, [...k.trajectories].sort((a, b) => a - b)]))
      const out = {
        filter: entry.fullId,
        options,
        keptGroups: groups.filter((g) => (kept.get(g.index)?.length ?? 0) > 0).map((g) => g.index),
        keptTrajectories: groups.map((g) => kept.get(g.index) ?? []),
        stats: { ...filterStats(groups, result, metric, entry.fullId) }
      }
      yield* Console.log(JSON.stringify(out, null, 2))
    })
})
