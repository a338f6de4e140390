/**
 * Shared pieces of the sweep presets, and the calibration knobs in one place.
 * QUICK is sized so that `npm start` (the quick preset, 2 workers) finishes within 15 minutes
 * on the 2-core reference machine; PAPER is the small-scale version of the paper's tables.
 * Learning rates: 1e-4 is stable and 1e-3 is the noisy regime where collapse shows (DESIGN.md §10).
 */
import type { SweepSpecInput } from "../../core/sweep/spec.ts"

export const LR = { stable: 1e-4, noisy: 1e-3 } as const

/** Calibration of the quick preset (measured wall time in benchmarks/RESULTS.md; at most 15 min on 2 cores). */
export const QUICK = {
  steps: 40,
  evalEvery: 10,
  valSeeds: 256,
  P: 8,
  G: 8,
  sftSteps: 400,
  /** One SFT warm start per env, shared by the seeds (the seeds vary the RL). */
  sftSeed: 1,
  diagEvery: 5
} as const

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

/** The SFT start leaves room to improve: teacher action noise ε = 0.5 (ε = 0 saturates, §10). */
export const SFT_START = { sftSteps: PAPER.sftSteps, teacherEpsilon: 0.5 } as const

export const NONE = "none"
export const TOP_P = { id: "top-p", options: { p: 0.9 } } as const
/** The control: a random subset of the size top-p 0.9 keeps on the same batch. */
export const RANDOM_LIKE_TOP_P = { id: "random", options: { like: "top-p", p: 0.9 } } as const

/** FrozenLake as in the paper's main tables (deterministic, s = 1). */
export const FROZENLAKE = { id: "frozenlake", options: { successRate: 1 } } as const
export const SOKOBAN = "sokoban"

/** The paper-scale spec skeleton: budgets, SFT start, both learning rates, two seeds. */
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
