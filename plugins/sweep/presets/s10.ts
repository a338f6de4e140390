/**
 * s10 — docs/design.md §10's noisy regime at its own settings: FrozenLake (s = 1), GRPO, lr 1e-3,
 * P = 8, G = 16, an SFT start of 2,000 steps on ε = 0.5 teacher traces, none vs top-p 0.9 vs
 * the random control; token-mean loss as §10 used (GRPO's own default is seq-mean-token-mean,
 * the paper's), minibatches of 32 trajectories (the trainer's default). 5 seeds and 256
 * validation seeds, so that the paired difference top-p − none at step 40 has an interval
 * (`bun plugins/leaderboard/analysis/paired.ts <out>`); the SFT start is shared by the runs (and by s10-stable with
 * the same --out).
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, LR, NONE, RANDOM_LIKE_TOP_P, TOP_P } from "./_common.ts"

export default defineSweep({
  name: "s10",
  description: "§10 at its settings: FrozenLake GRPO (token-mean) lr 1e-3, P=8 G=16, SFT 2000 steps (ε = 0.5), none vs top-p 0.9 vs random, 5 seeds",
  axes: { env: [FROZENLAKE], algo: ["grpo"], filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P], seeds: [1, 2, 3, 4, 5], lr: [LR.noisy] },
  fixed: { P: 8, G: 16, train: { sftSteps: 2000, sftSeed: 1, teacherEpsilon: 0.5, diagEvery: 10, lossAgg: "token-mean" } },
  budget: { steps: 40, evalEvery: 10, valSeeds: 256 }
})
