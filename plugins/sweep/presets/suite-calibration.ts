/**
 * suite-calibration — the calibration sweep behind `standard`'s per-env learning rates
 * (docs/decisions.md#issue-25; docs/results/calibration.md §3): each env from its headroom warm
 * start (Countdown and MetaMathQA: their shipped starts, already 34–39% of the teacher), PPO,
 * P × G = 8 × 16, 40 steps, validation every 10 steps on 128 instances at T = 0.5, two learning
 * rates per env × {none, the positive control Q4}, seeds 1–3. The standard suite keeps the lr at
 * which none still rises and Q4 falls below it on every seed; the chosen cells' runs are the
 * standard suite's own (same configs, same run ids). Records: plugins/leaderboard/reference/calib-suite.
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, fromStart, METAMATHQA_V1, NONE, POSITIVE_CONTROL_Q4 } from "./_common.ts"

const at = (env: string | typeof FROZENLAKE, warmStart: string, lrs: ReadonlyArray<number>) => lrs.map((lr) => fromStart(env, warmStart, lr))

export default defineSweep({
  name: "suite-calibration",
  description: "per-env lr calibration of standard: 6 envs from headroom starts × 2–3 lrs × {none, Q4 positive control} × PPO, 8×16, 40 steps, 3 seeds",
  axes: {
    env: [
      ...at("sokoban", "sokoban-tiny-headroom", [2e-4, 4e-4]),
      ...at(FROZENLAKE, "frozenlake-tiny-headroom", [2e-4, 4e-4]),
      ...at("searchqa", "searchqa-tiny-headroom", [1e-4, 2e-4, 4e-4]),
      ...at("webshop", "webshop-v2-tiny-headroom", [1e-4, 2e-4]),
      ...at("countdown", "countdown-tiny", [1e-4, 2e-4]),
      ...at(METAMATHQA_V1, "metamathqa-tiny", [1e-4, 2e-4])
    ],
    algo: ["ppo"],
    filter: [NONE, POSITIVE_CONTROL_Q4],
    seeds: [1, 2, 3]
  },
  fixed: { P: 8, G: 16, train: { valTemperatures: [0.5], diagEvery: 10 } },
  budget: { steps: 40, evalEvery: 10, valSeeds: 128 }
})
