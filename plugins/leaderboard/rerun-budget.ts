/**
 * What `leaderboard verify` may spend re-running a received config: a config from someone else's
 * results could ask for 10^9 steps at P × G = 4096 × 64. Above any of these limits the run is not
 * re-run (a refusal naming the numbers) unless the user raises the limit with a flag.
 */
import type { RunConfig } from "../../core/host.ts"

export interface RerunBudget {
  /** Training steps of one re-run (`--max-steps`). */
  readonly steps: number
  /** Trajectories per step, P × G (`--max-pg`). */
  readonly pg: number
  /** Generated tokens at most: steps × P × G × maxTurns × maxTokens (`--max-tokens`). */
  readonly tokens: number
}

/** Well above the shipped suites (the standard suite's largest run: 40 steps × 64 × 5 turns × 108 tokens ≈ 1.4e6). */
export const DEFAULT_RERUN_BUDGET: RerunBudget = { steps: 10_000, pg: 1024, tokens: 1e9 }

/** Turns and tokens per turn when a config does not record them (older results): generous guesses. */
const FALLBACK_TURNS = 5
const FALLBACK_TOKENS = 256

const num = (v: unknown, d: number): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : d)

/** What one re-run of `config` would spend, in the budget's units. */
export const rerunCost = (config: RunConfig): RerunBudget => {
  const t = (config.train ?? {}) as Record<string, unknown>
  const pg = config.P * config.G
  return { steps: config.steps, pg, tokens: config.steps * pg * num(t.maxTurns, FALLBACK_TURNS) * num(t.maxTokens, FALLBACK_TOKENS) }
}

/** Why a re-run exceeds the budget (naming the numbers and the flag), or "" when it fits. */
export const overBudget = (config: RunConfig, budget: RerunBudget): string => {
  const c = rerunCost(config)
  const over: string[] = []
  if (c.steps > budget.steps) over.push(`steps ${c.steps} > ${budget.steps} (--max-steps)`)
  if (c.pg > budget.pg) over.push(`P × G ${config.P} × ${config.G} = ${c.pg} > ${budget.pg} (--max-pg)`)
  if (c.tokens > budget.tokens) over.push(`up to ${c.tokens.toExponential(2)} generated tokens > ${budget.tokens.toExponential(2)} (--max-tokens)`)
  return over.join(", ")
}
