/**
 * Turning user-given filter settings into decoded options: `--filter-value v` sets the
 * filter's `valueOption`, `--option k=v` (core/cli/kv.ts) sets any option. Options decode
 * strictly: an unknown name is an error naming the nearest known one.
 */
import { Effect, type Schema } from "effect"
import type { Filter } from "../contracts/index.ts"
import { UsageError } from "../errors.ts"
import { parseValue } from "../cli/kv.ts"
import { decodeSync } from "../schema/decode.ts"

/** Decode a filter's options from raw settings and an optional `--filter-value`. */
export const decodeFilterOptions = <O>(filter: Filter<O>, raw: Readonly<Record<string, unknown>>, value?: unknown): Effect.Effect<O, UsageError> =>
  Effect.gen(function* () {
    const input: Record<string, unknown> = { ...raw }
    if (value !== undefined) {
      if (!filter.valueOption) {
        return yield* new UsageError({ field: "--filter-value", message: `filter "${filter.name}" takes no --filter-value; set its options with --option name=value` })
      }
      input[filter.valueOption] = typeof value === "string" ? parseValue(value) : value
    }
    const r = decodeSync(filter.options as Schema.Codec<O, any>, input, { field: "--option" })
    if (!r.ok)
      return yield* new UsageError({
        field: "--option",
        message: r.message.startsWith("--option") ? `filter "${filter.name}": ${r.message}` : `invalid options for filter "${filter.name}": ${r.message}`
      })
    return r.value
  })
