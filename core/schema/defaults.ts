/** Moved to core/contracts/defaults.ts (issue 24: the contracts are the floor); this re-export keeps old import paths working until tools/repoint-imports.ts rewrites them. */
export * from "../contracts/defaults.ts"
