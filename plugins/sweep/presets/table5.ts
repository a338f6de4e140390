/**
 * Paper Table 5: group shape P×G at a fixed budget of 128 trajectories per step, with and
 * without the filter, on Sokoban. PPO (the paper's baseline): GRPO needs G ≥ 2 and 128×1
 * has no within-prompt variance to filter on.
 */
import { defineSweep } from "../../../core/host.ts"
import { NONE, paperSpec, RANDOM_LIKE_TOP_P, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep(
  paperSpec({
    name: "table5",
    description: "P×G ∈ {128×1, 64×2, 32×4, 8×16} × {none, top-p 0.9, random} on Sokoban, PPO",
    axes: {
      env: [SOKOBAN],
      algo: ["ppo"],
      filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P],
      PG: [
        { P: 128, G: 1 },
        { P: 64, G: 2 },
        { P: 32, G: 4 },
        { P: 8, G: 16 }
      ]
    }
  })
)
