/**
 * Shared pieces of the sweep presets, and the calibration knobs in one place.
 * QUICK is `npm start`'s recipe (the positive-control demonstration, 2 workers, within 15 minutes
 * on the 2-core reference machine); PAPER is the small-scale version of the paper's tables.
 * Learning rates: 1e-4 is stable and 1e-3 is the noisy regime where collapse shows (docs/design.md §10).
 */
import type { SweepSpecInput } from "../../../core/sweep/spec.ts"

export const LR = { stable: 1e-4, noisy: 1e-3 } as const

/**
 * The quick preset (`npm start`): the positive-control demonstration on Sokoban, calibrated in
 * docs/results/calibration.md (PPO, 8 × 16, lr 4e-4: no filter peaks, the lowest-spread quartile
 * collapses). Nine seeds so that the control can pass Holm's first threshold α/4 with the exact
 * sign-flip test even with one small wrong-signed delta (smallest p at 9 pairs 2/2⁹ = 0.0039;
 * one flipped sign of the smallest delta 4/2⁹ = 0.0078 < 0.05/4). ≤ 15 min on 2 cores, install
 * included: benchmarks/RESULTS.md.
 */
export const QUICK = { steps: 40, evalEvery: 10, valSeeds: 128, P: 8, G: 16, lr: 4e-4, seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9] } as const

/** Budgets of the paper-table presets (§10's setting: P=8, G=16, 256 validation seeds). */
export const PAPER = {
  steps: 100,
  evalEvery: 10,
  valSeeds: 256,
  P: 8,
  G: 16,
  sftSteps: 2000,
  seeds: [1, 2]
} as const

/**
 * Seeds of the presets that back a claim in docs/replication.md (table6, table7, fig9): the
 * replication verdict needs 3 seeds in every setting (plugins/leaderboard/replication/stats.ts MIN_N).
 */
export const CLAIM_SEEDS = [1, 2, 3] as const

/**
 * The paper-table presets start from the shipped warm starts (`ragen-bench list warmstarts`;
 * train.warmStart auto): one per env, shared by the seeds, so filter comparisons are paired.
 * FrozenLake's and Sokoban's are 2,000 SFT steps at teacher ε = 0.5 (ε = 0 saturates, §10).
 */
export const SFT_START = {} as const

export const NONE = "none"
export const TOP_P = { id: "top-p", options: { p: 0.9 } } as const
/** The control: a random subset of the size top-p 0.9 keeps on the same batch. */
export const RANDOM_LIKE_TOP_P = { id: "random", options: { like: "top-p", p: 0.9 } } as const

/** FrozenLake as in the paper's main tables (deterministic, s = 1). */
export const FROZENLAKE = { id: "frozenlake", options: { successRate: 1 } } as const
export const SOKOBAN = "sokoban"

/** The paper-scale spec skeleton: budgets, the shipped warm starts, both learning rates, two seeds. */
export const paperSpec = (s: {
  name: string
  description: string
  axes: Omit<SweepSpecInput["axes"], "seeds" | "lr"> & { lr?: ReadonlyArray<number>; seeds?: ReadonlyArray<number> }
  fixed?: SweepSpecInput["fixed"]
}): SweepSpecInput => ({
  name: s.name,
  description: s.description,
  axes: { lr: [LR.stable, LR.noisy], seeds: [...PAPER.seeds], ...s.axes } as SweepSpecInput["axes"],
  fixed: { P: PAPER.P, G: PAPER.G, ...s.fixed, train: { ...SFT_START, ...s.fixed?.train } },
  budget: { steps: PAPER.steps, evalEvery: PAPER.evalEvery, valSeeds: PAPER.valSeeds }
})

/** Table 9's linear top-p 0.9 with zero-spread groups dropped, labelled apart from the paper's softmax top-p on a page holding both. */
export const LINEAR_TOP_P = { ...TOP_P, label: "top-p 0.9 (linear, drop zero)" } as const
/** The control at linear top-p's kept count, labelled to match LINEAR_TOP_P. */
export const RANDOM_LIKE_LINEAR_TOP_P = { ...RANDOM_LIKE_TOP_P, label: "random (linear top-p's count)" } as const
/**
 * The positive control: keep only the lowest reward-variance quartile of the groups (Table 6's
 * Q4, which the paper reports hurts). A suite that cannot separate it below `none` cannot rank filters.
 */
export const POSITIVE_CONTROL_Q4 = { id: "quantile", options: { lo: 0.75, hi: 1 }, label: "Q4 (lowest-spread quarter, positive control)" } as const

/** The paper's top-p (Table 4, the reference script): softmax over group reward spreads, p = 0.9, zero-spread groups included. */
export const PAPER_TOP_P = { id: "top-p-softmax", options: { p: 0.9, includeZero: true }, label: "top-p 0.9 (softmax, include zero)" } as const
/** The control at the paper top-p's kept count on each batch. */
export const RANDOM_LIKE_PAPER_TOP_P = { id: "random", options: { like: "top-p-softmax", p: 0.9, includeZero: true }, label: "random (top-p's count)" } as const

/**
 * The six envs of the standard suite with their RL recipes (the paper's order of Table 4, then
 * the rest): lr 3e-4 (STANDARD.lr) unless set here. The single-turn arithmetic envs lose
 * validation success at 3e-4 (Countdown 39.4 → 27.7 over 40 steps, 5 seeds) and rise at 1e-4
 * (benchmarks/RESULTS.md, "Standard suite").
 */
export const STANDARD_ENVS = {
  sokoban: SOKOBAN,
  frozenlake: FROZENLAKE,
  metamathqa: { id: "metamathqa", set: { lr: 1e-4 } },
  countdown: { id: "countdown", set: { lr: 1e-4 } },
  searchqa: "searchqa",
  webshop: "webshop"
} as const
export const SIX_ENVS = Object.values(STANDARD_ENVS)

/**
 * The standard suite's RL recipe (docs/standard-suite.md): PPO from the shipped warm start,
 * P × G = 8 × 8, validation every 10 steps on 128 validation instances at T = 0.5 (the headline;
 * T = 1.0 is left out to halve validation time), MI diagnostics every 10 steps.
 */
export const STANDARD = {
  steps: 40,
  evalEvery: 10,
  valSeeds: 128,
  P: 8,
  G: 8,
  lr: 3e-4,
  seeds: [1, 2, 3, 4, 5],
  train: { valTemperatures: [0.5], diagEvery: 10 }
} as const
