/**
 * The one parser of `key=value` flags (`--set`, `--option`): a value is JSON when it parses
 * ("3", "true", "[1]", "{\"a\":1}"), else the string; a dotted key sets a nested field
 * (server.url=x → { server: { url: "x" } }). Keys that could reach an object's prototype
 * (__proto__, constructor, prototype) are rejected, never walked.
 */
import { Effect } from "effect"
import { UsageError } from "../errors.ts"
import { FORBIDDEN_KEYS } from "../schema/decode.ts"

export const parseValue = (v: string): unknown => {
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/** Set `value` at `path` inside `target`, creating plain objects on the way. */
export const setPath = (target: Record<string, unknown>, path: ReadonlyArray<string>, value: unknown, field: string): Effect.Effect<void, UsageError> =>
  Effect.suspend(() => {
    const bad = path.find((k) => FORBIDDEN_KEYS.has(k) || k === "")
    if (bad !== undefined) {
      return Effect.fail(new UsageError({ field, message: `${field} ${path.join(".")}: ${bad === "" ? "empty segment in the key" : `"${bad}" is not allowed as a key`}` }))
    }
    let at: Record<string, unknown> = target
    for (const k of path.slice(0, -1)) {
      const cur = Object.hasOwn(at, k) ? at[k] : undefined
      if (cur === undefined) at[k] = {}
      else if (typeof cur !== "object" || cur === null || Array.isArray(cur)) {
        return Effect.fail(new UsageError({ field, message: `${field} ${path.join(".")}: "${k}" already holds a value, not an object of options` }))
      }
      at = at[k] as Record<string, unknown>
    }
    at[path.at(-1)!] = value
    return Effect.void
  })

/** `key=value` pairs into an options object. */
export const parsePairs = (pairs: ReadonlyArray<string>, field: string, example = "name=value"): Effect.Effect<Record<string, unknown>, UsageError> =>
  Effect.gen(function* () {
    const out: Record<string, unknown> = {}
    for (const p of pairs) {
      const eq = p.indexOf("=")
      if (eq <= 0) return yield* new UsageError({ field, message: `${field} "${p}" must look like key=value, e.g. ${field} ${example}` })
      yield* setPath(out, p.slice(0, eq).split("."), parseValue(p.slice(eq + 1)), field)
    }
    return out
  })
