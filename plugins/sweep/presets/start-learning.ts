/**
 * start-learning — does RL without a filter rise above each env's strong warm start, the one at
 * ≥ 0.5 of its teacher's validation success (docs/decisions.md#issue-26)? The standard suite's RL
 * recipe (PPO, P × G = 8 × 16, 40 steps, validation every 10 steps on 128 instances at T = 0.5)
 * and its per-env lr, no filter, 8 seeds: the exact sign-flip test of the rise can reach
 * p ≤ 0.05 from 6 seeds on. Records: plugins/leaderboard/reference/start-learning; table:
 * docs/results/learning.md.
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, fromStart, NONE, STANDARD } from "./_common.ts"

export const START_LEARNING_ENVS = [
  fromStart("sokoban", "sokoban-tiny", 2e-4),
  fromStart(FROZENLAKE, "frozenlake-tiny", 2e-4),
  fromStart("countdown", "countdown-tiny-stage2", 1e-4),
  // v2 (column by column) on half of the training instances: from no v1 start at ≥ 0.5 does RL
  // rise (experiments/arithmetic-sft/README.md), so this row is the env's current version, not the suite's v1.
  fromStart("metamathqa-v2", "metamathqa-v2-tiny-half-2500", 1e-4),
  fromStart("searchqa", "searchqa-tiny", 1e-4),
  fromStart("webshop", "webshop-v2-tiny", 1e-4)
]

export default defineSweep({
  name: "start-learning",
  description: "6 envs from their strong warm starts (≥ 0.5 of the teacher) × none × PPO, 8×16, 40 steps, the standard suite's lr, 8 seeds",
  axes: { env: START_LEARNING_ENVS, algo: ["ppo"], filter: [NONE], seeds: [1, 2, 3, 4, 5, 6, 7, 8] },
  fixed: { P: STANDARD.P, G: STANDARD.G, train: { ...STANDARD.train } },
  budget: { steps: STANDARD.steps, evalEvery: STANDARD.evalEvery, valSeeds: STANDARD.valSeeds }
})
