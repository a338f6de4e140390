/** Every CLI command, in the order `--help` shows them. Add a command only when it works. */
import type { CommandDef } from "../command.ts"
import list from "./list.ts"
import train from "./train.ts"
import filter from "./filter.ts"
import mi from "./mi.ts"
import analyze from "./analyze.ts"
import sft from "./sft.ts"
import sweep from "./sweep.ts"
import leaderboard from "./leaderboard.ts"
import play from "./play.ts"
import env from "./env.ts"

export const commands: ReadonlyArray<CommandDef> = [list, train, filter, mi, analyze, sft, sweep, leaderboard, play, env]
