// Project-level plugins for ragen-bench. The built-in envs, policies, algorithms, filters and
// scorers are always registered; add your own here by value, e.g.
//   import myFilter from "./examples/filters/spread-filter.ts"
//   export default defineConfig({ plugins: [myFilter] })
import { defineConfig } from "./core/contracts/index.ts"

export default defineConfig({ plugins: [] })
