/**
 * Paper Table 4: filter vs no filter across algorithms (PPO, DAPO, GRPO) and four envs.
 * The filter axis is the reference script's (mll-lab-nu/RAGEN scripts/runs/
 * run_main_table_diff_algo.sh, run_experiment): rollout_filter_strategy top_p with
 * top_p_prob_mode softmax and include_zero True, value 0.9 ("filter") vs 1.0 ("nofilter", which
 * with include_zero keeps every group).
 */
import { defineSweep } from "../../core/sweep/spec.ts"
import { FROZENLAKE, paperSpec, SOKOBAN } from "./_common.ts"

/** The script's two filter arms. */
export const TABLE4_FILTERS = [
  { id: "top-p-softmax", options: { p: 1, includeZero: true }, label: "nofilter (top-p-softmax 1.0)" },
  { id: "top-p-softmax", options: { p: 0.9, includeZero: true }, label: "filter (top-p-softmax 0.9)" }
] as const

export default defineSweep(paperSpec({
  name: "table4",
  description: "PPO, DAPO, GRPO × {top-p-softmax 1.0, 0.9; include zero} × Sokoban, FrozenLake, MetaMathQA, Countdown × lr {1e-4, 1e-3}",
  axes: {
    env: [SOKOBAN, FROZENLAKE, "metamathqa", "countdown"],
    algo: ["ppo", "dapo", "grpo"],
    filter: [...TABLE4_FILTERS]
  }
}))
