/**
 * Paper Table 6: keep one reward-variance quartile of the prompts per step (25%, P=8, G=16)
 * on Sokoban; Q1 = highest RV. The quantile filter ranks groups by spread, highest first, so
 * [0, 0.25) is Q1. Controls: no filter and a random 25%.
 */
import { defineSweep } from "../../../core/host.ts"
import { CLAIM_SEEDS, NONE, paperSpec, SOKOBAN } from "./_common.ts"

const q = (i: number) => ({ id: "quantile", options: { lo: i * 0.25, hi: (i + 1) * 0.25 } })

export default defineSweep(
  paperSpec({
    name: "table6",
    description: "quantile filter Q1–Q4 (25% of prompts each) vs none vs random 25% on Sokoban, PPO",
    axes: {
      env: [SOKOBAN],
      seeds: CLAIM_SEEDS,
      algo: ["ppo"],
      filter: [NONE, q(0), q(1), q(2), q(3), { id: "random", options: { ratio: 0.25 } }]
    }
  })
)
