/**
 * Running a filter as an Effect, for the CLI and the trainer: input errors thrown by `select`
 * (FilterInputError) become UsageErrors naming the field; the result is checked for shape
 * (a user filter returning an unknown group or trajectory is a clear error, not a crash later).
 */
import { Effect } from "effect"
import type { Filter, FilterContext, FilterResult, Group, ResolvedFilter } from "../contracts/index.ts"
import { UnknownIdError, UsageError } from "../errors.ts"
import { lookupEntry, type RegistryData } from "../registry.ts"
import { isFilterInputError } from "./input.ts"

/**
 * `ctx.resolveFilter` over a registry: any registered filter by full or short id, as
 * `--filter` resolves it; an unknown or ambiguous id answers the registry's one-line message.
 */
export const filterResolver =
  (data: RegistryData) =>
  (id: string): ResolvedFilter => {
    const found = lookupEntry(data, "filters", id)
    return found instanceof UnknownIdError ? { ok: false, message: found.message } : { ok: true, filter: found.value, id: found.fullId }
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
