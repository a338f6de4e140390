/** Decode untrusted input through a Schema into a typed value or a user-facing error. */
import { Cause, Effect, Exit, Schema } from "effect"
import { FileFormatError, UsageError } from "../errors.ts"
import { readFileSync } from "node:fs"

const issueText = (cause: Cause.Cause<unknown>): string => {
  const e = Cause.squash(cause) as { message?: string }
  return String(e?.message ?? e).replace(/\n\s*/g, " ")
}

/** Decode synchronously; returns the value or throws nothing: the error is returned. */
export const decodeSync = <T>(schema: Schema.Codec<T, any>, input: unknown): { ok: true; value: T } | { ok: false; message: string } => {
  const exit = Schema.decodeUnknownExit(schema as any)(input, { errors: "all" }) as Exit.Exit<T, unknown>
  return Exit.isSuccess(exit) ? { ok: true, value: exit.value } : { ok: false, message: issueText(exit.cause) }
}

/** Decode a value given on the command line or in a config; the error names `field`. */
export const decodeInput = <T>(schema: Schema.Codec<T, any>, input: unknown, field: string): Effect.Effect<T, UsageError> => {
  const r = decodeSync(schema, input)
  return r.ok ? Effect.succeed(r.value) : Effect.fail(new UsageError({ field, message: `invalid ${field}: ${r.message}` }))
}

/** Read and decode a JSON file; errors name the path and the field. */
export const readJsonFile = <T>(schema: Schema.Codec<T, any>, path: string): Effect.Effect<T, FileFormatError> =>
  Effect.suspend((): Effect.Effect<T, FileFormatError> => {
    let raw: string
    try {
      raw = readFileSync(path, "utf8")
    } catch (e) {
      return Effect.fail(new FileFormatError({ path, message: `cannot read ${path}: ${(e as Error).message}` }))
    }
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch (e) {
      return Effect.fail(new FileFormatError({ path, message: `${path} is not valid JSON: ${(e as Error).message}` }))
    }
    const r = decodeSync(schema, json)
    return r.ok ? Effect.succeed(r.value) : Effect.fail(new FileFormatError({ path, message: `${path}: ${r.message}` }))
  })
