/**
 * A CLI command: its cac pattern, options and an Effect that does the work. Commands live
 * one per file in core/cli/commands/ and are listed in commands/index.ts.
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
  /** cac pattern, e.g. "list [kind]" or "filter <action> [file]". */
  readonly pattern: string
  readonly description: string
  readonly options?: ReadonlyArray<CommandOption>
  readonly examples?: ReadonlyArray<string>
  /** Positional args as cac passes them, then the parsed options. */
  readonly run: (args: ReadonlyArray<any>, options: Record<string, any>) => Effect.Effect<void, UserError, Registry>
}

export const defineCommand = (c: CommandDef): CommandDef => c
