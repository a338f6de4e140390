/**
 * quick — the `npm start` default (issues 17, 25): the positive-control demonstration. Sokoban,
 * PPO from the shipped warm start, P × G = 8 × 16, lr 4e-4, 40 steps, validation every 10 steps
 * on 128 instances at T = 0.5, nine seeds, in the regime the calibration sweep found where
 * filters act (docs/results/calibration.md): no filter rises and starts to sag, Table 6's Q4
 * (keep only the lowest reward-variance quarter) collapses. Filters: none, the paper's top-p
 * (softmax 0.9, include zero), Table 9's linear top-p 0.9 (drop zero), the random control at
 * linear top-p's kept count, and the positive control Q4; plus the noise floor. The page must
 * separate Q4 below none at its Holm level and mark no noise-floor cell; that is the suite's
 * power, shown in ≤ 15 minutes on 2 cores. It is not a slice of `standard`.
 */
import { defineSweep } from "../../../core/host.ts"
import { LINEAR_TOP_P, NONE, PAPER_TOP_P, POSITIVE_CONTROL_Q4, QUICK, RANDOM_LIKE_LINEAR_TOP_P, SOKOBAN } from "./_common.ts"

export default defineSweep({
  name: "quick",
  description:
    "positive control on Sokoban: {none, top-p 0.9 (softmax, include zero), top-p 0.9 (linear, drop zero), random at its count, Q4 lowest-spread quarter} × PPO, 8×16, lr 4e-4, 40 steps, 9 seeds, noise floor",
  axes: {
    env: [SOKOBAN],
    algo: ["ppo"],
    filter: [NONE, PAPER_TOP_P, LINEAR_TOP_P, RANDOM_LIKE_LINEAR_TOP_P, POSITIVE_CONTROL_Q4],
    seeds: [...QUICK.seeds],
    lr: [QUICK.lr]
  },
  fixed: { P: QUICK.P, G: QUICK.G, train: { valTemperatures: [0.5], diagEvery: 10 } },
  budget: { steps: QUICK.steps, evalEvery: QUICK.evalEvery, valSeeds: QUICK.valSeeds },
  noiseFloor: true
})
