/** The command shape lives with the other contracts (core/contracts/command.ts). */
export { type CommandDef, type CommandOption, defineCommand } from "../contracts/command.ts"
