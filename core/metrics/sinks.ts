/**
 * Choosing a run's metric sinks by registry id (`sinks: ["csv", "tensorboard"]`), with their
 * options decoded strictly; the results store then fans lines out to them (./fanout.ts).
 */
import { Effect, Schema } from "effect"
import type { UnknownIdError, UsageError } from "../errors.ts"
import { Registry } from "../registry.ts"
import { decodeInput } from "../schema/decode.ts"
import type { SinkBinding } from "./fanout.ts"

export type { SinkBinding } from "./fanout.ts"

/** A sink chosen by id, or by id with options: `"csv"`, `{ id: "tensorboard", options: {...} }`. */
export const SinkChoice = Schema.Union([Schema.String, Schema.Struct({ id: Schema.String, options: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)) })])
export type SinkChoice = typeof SinkChoice.Type
export const SinkChoices = Schema.Array(SinkChoice)

/** Resolve sink choices through the Registry; unknown ids and bad options are user errors. */
export const resolveSinks = (choices: ReadonlyArray<SinkChoice>, field = "sinks"): Effect.Effect<SinkBinding[], UsageError | UnknownIdError, Registry> =>
  Effect.gen(function* () {
    const registry = yield* Registry
    const out: SinkBinding[] = []
    for (const [i, c] of choices.entries()) {
      const id = typeof c === "string" ? c : c.id
      const entry = yield* registry.resolve("sinks", id)
      if (out.some((b) => b.id === entry.fullId)) continue // the same sink twice would write its file twice
      const options = yield* decodeInput(entry.value.options, typeof c === "string" ? {} : (c.options ?? {}), `${field}[${i}] (${entry.fullId}).options`)
      out.push({ id: entry.fullId, spec: entry.value, options })
    }
    return out
  })
