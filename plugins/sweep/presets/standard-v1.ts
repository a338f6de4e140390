/**
 * standard-v1 — the standard suite of issue 17 (docs/decisions.md#issue-17), superseded by issue 25's `standard`;
 * kept so that its published records (plugins/leaderboard/reference/standard-v1) re-run bit for bit: all six envs × {none, the paper's top-p (Table 4:
 * softmax, 0.9, include zero), random at top-p's kept count} × PPO, 5 seeds, plus the noise floor
 * (`none` on another sampling stream). Every run starts from its env's shipped warm start (one per
 * env, shared by the seeds) and the run seed chooses the training instances, so runs that share a
 * seed are paired. The RL recipe and why: docs/standard-suite.md; wall time: benchmarks/results/standard.md.
 *
 * PPO runs with the reference's dual clip (c = 3), as the paper's code. Whether the dual clip hides
 * §10's top-p advantage at this scale is unsettled (docs/decisions.md#issue-14 found so under semantics 2; under
 * semantics 3 the s10 presets say the opposite: docs/standard-suite.md); the suite's noise floor
 * and seeds-needed column say what it can detect.
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, METAMATHQA_V1, NONE, PAPER_TOP_P, RANDOM_LIKE_PAPER_TOP_P, SOKOBAN, STANDARD_V1 } from "./_common.ts"

/** Issue 17's envs: lr 3e-4, but 1e-4 for the arithmetic envs (Countdown 39.4 → 27.7 over 40 steps at 3e-4); WebShop v1, the pages it ran on. */
const V1_ENVS = [SOKOBAN, FROZENLAKE, { id: METAMATHQA_V1, set: { lr: 1e-4 } }, { id: "countdown", set: { lr: 1e-4 } }, "searchqa", "webshop-v1"]

export default defineSweep({
  name: "standard-v1",
  description: "issue 17's standard (superseded): 6 envs × {none, top-p 0.9 (softmax, include zero), random at its count} × PPO, 5 seeds, noise floor; shipped warm starts",
  axes: {
    env: V1_ENVS,
    algo: ["ppo"],
    filter: [NONE, PAPER_TOP_P, RANDOM_LIKE_PAPER_TOP_P],
    seeds: [...STANDARD_V1.seeds],
    lr: [STANDARD_V1.lr]
  },
  fixed: { P: STANDARD_V1.P, G: STANDARD_V1.G, train: { ...STANDARD_V1.train } },
  budget: { steps: STANDARD_V1.steps, evalEvery: STANDARD_V1.evalEvery, valSeeds: STANDARD_V1.valSeeds },
  noiseFloor: true
})
