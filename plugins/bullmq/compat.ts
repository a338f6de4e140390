/**
 * Whether a worker may run a job: same code version as the coordinator, and every plugin the
 * run uses present with the same version and content hash. Results never mix code versions.
 *
 * A plugin's content hash here is a hash of its name, version and, for each contributed item,
 * its id and the source text of its functions (Function.prototype.toString): a plugin file
 * edited without a version bump hashes differently. Helpers a plugin imports are not covered;
 * the code version covers the project's own files.
 */
import type { Plugin } from "../../core/contracts/index.ts"
import { canonicalJson, sha256Hex } from "../../core/hash.ts"
import { type Kind, kinds, type RegistryData, resolveEntry } from "../../core/registry.ts"
import type { RunConfig } from "../../core/schema/run-config.ts"
import { Effect, Exit } from "effect"
import type { PluginRef } from "./job.ts"

const itemFingerprint = (x: unknown): unknown => {
  if (typeof x === "function") return x.toString()
  if (!x || typeof x !== "object") return x ?? null
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(x).sort()) {
    const v = (x as Record<string, unknown>)[k]
    if (typeof v === "function") out[k] = v.toString()
    else if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v
  }
  return out
}

export const pluginRef = (p: Plugin): PluginRef => {
  const parts: Record<string, unknown> = { name: p.name, version: p.version }
  for (const kind of kinds) parts[kind] = ((p[kind] ?? []) as ReadonlyArray<unknown>).map(itemFingerprint)
  return { name: p.name, version: p.version, hash: sha256Hex(canonicalJson(parts)).slice(0, 12) }
}

/** The plugins that provide what a run names: its env, algorithm, filter (and the filter a `like` option names), policy. */
export const pluginsOfRun = (data: RegistryData, config: RunConfig): PluginRef[] => {
  const names = new Set<string>()
  const use = (kind: Kind, id: unknown): void => {
    if (typeof id !== "string") return
    const r = Effect.runSyncExit(resolveEntry(data, kind, id))
    if (Exit.isSuccess(r)) names.add(r.value.plugin)
  }
  use("envs", config.env)
  use("algorithms", config.algo)
  use("filters", config.filter)
  use("filters", (config.filterOptions as Record<string, unknown>).like)
  use("policies", config.policy)
  return data.plugins.filter((p) => names.has(p.name)).map(pluginRef).sort((a, b) => a.name.localeCompare(b.name))
}

/** Why this worker must refuse the job, or undefined when it may run it. */
export const refusal = (
  job: { readonly codeVersion: string; readonly plugins: ReadonlyArray<PluginRef> },
  worker: { readonly codeVersion: string; readonly plugins: ReadonlyArray<PluginRef> }
): string | undefined => {
  if (job.codeVersion !== worker.codeVersion) {
    return `code version ${worker.codeVersion} of this worker differs from the coordinator's ${job.codeVersion}; run the same commit on both`
  }
  const have = new Map(worker.plugins.map((p) => [p.name, p]))
  for (const need of job.plugins) {
    const h = have.get(need.name)
    if (!h) return `the run uses plugin "${need.name}" ${need.version}, which this worker lacks; start the worker with --plugin <its file> (or the same --config)`
    if (h.version !== need.version) return `the run uses plugin "${need.name}" ${need.version}, this worker has version ${h.version}; use the same plugin file on both`
    if (h.hash !== need.hash) return `plugin "${need.name}" ${need.version} differs in content (hash ${h.hash} here, ${need.hash} at the coordinator); use the same plugin file on both`
  }
  return undefined
}
