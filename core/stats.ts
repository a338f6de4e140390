/**
 * Small statistics and shared vocabularies the core needs (filter statistics, gradient
 * decomposition, trainer options) and the algorithms and filters build on. They live in core so
 * that core imports nothing from algorithms/ (docs/decisions.md#issue-13); algorithms/ re-export them.
 */

export const mean = (xs: ArrayLike<number>): number => {
  if (xs.length === 0) return 0
  let s = 0
  for (let i = 0; i < xs.length; i++) s += xs[i]!
  return s / xs.length
}

/** Unbiased (n − 1) variance, as torch.var and the RAGEN reference code use; 0 for n < 2. */
export const varianceUnbiased = (xs: ArrayLike<number>): number => {
  const n = xs.length
  if (n < 2) return 0
  const m = mean(xs)
  let s = 0
  for (let i = 0; i < n; i++) s += (xs[i]! - m) ** 2
  return s / (n - 1)
}

/** Unbiased (n − 1) standard deviation, as torch.std and the RAGEN reference code use; 0 for n < 2. */
export const stdUnbiased = (xs: ArrayLike<number>): number => Math.sqrt(varianceUnbiased(xs))

/**
 * The group score of the score-based filters: the spread of a group's trajectory returns.
 * The reference code (rollout_filter.py, `in_group_std = rm_scores.std(dim=-1)`) uses the
 * unbiased std; "var" is the unbiased variance that later ports use.
 */
export type ScoreMetric = "std" | "var"
export const scoreMetrics: ReadonlyArray<ScoreMetric> = ["std", "var"]

/** Scores at or below this count as zero spread (the reference code's `abs(score) > 1e-10`). */
export const ZERO_SCORE = 1e-10

/** Unbiased std or variance of one group's returns; 0 for fewer than two returns. */
export const groupScore = (returns: ArrayLike<number>, metric: ScoreMetric = "std"): number => (metric === "var" ? varianceUnbiased(returns) : stdUnbiased(returns))

/**
 * Python's round(x): to the nearest integer, ties to even (round(2.5) = 2, round(3.5) = 4), as
 * the reference code's counts use. Math.round sends ties up.
 */
export const roundHalfEven = (x: number): number => {
  const f = Math.floor(x)
  const d = x - f
  if (d > 0.5) return f + 1
  if (d < 0.5) return f
  return f % 2 === 0 ? f : f + 1
}

/** Whether a group's returns are all equal up to `tolerance` (max − min ≤ tolerance). */
export const allEqual = (returns: ReadonlyArray<number>, tolerance: number): boolean => {
  let lo = Infinity
  let hi = -Infinity
  for (const r of returns) {
    lo = Math.min(lo, r)
    hi = Math.max(hi, r)
  }
  return hi - lo <= tolerance
}
