/**
 * Decode untrusted input through a Schema into a typed value or a user-facing error.
 * Options objects are decoded strictly: an unknown key is an error naming the key, where it
 * was, and the nearest known key ("train.evalEvry: unknown option; did you mean evalEvery?"),
 * so a misspelt option never silently runs the default.
 */
import { Cause, Effect, Exit, Schema, type SchemaAST } from "effect"
import type * as SchemaIssue from "effect/SchemaIssue"
import { FileFormatError, UsageError } from "../errors.ts"
import { readRegularFileSync } from "../files.ts"
import { nearest } from "../text.ts"
import { plainIssues } from "./issues.ts"

/** Keys that must never be walked or assigned (prototype pollution). */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

/** The failure in plain words, one clause per issue (core/schema/issues.ts). */
const issueText = (cause: Cause.Cause<unknown>): string => {
  const e = Cause.squash(cause) as { message?: string }
  return plainIssues(String(e?.message ?? e))
}

/** `train.evalEvry`, `--option pp` (a flag is followed by a space), `groups[3]`. */
const fmtPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? String(k) : String(path[0]).startsWith("--") && i === 1 ? ` ${String(k)}` : `.${String(k)}`)).join("")

/** The property names an object schema declares (through encodings and unions of objects). */
const knownKeys = (ast: SchemaAST.AST): string[] => {
  const a = ast as any
  if (a._tag === "Objects") return a.propertySignatures.map((p: any) => String(p.name))
  if (a._tag === "Union") return [...new Set<string>(a.types.flatMap((t: SchemaAST.AST) => knownKeys(t)))]
  return []
}

interface Unexpected {
  readonly path: ReadonlyArray<PropertyKey>
  readonly known: string[]
}

const collectUnexpected = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>, out: Unexpected[]): void => {
  const i = issue as any
  switch (i._tag) {
    case "Pointer":
      collectUnexpected(i.issue, [...path, ...i.path], out)
      return
    case "Composite":
    case "AnyOf":
      for (const x of i.issues ?? []) collectUnexpected(x, path, out)
      return
    case "Encoding":
    case "Filter":
      if (i.issue) collectUnexpected(i.issue, path, out)
      return
    case "UnexpectedKey":
      out.push({ path, known: knownKeys(i.ast) })
      return
  }
}

/** The first unknown key of a failed strict decode, as one line; undefined when the failure is another. */
const unknownKeyMessage = (cause: Cause.Cause<unknown>, field: string | undefined): string | undefined => {
  const e = Cause.squash(cause) as { issue?: SchemaIssue.Issue }
  if (!e?.issue) return undefined
  const found: Unexpected[] = []
  collectUnexpected(e.issue, [], found)
  const first = found[0]
  if (!first) return undefined
  const key = String(first.path.at(-1) ?? "")
  const where = fmtPath([...(field ? [field] : []), ...first.path])
  if (FORBIDDEN_KEYS.has(key)) return `${where}: "${key}" is not allowed as a key`
  const near = nearest(key, first.known)
  const hint = near ? `did you mean ${near}?` : first.known.length > 0 ? `known options: ${[...first.known].sort().join(", ")}` : "this object takes no options"
  return `${where}: unknown option; ${hint}`
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; message: string }

/**
 * Decode synchronously; the error is returned, never thrown. `strict` (the default) rejects
 * unknown keys; pass `strict: false` for files whose schema may lag their writer.
 */
export const decodeSync = <T>(schema: Schema.Codec<T, any>, input: unknown, options: { readonly strict?: boolean; readonly field?: string } = {}): Decoded<T> => {
  const strict = options.strict ?? true
  const exit = Schema.decodeUnknownExit(schema as any)(input, { errors: "all", onExcessProperty: strict ? "error" : "ignore", reportInput: true }) as Exit.Exit<T, unknown>
  if (Exit.isSuccess(exit)) {
    // Effect lets any key through a struct with no fields (Schema.Struct({})): check it here.
    const ast = (schema as { ast?: { _tag?: string; propertySignatures?: unknown[]; indexSignatures?: unknown[] } }).ast
    if (strict && ast?._tag === "Objects" && ast.propertySignatures?.length === 0 && (ast.indexSignatures?.length ?? 0) === 0 && input && typeof input === "object") {
      const key = Object.keys(input)[0]
      if (key !== undefined)
        return {
          ok: false,
          message: `${fmtPath([...(options.field ? [options.field] : []), key])}: ${FORBIDDEN_KEYS.has(key) ? `"${key}" is not allowed as a key` : "unknown option; this takes no options"}`
        }
    }
    return { ok: true, value: exit.value }
  }
  const unknown = strict ? unknownKeyMessage(exit.cause, options.field) : undefined
  return { ok: false, message: unknown ?? issueText(exit.cause) }
}

/** Decode a value given on the command line or in a config; the error names `field`. */
export const decodeInput = <T>(schema: Schema.Codec<T, any>, input: unknown, field: string): Effect.Effect<T, UsageError> => {
  const r = decodeSync(schema, input, { field })
  if (r.ok) return Effect.succeed(r.value)
  // An unknown-key message already starts with the field's path.
  const message = r.message.startsWith(field) ? r.message : `invalid ${field}: ${r.message}`
  return Effect.fail(new UsageError({ field, message }))
}

/** Read and decode a JSON file; errors name the path and the field. */
export const readJsonFile = <T>(schema: Schema.Codec<T, any>, path: string, options: { readonly strict?: boolean; readonly noFollow?: boolean } = {}): Effect.Effect<T, FileFormatError> =>
  Effect.suspend((): Effect.Effect<T, FileFormatError> => {
    let raw: string
    try {
      // Only a regular file, at most 64 MiB: a FIFO or a device named config.json cannot hang or flood a reader.
      raw = new TextDecoder().decode(readRegularFileSync(path, 64 << 20, { noFollow: options.noFollow === true }))
    } catch (e) {
      return Effect.fail(new FileFormatError({ path, message: (e as Error).message }))
    }
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch (e) {
      return Effect.fail(new FileFormatError({ path, message: `${path} is not valid JSON: ${(e as Error).message}` }))
    }
    const r = decodeSync(schema, json, { strict: options.strict ?? true })
    return r.ok ? Effect.succeed(r.value) : Effect.fail(new FileFormatError({ path, message: `${path}: ${r.message}` }))
  })
