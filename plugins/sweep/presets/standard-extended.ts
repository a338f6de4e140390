/**
 * standard-extended — the standard suite plus Table 9's linear top-p at 1.0 (zero-spread groups
 * dropped), top-k 0.25, and GRPO beside PPO (docs/decisions.md#issue-17). Same recipe, warm starts and
 * seeds as `standard`, so its runs include `standard`'s and share their folders.
 * Wall time on 2 cores: `ragen-bench sweep standard-extended --dry-run` (benchmarks/results/standard.md).
 */
import { defineSweep } from "../../../core/host.ts"
import standard from "./standard.ts"

export default defineSweep({
  ...standard,
  name: "standard-extended",
  description: "standard + linear top-p 1.0 (zero-spread dropped, Table 9), top-k 0.25, and GRPO",
  axes: {
    ...standard.axes,
    algo: ["ppo", "grpo"],
    filter: [...standard.axes.filter!, { id: "top-p", options: { p: 1, includeZero: false }, label: "top-p 1.0 (linear, zero dropped)" }, { id: "top-k", options: { k: 0.25 }, label: "top-k 0.25" }]
  }
})
