/**
 * Paper Table 7: prompt-level top-p vs trajectory-level filtering (within-group, half of each
 * group: 64 of 128 trajectories per update, as in the table) vs none, on Sokoban.
 */
import { defineSweep } from "../../../core/host.ts"
import { CLAIM_SEEDS, NONE, paperSpec, RANDOM_LIKE_TOP_P, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep(
  paperSpec({
    name: "table7",
    description: "none vs prompt-level top-p 0.9 vs trajectory-level within-group (rho 0.5) vs random, Sokoban, PPO",
    axes: {
      env: [SOKOBAN],
      seeds: CLAIM_SEEDS,
      algo: ["ppo"],
      filter: [NONE, TOP_P, { id: "within-group", options: { rho: 0.5 } }, RANDOM_LIKE_TOP_P]
    }
  })
)
