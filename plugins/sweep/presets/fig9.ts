/**
 * Paper Fig. 9: FrozenLake stochasticity. Slip = 1 − successRate from 0% to 100%
 * (gymnasium's rule: intended move w.p. s, each perpendicular w.p. (1−s)/2).
 */
import { defineSweep } from "../../../core/host.ts"
import { CLAIM_SEEDS, NONE, paperSpec, RANDOM_LIKE_TOP_P, TOP_P } from "./_common.ts"

const slips = [0, 0.2, 0.5, 0.8, 1]

export default defineSweep(
  paperSpec({
    name: "fig9",
    description: "FrozenLake slip 0–100% × {none, top-p 0.9, random}, GRPO",
    axes: {
      env: slips.map((slip) => ({ id: "frozenlake", options: { successRate: 1 - slip }, label: `frozenlake slip=${slip}` })),
      seeds: CLAIM_SEEDS,
      algo: ["grpo"],
      filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P]
    },
    // The shipped FrozenLake warm start was trained at slip 0; `auto` fits only the envOptions it
    // was trained for, so without naming it every slipped run would start from scratch (success 0).
    fixed: { train: { warmStart: "frozenlake-tiny" } }
  })
)
