/**
 * Loading user plugins: the project's own `ragen-bench.config.ts` (default export
 * `{ plugins: [...] }`), a config named with `--config`, and any `--plugin ./file.ts` (default
 * export: a plugin or an array). Config files and plugins run code: a config file in another
 * working directory is loaded only when the user names it.
 */
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import type { PluginInput } from "./contracts/index.ts"
import { UsageError } from "./errors.ts"
import { sha256Hex } from "./hash.ts"
import { projectRoot } from "./runtime.ts"

export const CONFIG_FILE = "ragen-bench.config.ts"

/** Content hashes of the files user plugins were loaded from (runs record them; built-ins: "builtin"). */
const sourceHashes = new WeakMap<object, string>()
export const pluginHash = (plugin: object): string => sourceHashes.get(plugin) ?? "builtin"
const noteSource = (x: unknown, path: string): void => {
  const hash = sha256Hex(readFileSync(path, "utf8")).slice(0, 12)
  const walk = (y: unknown): void => {
    if (Array.isArray(y)) y.forEach(walk)
    else if (y && typeof y === "object") sourceHashes.set(y, hash)
  }
  walk(x)
}

/** Why a plugin or config file did not load, and the fix (a package its folder lacks, or the file's own error). */
const loadFailure = (path: string, field: string, e: unknown): string => {
  const first = String((e as Error)?.message ?? e).split("\n")[0]!
  const pkg = /Cannot find (?:package|module) '([^']+)'/.exec(first)?.[1]
  if (pkg !== undefined && !pkg.startsWith(".") && !pkg.startsWith("/")) {
    const hint = pkg === "effect" ? 'import Schema and Effect from "ragen-bench/kit" (the host\'s own copy)' : `install it there (npm install ${pkg}); nothing is installed at run time`
    return `cannot load ${field} ${path}: it imports "${pkg}", which is not installed where the file is; ${hint}`
  }
  return `cannot load ${field} ${path}: ${first}; check that it default-exports ${field === "--plugin" ? "a plugin (definePlugin({...}))" : "{ plugins: [...] }"}`
}

const importDefault = (path: string, field: string): Effect.Effect<unknown, UsageError> =>
  Effect.tryPromise({
    try: async () => (await import(pathToFileURL(resolve(path)).href)).default,
    catch: (e) => new UsageError({ field, message: loadFailure(path, field, e) })
  })

const isPluginLike = (x: unknown): boolean => !x || Array.isArray(x) || (typeof x === "object" && typeof (x as { name?: unknown }).name === "string")

export const loadUserPlugins = (pluginPaths: ReadonlyArray<string>, configPath: string | undefined): Effect.Effect<PluginInput[], UsageError> =>
  Effect.gen(function* () {
    const out: PluginInput[] = []
    const own = resolve(projectRoot, CONFIG_FILE)
    const cfgPath = configPath ?? (existsSync(own) ? own : undefined)
    if (!configPath && existsSync(CONFIG_FILE) && resolve(CONFIG_FILE) !== own) {
      console.error(`note: ./${CONFIG_FILE} is not loaded (a config file runs code); pass --config ${CONFIG_FILE} to use it`)
    }
    if (configPath && !existsSync(configPath)) {
      return yield* new UsageError({ field: "--config", message: `config file ${configPath} does not exist; pass an existing file or drop --config` })
    }
    if (cfgPath) {
      const cfg = yield* importDefault(cfgPath, "config")
      if (!cfg || typeof cfg !== "object" || !Array.isArray((cfg as { plugins?: unknown }).plugins ?? [])) {
        return yield* new UsageError({ field: "config", message: `${cfgPath} must default-export { plugins: [...] }` })
      }
      const plugins = ((cfg as { plugins?: PluginInput[] }).plugins ?? []) as PluginInput[]
      for (const p of plugins) {
        if (!isPluginLike(p)) {
          return yield* new UsageError({ field: "config.plugins", message: `${cfgPath}: every entry of plugins must be a plugin object with a "name" (got ${typeof p})` })
        }
      }
      noteSource(plugins, cfgPath)
      out.push(...plugins)
    }
    for (const p of pluginPaths) {
      if (!existsSync(p)) {
        return yield* new UsageError({ field: "--plugin", message: `--plugin ${p}: file does not exist; pass a path to a .ts file that default-exports a plugin` })
      }
      const mod = yield* importDefault(p, "--plugin")
      if (!mod || !isPluginLike(mod)) {
        return yield* new UsageError({ field: "--plugin", message: `${p} must default-export a plugin (definePlugin({ name, version, ... })) or an array of plugins` })
      }
      noteSource(mod, p)
      out.push(mod as PluginInput)
    }
    return out
  })

/**
 * The composition root's built-in plugins module (absolute path; its `builtinPlugins` export lists
 * them). A process that builds its own registry (a sweep worker) loads the built-ins from this
 * path, as it loads user plugins from theirs: cli.ts sets it, and nothing under core/ or plugins/
 * imports builtins.ts.
 */
export const BUILTINS_ENV = "RAGEN_BUILTINS"

export const loadBuiltinPlugins = async (path: string | undefined = process.env[BUILTINS_ENV]): Promise<ReadonlyArray<PluginInput>> => {
  if (!path) throw new Error(`${BUILTINS_ENV} is not set: start sweeps through ragen-bench (cli.ts), which names its built-in plugins there`)
  const mod = (await import(pathToFileURL(resolve(path)).href)) as { builtinPlugins?: unknown }
  if (!Array.isArray(mod.builtinPlugins)) throw new Error(`${path} does not export builtinPlugins`)
  return mod.builtinPlugins as ReadonlyArray<PluginInput>
}
