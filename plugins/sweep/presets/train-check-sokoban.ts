/**
 * train-check-sokoban — the Sokoban half of train-check (docs/decisions.md#issue-5): from a stronger SFT start than
 * train-check's (2,000 steps on ε = 0.5 teacher traces, docs/design.md §10's SFT budget; one warm start
 * shared by the seeds), do PPO and GRPO raise validation success within 100 steps? lr 1e-4, no
 * filter, 3 seeds. With train-check's 500-step start (validation success 0.17, plan consistency
 * 0.14) neither lr 1e-4 nor 1e-3 moved it in 100 steps (benchmarks/results/train.md).
 */
import { defineSweep } from "../../../core/host.ts"
import trainCheck from "./train-check.ts"
import { LR, PAPER, SOKOBAN } from "./_common.ts"

export default defineSweep({
  ...trainCheck,
  name: "train-check-sokoban",
  description: "PPO and GRPO from a 2,000-step SFT start (ε = 0.5), lr 1e-4, Sokoban, 3 seeds, no filter, 100 steps",
  axes: { ...trainCheck.axes, env: [SOKOBAN], lr: [LR.stable] },
  fixed: { ...trainCheck.fixed, train: { ...trainCheck.fixed?.train, sftSteps: PAPER.sftSteps } },
  budget: { ...trainCheck.budget, steps: 100 }
})
