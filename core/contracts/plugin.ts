/**
 * Plugin shape (DESIGN.md §4, STYLE.md plugins): a plain object from a factory, registered
 * by value. Contributed ids are namespaced by the plugin name ("<plugin>/<id>").
 */
import type { Algorithm } from "./algorithm.ts"
import type { CommandDef } from "./command.ts"
import type { EnvSpec } from "./env.ts"
import type { ExecutorSpec } from "./executor.ts"
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
