/**
 * The plugin registry: collects what plugins contribute, namespaced "<plugin>/<id>".
 * Lookup accepts the full id, a local id when only one plugin has it, or a local id
 * without its "-vN" suffix (the highest version wins). Duplicates and unknown ids are
 * typed errors naming the plugins involved and listing the known ids. The service's interface
 * and the kinds are in core/contracts/plugin.ts; this module re-exports them for its callers.
 */
import { Effect, Layer } from "effect"
import type { CommandDef, Plugin, PluginInput } from "./contracts/index.ts"
import { flattenPlugins } from "./contracts/plugin.ts"
import { type Entry, type Kind, kinds, Registry, type RegistryData } from "./contracts/plugin.ts"
import { DuplicateIdError, UnknownIdError } from "./errors.ts"
import { nearest } from "./text.ts"

/** A command's id is its name, the first word of its pattern ("env" for "env <action> [env]"). */
export const commandName = (c: CommandDef): string => c.pattern.trim().split(/\s+/)[0]!

const localIdOf = (kind: Kind, x: any): string => (kind === "algorithms" || kind === "filters" || kind === "presets" ? x.name : kind === "commands" ? commandName(x) : x.id)
export const descriptionOf = (x: { description?: string }): string => (x.description ?? "").split("\n")[0]!

export { type Entry, type Kind, kinds, Registry, type RegistryData } from "./contracts/plugin.ts"

const versionRe = /^(.*)-v(\d+)$/

export const buildRegistry = (inputs: ReadonlyArray<PluginInput>): Effect.Effect<RegistryData, DuplicateIdError> =>
  Effect.gen(function* () {
    const plugins = flattenPlugins(inputs)
    const entries = { envs: [], policies: [], algorithms: [], filters: [], scorers: [], executors: [], sinks: [], commands: [], warmstarts: [], presets: [] } as {
      [K in Kind]: Entry<K>[]
    }
    const seenPlugin = new Map<string, Plugin>()
    for (const p of plugins) {
      if (seenPlugin.has(p.name)) {
        return yield* new DuplicateIdError({
          kind: "plugin",
          id: p.name,
          plugins: [p.name, p.name],
          message: `plugin "${p.name}" is registered twice (versions ${seenPlugin.get(p.name)!.version} and ${p.version}); remove one of them from ragen-bench.config.ts or --plugin`
        })
      }
      seenPlugin.set(p.name, p)
      for (const kind of kinds) {
        for (const x of (p[kind] ?? []) as ReadonlyArray<any>) {
          const localId = localIdOf(kind, x)
          const fullId = `${p.name}/${localId}`
          // Commands and presets share one namespace each (the CLI's, `sweep <name>`'s), so a name is unique across plugins.
          const oneNamespace = kind === "commands" || kind === "presets"
          const prev = (entries[kind] as Entry<Kind>[]).find((e) => e.fullId === fullId || (oneNamespace && e.localId === localId))
          if (prev && oneNamespace) {
            return yield* new DuplicateIdError({
              kind,
              id: localId,
              plugins: [prev.plugin, p.name],
              message: `${singular(kind)} "${localId}" is contributed by both plugin "${prev.plugin}" and plugin "${p.name}"; remove one of them from ragen-bench.config.ts or --plugin`
            })
          }
          if (prev) {
            return yield* new DuplicateIdError({
              kind,
              id: fullId,
              plugins: [prev.plugin, p.name],
              message: `duplicate ${kind.replace(/s$/, "")} id "${fullId}": contributed twice by plugin "${p.name}"; give one of them another id`
            })
          }
          ;(entries[kind] as Entry<Kind>[]).push({ fullId, localId, plugin: p.name, value: x })
        }
      }
    }
    return { plugins, entries }
  })

const singular = (kind: Kind): string => (kind === "policies" ? "policy" : kind.slice(0, -1))

/** Look an id up, synchronously: its entry, or the error that names the known ids. */
export const lookupEntry = <K extends Kind>(data: RegistryData, kind: K, id: string): Entry<K> | UnknownIdError => {
  const all = data.entries[kind] as ReadonlyArray<Entry<K>>
  const known = all.map((e) => e.fullId)
  const fail = (why: string) =>
    new UnknownIdError({
      kind,
      id,
      known,
      message: `${why}; known ${kind}: ${known.join(", ") || "(none)"}. Register a plugin that provides it in ragen-bench.config.ts or with --plugin ./file.ts`
    })
  const exact = all.find((e) => e.fullId === id)
  if (exact) return exact
  const local = all.filter((e) => e.localId === id)
  if (local.length === 1) return local[0]!
  if (local.length > 1) {
    return fail(`${singular(kind)} id "${id}" is ambiguous: plugins ${local.map((e) => `"${e.plugin}"`).join(" and ")} both provide it; use the full id`)
  }
  // Unversioned name: pick the highest "-vN" of a single plugin.
  const versioned = all.map((e) => ({ e, m: versionRe.exec(e.localId) })).filter((x) => x.m && x.m[1] === id)
  if (versioned.length > 0) {
    const plugins = new Set(versioned.map((x) => x.e.plugin))
    if (plugins.size > 1) {
      return fail(`${singular(kind)} id "${id}" is ambiguous: plugins ${[...plugins].map((p) => `"${p}"`).join(" and ")} both provide a version of it; use the full id`)
    }
    versioned.sort((a, b) => Number(b.m![2]) - Number(a.m![2]))
    return versioned[0]!.e
  }
  // A misspelt id: the nearest local id (or full id) the registry knows.
  const near = nearest(id.replace(/-v\d+$/, ""), [...new Set(all.map((e) => e.localId.replace(versionRe, "$1")))]) ?? nearest(id, known)
  return fail(`unknown ${singular(kind)} "${id}"${near ? ` (did you mean ${near}?)` : ""}`)
}

/** The same lookup as an Effect (the Registry service's `resolve`). */
export const resolveEntry = <K extends Kind>(data: RegistryData, kind: K, id: string): Effect.Effect<Entry<K>, UnknownIdError> => {
  const found = lookupEntry(data, kind, id)
  return found instanceof UnknownIdError ? Effect.fail(found) : Effect.succeed(found)
}

export const registryFromData = (data: RegistryData): Registry["Service"] =>
  Registry.of({
    data,
    resolve: (kind, id) => resolveEntry(data, kind, id),
    list: (kind) => data.entries[kind]
  })
/** The Registry of already built data (the CLI host builds it once to mount plugin commands). */
export const registryLayerOf = (data: RegistryData) => Layer.succeed(Registry, registryFromData(data))
export const registryLayerFrom = (plugins: ReadonlyArray<PluginInput>) => Layer.effect(Registry, Effect.map(buildRegistry(plugins), registryFromData))
