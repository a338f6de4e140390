/**
 * quick — the `npm start` default (issue 17): the standard suite's recipe at a size that finishes
 * within 15 minutes on 2 cores from a clean clone, install included: FrozenLake, Sokoban and
 * Countdown × {none, the paper's top-p (softmax, 0.9, include zero), random at top-p's kept count}
 * × PPO, 4 seeds, plus the noise floor (`none` on another sampling stream), from the shipped warm
 * starts. It shows the statistics on a real ranking; it is too short to separate filters (see the
 * seeds-needed column); `standard` is the suite to publish.
 */
import { defineSweep } from "../../core/sweep/spec.ts"
import { FROZENLAKE, NONE, PAPER_TOP_P, QUICK, RANDOM_LIKE_PAPER_TOP_P, SOKOBAN, STANDARD } from "./_common.ts"

export default defineSweep({
  name: "quick",
  description: "FrozenLake, Sokoban, Countdown × {none, top-p 0.9 (softmax, include zero), random at its count} × PPO, 4 seeds, noise floor; shipped warm starts",
  axes: {
    env: [FROZENLAKE, SOKOBAN, "countdown"],
    algo: ["ppo"],
    filter: [NONE, PAPER_TOP_P, RANDOM_LIKE_PAPER_TOP_P],
    seeds: [...QUICK.seeds],
    lr: [STANDARD.lr]
  },
  fixed: { P: QUICK.P, G: QUICK.G, train: { ...STANDARD.train, diagEvery: QUICK.diagEvery } },
  budget: { steps: QUICK.steps, evalEvery: QUICK.evalEvery, valSeeds: QUICK.valSeeds },
  noiseFloor: true
})
