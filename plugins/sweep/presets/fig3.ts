/**
 * fig3 — the paper's Fig. 3 on ragen-bench (claim C7 of docs/replication.md): the gradient
 * decomposition by reward-spread bucket (train.gradDecompEvery; core/train/grad-decomp.ts) on the
 * standard suite's recipe, Sokoban and FrozenLake, no filter, 3 seeds. Decomposition every 10
 * steps, at the evaluation steps, so compact records keep it.
 */
import { defineSweep } from "../../../core/sweep/spec.ts"
import { FROZENLAKE, NONE, SOKOBAN, STANDARD } from "./_common.ts"

export default defineSweep({
  name: "fig3",
  description: "gradient norm by reward-spread bucket (task vs regularizer), Sokoban + FrozenLake, PPO, no filter, 3 seeds",
  axes: { env: [SOKOBAN, FROZENLAKE], algo: ["ppo"], filter: [NONE], seeds: [1, 2, 3], lr: [STANDARD.lr] },
  fixed: { P: STANDARD.P, G: STANDARD.G, train: { ...STANDARD.train, gradDecompEvery: 10 } },
  budget: { steps: STANDARD.steps, evalEvery: STANDARD.evalEvery, valSeeds: STANDARD.valSeeds }
})
