/**
 * What `leaderboard verify` may spend re-running a received config: a config from someone else's
 * results could ask for 10^9 steps at P × G = 4096 × 64, or 10^9 validation seeds, SFT steps or
 * epochs. Every loop the config controls is counted (RL steps, epochs, SFT steps and teacher
 * turns, rollouts, validation episodes per evaluation and temperature, diagnostic rows, turns and
 * tokens per turn), from the raw config before anything is built. Above any limit the run is not
 * re-run (a refusal naming the numbers) unless the user raises the limit with its flag.
 */
import type { RunConfig } from "../../core/host.ts"

export interface RerunBudget {
  /** Optimizer steps of one re-run: RL steps × epochs + SFT steps (`--max-steps`). */
  readonly steps: number
  /** Trajectories per step, P × G (`--max-pg`). */
  readonly pg: number
  /** Tokens generated or trained on at most: rollouts, validation, diagnostics, epochs and SFT, each × turns × tokens per turn (`--max-tokens`). */
  readonly tokens: number
  /** Episodes played: rollouts (steps × P × G) plus validation episodes (evaluations × seeds × temperatures × samples) (`--max-episodes`). */
  readonly episodes: number
}

/** Well above the shipped suites (the standard suite's largest run: 40 steps × 64 × 5 turns × 108 tokens ≈ 1.4e6 rollout tokens). */
export const DEFAULT_RERUN_BUDGET: RerunBudget = { steps: 10_000, pg: 1024, tokens: 1e9, episodes: 1e7 }

/** Turns and tokens per turn when a config does not record them (older results): generous guesses. */
const FALLBACK_TURNS = 5
const FALLBACK_TOKENS = 256

/** A count from the raw config: a finite non-negative number, else the trainer's default `d`. */
const count = (v: unknown, d: number): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : d)
const atLeast1 = (v: unknown, d: number): number => Math.max(1, count(v, d))

/** What one re-run of `config` would spend, in the budget's units (defaults: core/train/options.ts). */
export const rerunCost = (config: RunConfig): RerunBudget => {
  const t = (config.train ?? {}) as Record<string, unknown>
  const steps = count(config.steps, 200)
  const pg = atLeast1(config.P, 8) * atLeast1(config.G, 16)
  const perEpisode = atLeast1(t.maxTurns, FALLBACK_TURNS) * atLeast1(t.maxTokens, FALLBACK_TOKENS)
  const epochs = atLeast1(t.epochs, 1)
  const sftSteps = count(t.sftSteps, 0)
  // Evaluations: every evalEvery steps and at the end (evalEvery 0: the end only).
  const evalEvery = count(t.evalEvery, 10)
  const evals = (evalEvery > 0 ? Math.floor(steps / evalEvery) : 0) + 2
  const temps = Array.isArray(t.valTemperatures) ? Math.max(1, t.valTemperatures.length) : 2
  const valEpisodes = evals * count(t.valSeeds, 256) * temps * atLeast1(t.evalSamples, 4)
  const diagEvery = count(t.diagEvery, 5)
  const diagRows = (diagEvery > 0 ? Math.floor(steps / diagEvery) + 1 : 0) * count(t.diagRows, 128)
  const rollouts = steps * pg
  const sftTokens = sftSteps > 0 ? (sftSteps * atLeast1(t.sftBatch, 64) + atLeast1(t.sftTurns, 16384)) * atLeast1(t.maxTokens, FALLBACK_TOKENS) : 0
  return {
    steps: steps * epochs + sftSteps,
    pg,
    tokens: (rollouts * (1 + epochs) + valEpisodes + diagRows) * perEpisode + sftTokens,
    episodes: rollouts + valEpisodes
  }
}

/** Why a re-run exceeds the budget (naming the numbers and the flag), or "" when it fits. */
export const overBudget = (config: RunConfig, budget: RerunBudget): string => {
  const c = rerunCost(config)
  const t = (config.train ?? {}) as Record<string, unknown>
  const over: string[] = []
  if (c.steps > budget.steps) over.push(`optimizer steps ${c.steps} (steps ${config.steps} × epochs ${count(t.epochs, 1)} + SFT steps ${count(t.sftSteps, 0)}) > ${budget.steps} (--max-steps)`)
  if (c.pg > budget.pg) over.push(`P × G ${config.P} × ${config.G} = ${c.pg} > ${budget.pg} (--max-pg)`)
  if (c.episodes > budget.episodes)
    over.push(`${c.episodes.toExponential(2)} episodes (rollouts and validation: valSeeds ${count(t.valSeeds, 256)}) > ${budget.episodes.toExponential(2)} (--max-episodes)`)
  if (c.tokens > budget.tokens) over.push(`up to ${c.tokens.toExponential(2)} tokens generated or trained on > ${budget.tokens.toExponential(2)} (--max-tokens)`)
  return over.join(", ")
}
