/**
 * train-check — the trainer's learning experiment (docs/decisions.md#issue-5) and docs/design.md §10's stable regime:
 * from the SFT start (teacher ε = 0.5, one warm start per env shared by all seeds), do PPO and
 * GRPO raise validation success on deterministic FrozenLake? lr 1e-4, no filter, 3 seeds.
 * Sokoban, which needs a stronger SFT start, has its own preset (train-check-sokoban.ts). Sized
 * for the 2-core machine (P = 8, G = 8, 60 steps, 64 validation seeds); the figures are in
 * benchmarks/results/train.md. `--dry-run` gives the estimate.
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, LR, NONE } from "./_common.ts"

export default defineSweep({
  name: "train-check",
  description: "PPO and GRPO from the SFT start (ε = 0.5), lr 1e-4, FrozenLake, 3 seeds, no filter",
  axes: {
    env: [FROZENLAKE],
    algo: ["ppo", "grpo"],
    filter: [NONE],
    seeds: [1, 2, 3],
    lr: [LR.stable]
  },
  fixed: {
    P: 8,
    G: 8,
    train: { sftSteps: 500, sftSeed: 1, teacherEpsilon: 0.5, diagEvery: 10 }
  },
  budget: { steps: 60, evalEvery: 10, valSeeds: 64 }
})
