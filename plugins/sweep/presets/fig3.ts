/**
 * fig3 — the paper's Fig. 3 on ragen-bench (claim C7 of docs/replication.md): the gradient
 * decomposition by reward-spread bucket (train.gradDecompEvery; core/train/grad-decomp.ts) on the
 * issue-17 standard suite's recipe (STANDARD_V1), Sokoban and FrozenLake, no filter, 3 seeds. Decomposition every 10
 * steps, at the evaluation steps, so compact records keep it.
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, NONE, SOKOBAN, STANDARD_V1 } from "./_common.ts"

export default defineSweep({
  name: "fig3",
  description: "gradient norm by reward-spread bucket (task vs regularizer), Sokoban + FrozenLake, PPO, no filter, 3 seeds",
  axes: { env: [SOKOBAN, FROZENLAKE], algo: ["ppo"], filter: [NONE], seeds: [1, 2, 3], lr: [STANDARD_V1.lr] },
  fixed: { P: STANDARD_V1.P, G: STANDARD_V1.G, train: { ...STANDARD_V1.train, gradDecompEvery: 10 } },
  budget: { steps: STANDARD_V1.steps, evalEvery: STANDARD_V1.evalEvery, valSeeds: STANDARD_V1.valSeeds }
})
