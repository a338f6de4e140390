/**
 * quick — the `npm start` default: does SNR-aware filtering (top-p 0.9) beat no filter and
 * the random control at the noisy learning rate? FrozenLake and Sokoban, GRPO, 2 seeds,
 * SFT start with teacher ε = 0.5. Budgets in _common.ts QUICK (≤ 15 min with 2 workers).
 */
import { defineSweep } from "../../core/sweep/spec.ts"
import { FROZENLAKE, LR, NONE, QUICK, RANDOM_LIKE_TOP_P, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep({
  name: "quick",
  description: "none vs top-p 0.9 vs random (same kept count), GRPO at lr 1e-3, FrozenLake + Sokoban, 2 seeds",
  axes: {
    env: [FROZENLAKE, SOKOBAN],
    algo: ["grpo"],
    filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P],
    seeds: [1, 2],
    lr: [LR.noisy]
  },
  fixed: {
    P: QUICK.P,
    G: QUICK.G,
    train: { sftSteps: QUICK.sftSteps, sftSeed: QUICK.sftSeed, teacherEpsilon: 0.5, diagEvery: QUICK.diagEvery }
  },
  budget: { steps: QUICK.steps, evalEvery: QUICK.evalEvery, valSeeds: QUICK.valSeeds }
})
