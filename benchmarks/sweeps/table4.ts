/** Paper Table 4: filter vs no filter across algorithms (PPO, DAPO, GRPO) and four envs. */
import { defineSweep } from "../../core/sweep/spec.ts"
import { FROZENLAKE, NONE, paperSpec, RANDOM_LIKE_TOP_P, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep(paperSpec({
  name: "table4",
  description: "PPO, DAPO, GRPO × {none, top-p 0.9, random} × Sokoban, FrozenLake, MetaMathQA, Countdown × lr {1e-4, 1e-3}",
  axes: {
    env: [SOKOBAN, FROZENLAKE, "metamathqa", "countdown"],
    algo: ["ppo", "dapo", "grpo"],
    filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P]
  }
}))
