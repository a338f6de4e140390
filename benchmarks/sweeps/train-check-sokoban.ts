/**
 * train-check-sokoban — the Sokoban half of train-check (issue 5) with a longer budget (100 steps)
 * and lr 1e-3: at train-check's lr 1e-4, PPO on seed 1 did not move Sokoban's validation success
 * in 100 steps (0.17 → 0.11; benchmarks/results/train.md). Same SFT start (ε = 0.5, one warm start
 * shared by the seeds), PPO and GRPO, 3 seeds, no filter.
 */
import { defineSweep } from "../../core/sweep/spec.ts"
import trainCheck from "./train-check.ts"
import { LR, SOKOBAN } from "./_common.ts"

export default defineSweep({
  ...trainCheck,
  name: "train-check-sokoban",
  description: "PPO and GRPO from the SFT start (ε = 0.5), lr 1e-3, Sokoban, 3 seeds, no filter, 100 steps",
  axes: { ...trainCheck.axes, env: [SOKOBAN], lr: [LR.noisy] },
  budget: { ...trainCheck.budget, steps: 100 }
})
