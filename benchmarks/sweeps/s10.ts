/**
 * s10 — DESIGN.md §10's noisy regime at its own settings: FrozenLake (s = 1), GRPO, lr 1e-3,
 * P = 8, G = 16, an SFT start of 2,000 steps on ε = 0.5 teacher traces, none vs top-p 0.9 vs
 * the random control. 3 seeds; the SFT start is shared by the runs (and by s10-stable with the same --out).
 * The quick preset is the cheap version of this (400 SFT steps, G = 8), whose weaker start
 * collapses faster under every filter; see benchmarks/RESULTS.md.
 */
import { defineSweep } from "../../core/sweep/spec.ts"
import { FROZENLAKE, LR, NONE, RANDOM_LIKE_TOP_P, TOP_P } from "./_common.ts"

export default defineSweep({
  name: "s10",
  description: "§10 at its settings: FrozenLake GRPO lr 1e-3, P=8 G=16, SFT 2000 steps (ε = 0.5), none vs top-p 0.9 vs random",
  axes: { env: [FROZENLAKE], algo: ["grpo"], filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P], seeds: [1, 2, 3], lr: [LR.noisy] },
  fixed: { P: 8, G: 16, train: { sftSteps: 2000, sftSeed: 1, teacherEpsilon: 0.5, diagEvery: 10 } },
  budget: { steps: 40, evalEvery: 10, valSeeds: 64 }
})
