/**
 * What the env server and the env CLI commands need from the registry: look up a spec by id and
 * build an env from raw (untrusted) options. Plain functions returning errors as values, so the
 * request handlers stay synchronous.
 */
import type { Env, EnvSpec } from "../../core/contracts/index.ts"
import { withTimeLimit } from "../../core/env/time-limit.ts"
import { decodeSync } from "../../core/schema/decode.ts"

export interface EnvCatalog {
  /** The spec for an id (full or local, as the registry resolves it), or an error message. */
  readonly resolve: (id: string) => { ok: true; id: string; spec: EnvSpec } | { ok: false; message: string }
  readonly list: () => ReadonlyArray<{ id: string; description: string }>
}

/**
 * Decode `raw` through the spec's options schema (strictly: an unknown key is an error with the
 * nearest known one) and build the env, wrapped in the harness's action budget (core/env/
 * time-limit.ts: the env server and `play` truncate as the rollout does); errors name the field.
 */
export const makeEnv = (spec: EnvSpec, raw: unknown, budget = spec.actionBudget): { ok: true; env: Env; options: unknown } | { ok: false; message: string } => {
  const decoded = decodeSync(spec.options, raw ?? {})
  if (!decoded.ok) return { ok: false, message: `invalid options for ${spec.id}: ${decoded.message}` }
  try {
    return { ok: true, env: withTimeLimit(spec.make(decoded.value), budget), options: decoded.value }
  } catch (e) {
    return { ok: false, message: `cannot build ${spec.id}: ${(e as Error).message}` }
  }
}

/**
 * "--option k=v" pairs to an options object; a value is JSON when it parses ("3", "true", "[1]"),
 * else a string. A dotted key sets a nested field (server.url=x).
 */
export const parseOptionPairs = (pairs: ReadonlyArray<string>): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } => {
  const out: Record<string, unknown> = {}
  for (const p of pairs) {
    const i = p.indexOf("=")
    if (i <= 0) return { ok: false, message: `--option "${p}" must be key=value, e.g. --option maxAttempts=2` }
    const k = p.slice(0, i)
    const v = p.slice(i + 1)
    let parsed: unknown = v
    try {
      parsed = JSON.parse(v)
    } catch {
      // keep the string
    }
    // A dotted key is a path into nested options: server.url=x → {server: {url: "x"}}.
    const path = k.split(".")
    if (path.some((seg) => seg === "")) return { ok: false, message: `--option "${p}": empty segment in key "${k}"; write e.g. --option server.url=http://host:3000` }
    let node: Record<string, unknown> = out
    for (let j = 0; j < path.length - 1; j++) {
      const seg = path[j]!
      const cur = node[seg]
      if (cur === undefined) node[seg] = {}
      else if (typeof cur !== "object" || cur === null || Array.isArray(cur)) {
        return { ok: false, message: `--option "${p}": "${path.slice(0, j + 1).join(".")}" was already given a non-object value; drop one of the two` }
      }
      node = node[seg] as Record<string, unknown>
    }
    node[path[path.length - 1]!] = parsed
  }
  return { ok: true, value: out }
}
