/**
 * s10-stable — docs/design.md §10's stable regime at its own settings: FrozenLake (s = 1), GRPO,
 * lr 1e-4, P = 8, G = 16, 150 steps, no filter, from the same 2,000-step SFT start on ε = 0.5
 * teacher traces as s10 (run both with the same --out and they share it). §10 reports training
 * success at T = 1 rising from ≈ 0.74 to 0.92 and reasoning–action consistency from ≈ 0.4 to 0.85.
 */
import { defineSweep } from "../../../core/host.ts"
import s10 from "./s10.ts"
import { LR, NONE } from "./_common.ts"

export default defineSweep({
  ...s10,
  name: "s10-stable",
  description: "§10 stable regime: FrozenLake GRPO lr 1e-4, P=8 G=16, 150 steps, SFT 2000 steps (ε = 0.5), no filter",
  axes: { ...s10.axes, filter: [NONE], lr: [LR.stable], seeds: [1, 2, 3] },
  budget: { ...s10.budget, steps: 150, evalEvery: 25 }
})
