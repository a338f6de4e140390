/**
 * Turning user-given filter settings into decoded options: `--filter-value v` sets the
 * filter's `valueOption`, `--option k=v` sets any option (values parsed as JSON when they
 * are, else kept as strings). Unknown option names are errors naming the known ones.
 */
import { Effect, Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { UsageError } from "../../core/errors.ts"
import { decodeSync } from "../../core/schema/decode.ts"

/** "0.9" → 0.9, "true" → true, "std" → "std". */
export const parseOptionValue = (v: string): unknown => {
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/** Parse repeated `k=v` flags into a record; a pair without "=" is a UsageError. */
export const parseOptionPairs = (pairs: ReadonlyArray<string>, field = "--option"): Effect.Effect<Record<string, unknown>, UsageError> =>
  Effect.gen(function*() {
    const out: Record<string, unknown> = {}
    for (const p of pairs) {
      const eq = p.indexOf("=")
      if (eq <= 0) return yield* new UsageError({ field, message: `${field} "${p}" must look like name=value, e.g. ${field} p=0.9` })
      out[p.slice(0, eq)] = parseOptionValue(p.slice(eq + 1))
    }
    return out
  })

const knownFields = (filter: Filter): string[] | undefined => {
  const f = (filter.options as unknown as { fields?: Record<string, unknown> }).fields
  return f ? Object.keys(f) : undefined
}

/**
 * Decode a filter's options from raw settings and an optional `--filter-value`. Excess keys
 * are rejected for plain struct schemas (a typo must not silently run the default).
 */
export const decodeFilterOptions = <O>(
  filter: Filter<O>,
  raw: Readonly<Record<string, unknown>>,
  value?: unknown
): Effect.Effect<O, UsageError> =>
  Effect.gen(function*() {
    const input: Record<string, unknown> = { ...raw }
    if (value !== undefined) {
      if (!filter.valueOption) {
        return yield* new UsageError({ field: "--filter-value", message: `filter "${filter.name}" takes no --filter-value; set its options with --option name=value` })
      }
      input[filter.valueOption] = typeof value === "string" ? parseOptionValue(value) : value
    }
    const known = knownFields(filter)
    const isStructWithRest = (filter.options as unknown as { ast?: { indexSignatures?: unknown[] } }).ast?.indexSignatures?.length
    if (known && !isStructWithRest) {
      const extra = Object.keys(input).filter((k) => !known.includes(k))
      if (extra.length > 0) {
        return yield* new UsageError({
          field: "--option",
          message: `filter "${filter.name}" has no option ${extra.map((k) => `"${k}"`).join(", ")}; its options are: ${known.join(", ") || "(none)"}`
        })
      }
    }
    const r = decodeSync(filter.options as Schema.Codec<O, any>, input)
    if (!r.ok) return yield* new UsageError({ field: "--option", message: `invalid options for filter "${filter.name}": ${r.message}` })
    return r.value
  })
