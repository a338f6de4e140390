/**
 * quick — the `npm start` default (docs/decisions.md#issue-17): a slice of the standard suite (its recipe exactly,
 * so its runs are standard's runs and share their folders and ids) that finishes within 15
 * minutes on 2 cores from a clean clone, install included: FrozenLake, Sokoban and
 * Countdown × {none, the paper's top-p (softmax, 0.9, include zero), random at top-p's kept count}
 * × PPO, 4 seeds, plus the noise floor (`none` on another sampling stream), from the shipped warm
 * starts. It shows the statistics on a real ranking; it is too short to separate filters (see the
 * seeds-needed column); `standard` is the suite to publish.
 */
import { defineSweep } from "../../../core/sweep/spec.ts"
import { NONE, PAPER_TOP_P, QUICK_SEEDS, RANDOM_LIKE_PAPER_TOP_P, STANDARD, STANDARD_ENVS } from "./_common.ts"

export default defineSweep({
  name: "quick",
  description: "FrozenLake, Sokoban, Countdown × {none, top-p 0.9 (softmax, include zero), random at its count} × PPO, 4 seeds, noise floor; shipped warm starts",
  axes: {
    env: [STANDARD_ENVS.frozenlake, STANDARD_ENVS.sokoban, STANDARD_ENVS.countdown],
    algo: ["ppo"],
    filter: [NONE, PAPER_TOP_P, RANDOM_LIKE_PAPER_TOP_P],
    seeds: [...QUICK_SEEDS],
    lr: [STANDARD.lr]
  },
  fixed: { P: STANDARD.P, G: STANDARD.G, train: { ...STANDARD.train } },
  budget: { steps: STANDARD.steps, evalEvery: STANDARD.evalEvery, valSeeds: STANDARD.valSeeds },
  noiseFloor: true
})
