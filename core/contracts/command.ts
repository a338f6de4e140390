/** The CLI command contract lives in ./plugin.ts (beside the Registry it runs against); this keeps the old import path. */
export { type CommandDef, type CommandOption, defineCommand } from "./plugin.ts"
