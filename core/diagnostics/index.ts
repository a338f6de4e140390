/** Collapse diagnostics (docs/design.md §5–6): pure functions the trainer and the CLI call. */
export * from "./collapse.ts"
export * from "./filter-stats.ts"
export * from "./mi.ts"
export * from "./samples.ts"
export * from "./spearman.ts"
export { regimeName } from "./regimes.ts"
