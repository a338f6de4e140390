/** The built-in rollout filters (docs/design.md §5), registered as plugin "filters". */
import { definePlugin } from "../../core/contracts/index.ts"
import { randomFilter, referenceFilters } from "./random.ts"

export const builtinFilters = [...referenceFilters, randomFilter]

export default definePlugin({ name: "filters", version: "0.1.0", filters: builtinFilters })
