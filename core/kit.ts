/**
 * The plugin author's kit (`import { option, options, Schema } from "ragen-bench/kit"`): option
 * builders, the harness's env checks and time limit, the filters' input check, and the host's
 * own Effect and Schema, so that a plugin outside this repository uses the same copy as the host.
 * The contracts (types, definePlugin) are `ragen-bench/contracts`.
 */
export { Effect, Schema } from "effect"
export { assertEnv, checkEnv } from "./check-env.ts"
export { actionBudgetFor, withTimeLimit } from "./env/time-limit.ts"
export { checkGroups } from "./filters/input.ts"
export { withDefault } from "./contracts/defaults.ts"
export { type NumberRange, option, options } from "./schema/option.ts"
