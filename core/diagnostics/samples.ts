/**
 * Choosing the reasoning samples the MI proxies score (docs/design.md §6).
 * Only VALID turns are scored: the response parsed and its reasoning is non-empty (the
 * reference's valid-reasoning rule, mll-lab-nu/RAGEN ragen/trainer/collapse_metrics.py
 * `_get_valid_reasoning_indices` / `_sample_first_turn_pairs`). An empty reasoning would be
 * scored log p = 0 under every prompt, a row with matched − marginal = 0 that drags every proxy
 * toward "no information" (8 valid rows at MI-Est 1.219 read 0.812 with 4 empty rows added).
 * - first-turn: rows are the valid (group i, trajectory k) first-turn reasonings, at most maxRows
 *   of them (a random subset, kept in (group, traj) order); columns are the prompts of the
 *   groups those rows come from, in group order (as the reference, `np.unique` of the sampled
 *   rows' group ids). Fewer than two columns: no rows (nothing to compare, as the reference).
 * - trajectory: rows are random valid turns from anywhere in the trajectories (without
 *   replacement); each draw brings its own prompt, so column[r] = r (at least two, else none).
 * The signature of a column is its prompt text: identical prompts count as the same prompt.
 * `validRate` = valid / all turns considered (first turns, or all turns), logged as
 * mi/<prefix>/valid_rate (the reference's collapse/first_turn_valid_rate).
 */
import type { Rng } from "../rng.ts"

export interface TurnSample {
  readonly group: number
  readonly traj: number
  readonly turn: number
  /** The prompt up to and including "<think>". */
  readonly prompt: string
  /** The reasoning text between the tags. */
  readonly reasoning: string
  /**
   * The response parsed (the env's format check passed). The trainer fills it from the turn's
   * formatValid; absent counts as parsed (then only empty reasoning is excluded).
   */
  readonly valid?: boolean
}

/** The reference's rule: a parsed response with non-empty reasoning. */
export const isValidReasoning = (t: TurnSample): boolean => t.valid !== false && t.reasoning.trim().length > 0

export interface MiRows {
  /** Column prompts. */
  readonly prompts: string[]
  /** Row reasonings. */
  readonly reasonings: string[]
  /** column[r]: the own prompt of row r. */
  readonly column: Int32Array
  /** Per-column signature. */
  readonly signature: string[]
  /** Turns considered (all first turns, or all turns) and how many of them were valid. */
  readonly total: number
  readonly valid: number
  /** valid / total (0 when there was no turn). */
  readonly validRate: number
}

/** Up to `n` positions of 0..total-1, uniformly without replacement, ascending. */
const subset = (total: number, n: number, rng: Rng): number[] => {
  const all = Array.from({ length: total }, (_, i) => i)
  if (n >= total) return all
  return rng
    .shuffle(all)
    .slice(0, n)
    .sort((a, b) => a - b)
}

const counts = (considered: ReadonlyArray<TurnSample>, valid: ReadonlyArray<TurnSample>) => ({
  total: considered.length,
  valid: valid.length,
  validRate: considered.length > 0 ? valid.length / considered.length : 0
})

export const buildMiRows = (turns: ReadonlyArray<TurnSample>, mode: "first-turn" | "trajectory", rng: Rng, maxRows: number): MiRows => {
  if (mode === "first-turn") {
    const firstAll = turns.filter((t) => t.turn === 0)
    const first = firstAll.filter(isValidReasoning).sort((a, b) => a.group - b.group || a.traj - b.traj)
    const picked = subset(first.length, maxRows, rng).map((i) => first[i]!)
    const groupIds = [...new Set(picked.map((t) => t.group))].sort((a, b) => a - b)
    const n = counts(firstAll, first)
    if (groupIds.length < 2) return { prompts: [], reasonings: [], column: new Int32Array(0), signature: [], ...n }
    const colOf = new Map(groupIds.map((g, j) => [g, j]))
    const prompts = groupIds.map((g) => picked.find((t) => t.group === g)!.prompt)
    return {
      prompts,
      reasonings: picked.map((t) => t.reasoning),
      column: Int32Array.from(picked, (t) => colOf.get(t.group)!),
      signature: prompts.slice(),
      ...n
    }
  }
  const ordered = turns.filter(isValidReasoning).sort((a, b) => a.group - b.group || a.traj - b.traj || a.turn - b.turn)
  const picked = subset(ordered.length, maxRows, rng).map((i) => ordered[i]!)
  const n = counts(turns, ordered)
  if (picked.length < 2) return { prompts: [], reasonings: [], column: new Int32Array(0), signature: [], ...n }
  const prompts = picked.map((t) => t.prompt)
  return {
    prompts,
    reasonings: picked.map((t) => t.reasoning),
    column: Int32Array.from(picked, (_, r) => r),
    signature: prompts.slice(),
    ...n
  }
}

/** The sample's own metric: mi/<prefix>/valid_rate (docs/metrics.md). */
export const miSampleMetrics = (prefix: string, rows: MiRows): Record<string, number> => ({
  [`${prefix}/valid_rate`]: rows.validRate
})
