/**
 * Helpers for plugin authors, beside the contracts they implement (core/contracts/): check an env
 * against its contract, bound an env's steps in time, and give an options field its default.
 */
export { assertEnv, checkEnv } from "./check-env.ts"
export { withDefault } from "./contracts/defaults.ts"
export { actionBudgetFor, withTimeLimit } from "./env/time-limit.ts"
