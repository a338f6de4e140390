/**
 * The core's own commands, in the order `--help` shows them; plugins contribute the rest
 * (sft, sweep, leaderboard, env, play, …) through their `commands` field.
 */
import type { CommandDef } from "../../contracts/index.ts"
import analyze from "./analyze.ts"
import filter from "./filter.ts"
import list from "./list.ts"
import mi from "./mi.ts"
import train from "./train.ts"

export const coreCommands: ReadonlyArray<CommandDef> = [list, train, filter, mi, analyze]
