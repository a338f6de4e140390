/** KL coefficient sweep (paper Table 2: g_reg is tunable via λ_KL): does the filter's effect survive regularisation? */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, NONE, paperSpec, RANDOM_LIKE_TOP_P, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep(
  paperSpec({
    name: "kl",
    description: "klCoef ∈ {0, 0.001, 0.01, 0.1} × {none, top-p 0.9, random}, FrozenLake + Sokoban, GRPO",
    axes: {
      env: [FROZENLAKE, SOKOBAN],
      algo: ["grpo"],
      filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P],
      train: [0, 0.001, 0.01, 0.1].map((c) => ({ label: `kl=${c}`, set: { klCoef: c } }))
    }
  })
)
