/** Every CLI command, in the order `--help` shows them. Add a command only when it works. */
import type { CommandDef } from "../command.ts"
import list from "./list.ts"

export const commands: ReadonlyArray<CommandDef> = [list]
