/**
 * Check a grid against the registry before any work starts: every env, algo, filter and
 * policy id resolves (plugin ids included), and its options decode through that entry's
 * options Schema. The first problem is a UsageError naming the axis and the value.
 */
import { Effect } from "effect"
import { UsageError, type UnknownIdError } from "../errors.ts"
import { type Kind, Registry } from "../registry.ts"
import { decodeSync } from "../schema/decode.ts"
import type { GridRun } from "./grid.ts"

const fields: ReadonlyArray<{ kind: Kind; id: "env" | "algo" | "filter" | "policy"; options: "envOptions" | "algoOptions" | "filterOptions" | "policyOptions" }> = [
  { kind: "envs", id: "env", options: "envOptions" },
  { kind: "algorithms", id: "algo", options: "algoOptions" },
  { kind: "filters", id: "filter", options: "filterOptions" },
  { kind: "policies", id: "policy", options: "policyOptions" }
]

export const checkGrid = (runs: ReadonlyArray<GridRun>): Effect.Effect<void, UsageError | UnknownIdError, Registry> =>
  Effect.gen(function*() {
    const registry = yield* Registry
    const seen = new Set<string>()
    for (const run of runs) {
      for (const f of fields) {
        const id = run.config[f.id]
        const options = run.config[f.options]
        const key = `${f.id}\0${id}\0${JSON.stringify(options)}`
        if (seen.has(key)) continue
        seen.add(key)
        const entry = yield* registry.resolve(f.kind, id)
        const schema = (entry.value as { options?: unknown }).options
        if (!schema) continue
        const r = decodeSync(schema as any, options)
        if (!r.ok) {
          return yield* new UsageError({ field: f.options, message: `sweep: ${f.id} "${id}" rejects its options ${JSON.stringify(options)}: ${r.message}; fix the axis value or fixed.${f.options} in the spec` })
        }
      }
    }
  })
