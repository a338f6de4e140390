/**
 * Plugin shape (docs/design.md §4, STYLE.md plugins): a plain object from a factory, registered
 * by value. Contributed ids are namespaced by the plugin name ("<plugin>/<id>").
 * The types that refer to one another through the plugin set live here together, so that the
 * contracts import one another without a cycle (test/core/contracts-floor.test.ts): the CLI
 * command (run against the Registry), the Registry (which holds the plugins and their commands)
 * and the sweep executor (whose request carries the plugins its workers must hold). The Registry's
 * implementation is core/registry.ts.
 */
import { Context, type Effect, type Schema } from "effect"
import type { Algorithm } from "./algorithm.ts"
import type { EnvSpec } from "./env.ts"
import type { UnknownIdError, UserError } from "./errors.ts"
import type { GridRun, SweepEvent, SweepOutcome } from "./executor.ts"
import type { Filter } from "./filter.ts"
import type { PolicySpec } from "./policy.ts"
import type { SweepPreset } from "./preset.ts"
import type { ScorerSpec } from "./scorer.ts"
import type { SinkSpec } from "./sink.ts"
import type { WarmStart } from "./warm-start.ts"

export interface Plugin {
  readonly name: string
  readonly version: string
  readonly envs?: ReadonlyArray<EnvSpec>
  readonly policies?: ReadonlyArray<PolicySpec>
  readonly algorithms?: ReadonlyArray<Algorithm>
  readonly filters?: ReadonlyArray<Filter>
  readonly scorers?: ReadonlyArray<ScorerSpec>
  /** Sweep executors (the local worker pool, a distributed queue). */
  readonly executors?: ReadonlyArray<ExecutorSpec>
  /** Metric sinks (CSV, TensorBoard event files, ...). */
  readonly sinks?: ReadonlyArray<SinkSpec>
  /** CLI commands the host mounts (`sft`, `leaderboard`, `env serve`, ...). */
  readonly commands?: ReadonlyArray<CommandDef>
  /** Shipped warm-start checkpoints (core/contracts/warm-start.ts). */
  readonly warmstarts?: ReadonlyArray<WarmStart>
  /** Sweep presets (`ragen-bench sweep <name>`): named specs, one namespace across plugins. */
  readonly presets?: ReadonlyArray<SweepPreset>
}

/** Falsy entries are skipped and arrays flattened (presets), as in Rollup/ESLint configs. */
export type PluginInput = Plugin | ReadonlyArray<PluginInput> | false | null | undefined

export const definePlugin = <const P extends Plugin>(plugin: P): P => plugin

/** Also usable from a config file: `export default defineConfig({ plugins: [...] })`. */
export interface UserConfig {
  readonly plugins?: ReadonlyArray<PluginInput>
}
export const defineConfig = (config: UserConfig): UserConfig => config

export const flattenPlugins = (inputs: ReadonlyArray<PluginInput>): Plugin[] => {
  const out: Plugin[] = []
  const walk = (x: PluginInput): void => {
    if (!x) return
    if (Array.isArray(x)) for (const y of x) walk(y)
    else out.push(x as Plugin)
  }
  for (const x of inputs) walk(x)
  return out
}

// The CLI command a plugin contributes (as Vite plugins contribute hooks): its cac pattern,
// options and an Effect that does the work. The host (core/cli/host.ts) mounts every registered
// plugin's commands; a duplicate command name is an error naming both plugins.

export interface CommandOption {
  readonly flags: string
  readonly description: string
  readonly default?: unknown
}

export interface CommandDef {
  /** cac pattern, e.g. "list [kind]" or "filter <action> [file]". The first word is the command's name. */
  readonly pattern: string
  readonly description: string
  readonly options?: ReadonlyArray<CommandOption>
  readonly examples?: ReadonlyArray<string>
  /** Positional args as cac passes them, then the parsed options. */
  readonly run: (args: ReadonlyArray<any>, options: Record<string, any>) => Effect.Effect<void, UserError, Registry>
}

export const defineCommand = (c: CommandDef): CommandDef => c

// The registry as plugins and commands see it: resolves an id of a kind to what a plugin
// contributed, namespaced "<plugin>/<id>".

export const kinds = ["envs", "policies", "algorithms", "filters", "scorers", "executors", "sinks", "commands", "warmstarts", "presets"] as const
export type Kind = (typeof kinds)[number]

export interface KindMap {
  envs: EnvSpec
  policies: PolicySpec
  algorithms: Algorithm
  filters: Filter
  scorers: ScorerSpec
  executors: ExecutorSpec
  sinks: SinkSpec
  commands: CommandDef
  warmstarts: WarmStart
  presets: SweepPreset
}

export interface Entry<K extends Kind> {
  /** "<plugin>/<local id>" */
  readonly fullId: string
  readonly localId: string
  readonly plugin: string
  readonly value: KindMap[K]
}

export interface RegistryData {
  readonly plugins: ReadonlyArray<Plugin>
  readonly entries: { readonly [K in Kind]: ReadonlyArray<Entry<K>> }
}

export class Registry extends Context.Service<
  Registry,
  {
    readonly data: RegistryData
    readonly resolve: <K extends Kind>(kind: K, id: string) => Effect.Effect<Entry<K>, UnknownIdError>
    readonly list: <K extends Kind>(kind: K) => ReadonlyArray<Entry<K>>
  }
>()("ragen-bench/core/Registry") {}

// The sweep executor: what runs a sweep's grid of runs (see ./executor.ts for its events).

export interface SweepRequest {
  readonly runs: ReadonlyArray<GridRun>
  /** The results folder every finished run is written into (as a local run writes it). */
  readonly outDir: string
  readonly signal?: AbortSignal
  readonly onEvent?: (e: SweepEvent) => void
  /** User plugin files and config file of this invocation (workers load them again). */
  readonly pluginPaths?: ReadonlyArray<string>
  readonly configPath?: string
  /** The sweep's name (a queue's status groups runs by it). */
  readonly name?: string
  /** The plugins registered in this invocation (a queue's workers must hold those the runs use). */
  readonly plugins?: ReadonlyArray<Plugin>
  /** Queue executors: enqueue the runs and return at once (the outcome counts them unfinished). */
  readonly detach?: boolean
  /** Metric sinks of every run (`sweep --sink`): registry ids, or ids with options; each run writes into its own folder. */
  readonly sinks?: ReadonlyArray<string | { readonly id: string; readonly options?: Readonly<Record<string, unknown>> }>
}

export interface SweepExecutor {
  readonly id: string
  run(request: SweepRequest): Promise<SweepOutcome>
  /** Queue executors: lines describing what a (detached) sweep's runs are doing (`sweep status`). */
  status?(request: { readonly outDir: string }): Promise<ReadonlyArray<string>>
  /** Queue executors: write the runs finished so far into outDir (`sweep collect`); waits for nothing. */
  collect?(request: Omit<SweepRequest, "runs" | "detach">): Promise<SweepOutcome>
  /** Release connections, child processes. */
  close?(): Promise<void>
}

export interface ExecutorSpec<Options = any> {
  /** Local id, e.g. "local" or "bullmq". */
  readonly id: string
  readonly description: string
  readonly options: Schema.Codec<Options, any>
  make(options: Options): Promise<SweepExecutor>
}
