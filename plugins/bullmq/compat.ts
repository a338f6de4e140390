/**
 * Whether a worker may run a job: same code version as the coordinator, and every plugin the
 * run uses present with the same version and content hash — the records config.json keeps
 * (core/config.ts pluginHash: the sha256 of a user plugin's file; "builtin" for the built-ins,
 * which the code version covers). Results never mix code versions.
 */
import type { Plugin } from "../../core/contracts/index.ts"
import { type Kind, lookupEntry, pluginHash, type RegistryData, type RunConfig, UnknownIdError } from "../../core/host.ts"
import type { PluginRef } from "./job.ts"

export const pluginRef = (p: Plugin): PluginRef => ({ name: p.name, version: p.version, hash: pluginHash(p) })

/** The plugins that provide what a run names: env, algorithm, filter (and the filter a `like` option names), policy, scorer. */
export const pluginsOfRun = (data: RegistryData, config: RunConfig): PluginRef[] => {
  const names = new Set<string>()
  const use = (kind: Kind, id: unknown): void => {
    if (typeof id !== "string") return
    const found = lookupEntry(data, kind, id)
    if (!(found instanceof UnknownIdError)) names.add(found.plugin)
  }
  use("envs", config.env)
  use("algorithms", config.algo)
  use("filters", config.filter)
  use("filters", (config.filterOptions as Record<string, unknown>).like)
  use("policies", config.policy)
  use("scorers", (config.train as Record<string, unknown>).scorer)
  return data.plugins
    .filter((p) => names.has(p.name))
    .map(pluginRef)
    .sort((a, b) => a.name.localeCompare(b.name))
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
