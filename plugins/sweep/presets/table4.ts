/**
 * Paper Table 4: filter vs no filter across algorithms and four envs, run as the reference's
 * script runs it (mll-lab-nu/RAGEN scripts/runs/run_main_table_diff_algo.sh, commit 2468d7c,
 * get_algo_overrides and run_experiment).
 * Algorithms, the script's four rows on the reference's base config (config/base.yaml: clip
 * 0.2 / 0.28, no KL loss, kl_coef 0, entropy 0.001, ppo_mini_batch_size 32):
 *   PPO    adv_estimator gae, token-mean                                  → ppo
 *   DAPO   gae, token-mean, clip 0.2 / 0.28, no KL ("PPO + higher clip")  → ppo with those options:
 *          the same resolved config as PPO, so the grid runs it once; the two rows are replicates
 *          of one configuration (docs/train.md). Our `dapo` (dynamic sampling, overlong shaping)
 *          is the full DAPO and is not in this table.
 *   GRPO   grpo, std normalisation, seq-mean-token-mean                   → grpo
 *   DrGRPO grpo, no std normalisation, seq-mean-token-sum                 → grpo variant dr-grpo
 * The filter axis is the script's: rollout_filter_strategy top_p with top_p_prob_mode softmax and
 * include_zero True, value 0.9 ("filter") vs 1.0 ("nofilter", which with include_zero keeps every
 * group). FrozenLake is deterministic (success_rate 1.0, as the script sets).
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, METAMATHQA_V1, paperSpec, SOKOBAN } from "./_common.ts"

/** The script's two filter arms. */
export const TABLE4_FILTERS = [
  { id: "top-p-softmax", options: { p: 1, includeZero: true }, label: "nofilter (top-p-softmax 1.0)" },
  { id: "top-p-softmax", options: { p: 0.9, includeZero: true }, label: "filter (top-p-softmax 0.9)" }
] as const

/** The script's four algorithm rows, in its order (PPO, DAPO, GRPO, DrGRPO). */
export const TABLE4_ALGOS = [
  { id: "ppo", options: {}, label: "ppo" },
  { id: "ppo", options: { clipLow: 0.2, clipHigh: 0.28, lossAgg: "token-mean" }, label: "dapo (script: ppo + clip-higher, token-mean, no KL)" },
  { id: "grpo", options: {}, label: "grpo" },
  { id: "grpo", options: { variant: "dr-grpo" }, label: "dr-grpo" }
] as const

export default defineSweep(
  paperSpec({
    name: "table4",
    description: "The reference script's rows PPO, DAPO (= PPO's settings), GRPO, DrGRPO × {top-p-softmax 1.0, 0.9; include zero} × Sokoban, FrozenLake, MetaMathQA, Countdown × lr {1e-4, 1e-3}",
    axes: {
      env: [SOKOBAN, FROZENLAKE, METAMATHQA_V1, "countdown"],
      algo: [...TABLE4_ALGOS],
      filter: [...TABLE4_FILTERS]
    },
    // No KL, as every row of the script (use_kl_loss False, kl_coef 0); the trainer's default too.
    fixed: { train: { klCoef: 0 } }
  })
)
