/** Moved to core/contracts/run-config.ts (issue 24: the contracts are the floor); this re-export keeps old import paths working until tools/repoint-imports.ts rewrites them. */
export * from "../contracts/run-config.ts"
