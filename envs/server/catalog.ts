/**
 * What the env server and the env CLI commands need from the registry: look up a spec by id and
 * build an env from raw (untrusted) options. Plain functions returning errors as values, so the
 * request handlers stay synchronous.
 */
import type { Env, EnvSpec } from "../../core/contracts/index.ts"
import { actionBudgetFor, decodeSync, withTimeLimit } from "../../core/host.ts"

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
export const makeEnv = (spec: EnvSpec, raw: unknown, budget?: number): { ok: true; env: Env; options: unknown } | { ok: false; message: string } => {
  const decoded = decodeSync(spec.options, raw ?? {})
  if (!decoded.ok) return { ok: false, message: `invalid options for ${spec.id}: ${decoded.message}` }
  try {
    return { ok: true, env: withTimeLimit(spec.make(decoded.value), budget ?? actionBudgetFor(spec, decoded.value)), options: decoded.value }
  } catch (e) {
    return { ok: false, message: `cannot build ${spec.id}: ${(e as Error).message}` }
  }
}
