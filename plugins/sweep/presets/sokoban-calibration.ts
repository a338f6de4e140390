/**
 * sokoban-calibration — the calibration sweep behind the quick preset's regime (docs/decisions.md#issue-25;
 * docs/results/calibration.md): Sokoban, PPO from the shipped warm start, P × G = 8 × 16, 60
 * steps, validation every 10 steps on 128 instances at T = 0.5, lr {4e-4, 7e-4} × {none, linear
 * top-p 0.9 (drop zero), Table 6's Q4 (the lowest reward-variance quarter, the positive
 * control)}, seeds 1–3. Its compact records are published in
 * plugins/leaderboard/reference/calib-sokoban; the same spec re-runs them bit for bit.
 */
import { defineSweep } from "../../../core/host.ts"
import { NONE, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep({
  name: "sokoban-calibration",
  description: "regime calibration: Sokoban PPO 8x16, 60 steps, lr {4e-4, 7e-4} × {none, linear top-p 0.9, Q4 positive control}, 3 seeds",
  axes: {
    env: [SOKOBAN],
    algo: ["ppo"],
    filter: [NONE, TOP_P, { id: "quantile", options: { lo: 0.75, hi: 1 } }],
    seeds: [1, 2, 3],
    lr: [4e-4, 7e-4]
  },
  fixed: { P: 8, G: 16, train: { valTemperatures: [0.5], diagEvery: 10 } },
  budget: { steps: 60, evalEvery: 10, valSeeds: 128 }
})
