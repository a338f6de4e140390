/**
 * Running a filter as an Effect, for the CLI and the trainer: input errors thrown by `select`
 * (FilterInputError) become UsageErrors naming the field; the result is checked for shape
 * (a user filter returning an unknown group or trajectory is a clear error, not a crash later).
 */
import { Cause, Effect, Exit } from "effect"
import type { Filter, FilterContext, FilterResult, Group, ResolvedFilter } from "../contracts/index.ts"
import { UsageError } from "../errors.ts"
import { type RegistryData, resolveEntry } from "../registry.ts"
import { isFilterInputError } from "./input.ts"

/**
 * `ctx.resolveFilter` over a registry: any registered filter by full or short id, as
 * `--filter` resolves it; an unknown or ambiguous id answers the registry's one-line message.
 */
export const filterResolver =
  (data: RegistryData) =>
  (id: string): ResolvedFilter => {
    const exit = Effect.runSyncExit(resolveEntry(data, "filters", id))
    if (Exit.isSuccess(exit)) return { ok: true, filter: exit.value.value, id: exit.value.fullId }
    const e = Cause.squash(exit.cause) as { message?: unknown }
    return { ok: false, message: String(e?.message ?? e) }
  }

/** select() outside any generator: an input error comes back as a value, a bug stays a throw. */
const attempt = <O>(filter: Filter<O>, groups: ReadonlyArray<Group>, ctx: FilterContext<O>): FilterResult | UsageError => {
  try {
    return filter.select(groups, ctx)
  } catch (e) {
    if (isFilterInputError(e)) return new UsageError({ field: (e as { field: string }).field, message: (e as Error).message })
    throw e
  }
}

export const runFilter = <O>(filter: Filter<O>, groups: ReadonlyArray<Group>, ctx: FilterContext<O>, id: string = filter.name): Effect.Effect<FilterResult, UsageError> =>
  Effect.gen(function* () {
    const result = attempt(filter, groups, ctx)
    if (result instanceof UsageError) return yield* result
    if (!result || !Array.isArray(result.keep)) {
      return yield* new UsageError({ field: "filter", message: `filter "${id}" must return { keep: [{ group, trajectories }] } from select` })
    }
    const byIndex = new Map(groups.map((g) => [g.index, g]))
    for (const k of result.keep) {
      const g = byIndex.get(k.group)
      if (!g) return yield* new UsageError({ field: "filter", message: `filter "${id}" kept group ${k.group}, which is not in the batch; select must return indices of the given groups` })
      for (const t of k.trajectories) {
        if (!(Number.isInteger(t) && t >= 0 && t < g.returns.length)) {
          return yield* new UsageError({ field: "filter", message: `filter "${id}" kept trajectory ${t} of group ${k.group}, which has ${g.returns.length}; trajectory indices are 0..G-1` })
        }
      }
    }
    return result
  })
