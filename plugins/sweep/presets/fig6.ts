/**
 * Paper Fig. 6: top-p vs top-k vs no filter across four envs (random control at top-p's size).
 * top-k as the reference's filtering runs (scripts/runs/run_filtering_final.sh: top_k 0.25,
 * largest, include_zero False).
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, METAMATHQA_V1, NONE, paperSpec, RANDOM_LIKE_TOP_P, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep(
  paperSpec({
    name: "fig6",
    description: "top-p 0.9 vs top-k 0.25 vs none vs random, Sokoban, FrozenLake, MetaMathQA, Countdown, PPO",
    axes: {
      env: [SOKOBAN, FROZENLAKE, METAMATHQA_V1, "countdown"],
      algo: ["ppo"],
      filter: [NONE, TOP_P, { id: "top-k", options: { k: 0.25, includeZero: false } }, RANDOM_LIKE_TOP_P]
    }
  })
)
