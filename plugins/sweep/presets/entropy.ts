/** Entropy-bonus coefficient sweep (paper Table 2: λ_ent is the other regulariser). */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, NONE, paperSpec, RANDOM_LIKE_TOP_P, SOKOBAN, TOP_P } from "./_common.ts"

export default defineSweep(
  paperSpec({
    name: "entropy",
    description: "entropyCoef ∈ {0, 0.001, 0.01, 0.05} × {none, top-p 0.9, random}, FrozenLake + Sokoban, GRPO",
    axes: {
      env: [FROZENLAKE, SOKOBAN],
      algo: ["grpo"],
      filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P],
      train: [0, 0.001, 0.01, 0.05].map((c) => ({ label: `ent=${c}`, set: { entropyCoef: c } }))
    }
  })
)
