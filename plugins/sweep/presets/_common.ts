/**
 * Shared pieces of the sweep presets, and the calibration knobs in one place.
 * QUICK is `npm start`'s recipe (the positive-control demonstration, 2 workers, within 15 minutes
 * on the 2-core reference machine); PAPER is the small-scale version of the paper's tables.
 * Learning rates: 1e-4 is stable and 1e-3 is the noisy regime where collapse shows (docs/design.md §10).
 */
import type { SweepSpecInput } from "../../../core/host.ts"

export const LR = { stable: 1e-4, noisy: 1e-3 } as const

/**
 * The quick preset (`npm start`): the positive-control demonstration on Sokoban, calibrated in
 * docs/results/calibration.md (PPO, 8 × 16, lr 4e-4: no filter peaks, the lowest-spread quartile
 * collapses). Nine seeds so that the control can pass Holm's first threshold α/4 with the exact
 * sign-flip test even with one small wrong-signed delta (smallest p at 9 pairs 2/2⁹ = 0.0039;
 * one flipped sign of the smallest delta 4/2⁹ = 0.0078 < 0.05/4). ≤ 15 min on 2 cores, install
 * included: benchmarks/results/quick.md.
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
/**
 * MetaMathQA v1 (the teacher writes whole results): the suite's and the paper presets' published
 * records were run on it, and "metamathqa" names v2 since issue 26 (docs/decisions.md#issue-26).
 */
export const METAMATHQA_V1 = "metamathqa-v1"

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

/** The control at Q4's kept count (a quarter of the groups), to tell Q4's selection from its smaller update (issue 39). */
export const RANDOM_LIKE_Q4 = { id: "random", options: { like: "quantile", lo: 0.75, hi: 1 }, label: "random (Q4's count)" } as const

/** The paper's top-p (Table 4, the reference script): softmax over group reward spreads, p = 0.9, zero-spread groups included. */
export const PAPER_TOP_P = { id: "top-p-softmax", options: { p: 0.9, includeZero: true }, label: "top-p 0.9 (softmax, include zero)" } as const
/** The control at the paper top-p's kept count on each batch. */
export const RANDOM_LIKE_PAPER_TOP_P = { id: "random", options: { like: "top-p-softmax", p: 0.9, includeZero: true }, label: "random (top-p's count)" } as const

/**
 * The standard suite of issue 17 (docs/decisions.md#issue-17), superseded by issue 25's: 8 × 8,
 * lr 3e-4 (1e-4 for the arithmetic envs), the strong warm starts, 5 seeds. Kept for fig3 and the
 * records published under it (plugins/leaderboard/reference/standard-v1), which it re-runs bit for bit.
 */
export const STANDARD_V1 = {
  steps: 40,
  evalEvery: 10,
  valSeeds: 128,
  P: 8,
  G: 8,
  lr: 3e-4,
  seeds: [1, 2, 3, 4, 5],
  train: { valTemperatures: [0.5], diagEvery: 10 }
} as const

/** An env (an id, or an entry with options) started from a named shipped warm start (plugins/tinylm/warmstarts/recipes.ts) at an lr. */
export const fromStart = (env: string | typeof FROZENLAKE, warmStart: string, lr: number) => ({ ...(typeof env === "string" ? { id: env } : env), set: { lr, "train.warmStart": warmStart } })

/**
 * The six envs of the standard suite (docs/decisions.md#issue-25), each from a warm start whose
 * validation success is 20–70% of its teacher's and at the lr the suite calibration sweep chose
 * (docs/results/calibration.md §3: the lr where no filter still rises over 40 steps and the
 * positive control Q4 falls below it on every calibration seed).
 */
export const STANDARD_ENVS = {
  sokoban: fromStart("sokoban", "sokoban-tiny-headroom", 2e-4),
  frozenlake: fromStart(FROZENLAKE, "frozenlake-tiny-headroom", 2e-4),
  metamathqa: fromStart(METAMATHQA_V1, "metamathqa-tiny", 1e-4),
  countdown: fromStart("countdown", "countdown-tiny", 1e-4),
  searchqa: fromStart("searchqa", "searchqa-tiny-headroom", 1e-4),
  webshop: fromStart("webshop", "webshop-v2-tiny", 1e-4)
}
export const SIX_ENVS = Object.values(STANDARD_ENVS)

/**
 * The standard suite's RL recipe (docs/results/calibration.md): PPO from the headroom warm
 * starts, P × G = 8 × 16 (Table 4), 40 steps, validation every 10 steps on 128 validation
 * instances at T = 0.5 (256 would add about 8% to a 2.5-hour budget), MI diagnostics every 10 steps.
 * Eleven seeds: the page tests 4 filters against none on 6 envs (Holm over 24), and at 11 pairs
 * the exact sign-flip test passes the first threshold 0.05/24 = 0.00208 even when the smallest
 * difference has the wrong sign (4/2¹¹ = 0.00195); 10 pairs need every sign right. Twelve (two
 * wrong signs) measured about 2 h 25 min on the 2-core machine, more than a session can run and publish.
 */
export const STANDARD = {
  steps: 40,
  evalEvery: 10,
  valSeeds: 128,
  P: 8,
  G: 16,
  seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  train: { valTemperatures: [0.5], diagEvery: 10 }
} as const
