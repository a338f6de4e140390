/**
 * A CLI command a plugin contributes (as Vite plugins contribute hooks): its cac pattern,
 * options and an Effect that does the work. The host (core/cli/host.ts) mounts every
 * registered plugin's commands; a duplicate command name is an error naming both plugins.
 */
import type { Effect } from "effect"
import type { UserError } from "../errors.ts"
import type { Registry } from "../registry.ts"

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
