/**
 * Choosing the reasoning samples the MI proxies score (DESIGN.md §6).
 * - first-turn: columns are the P prompts of the batch's first turns (one per group, in group
 *   order); rows are every (group i, trajectory k) first-turn reasoning, at most maxRows of
 *   them (a random subset, kept in (group, traj) order).
 * - trajectory: rows are random turns from anywhere in the trajectories (without replacement);
 *   each draw brings its own prompt, so column[r] = r.
 * The signature of a column is its prompt text: identical prompts count as the same prompt.
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
}

export interface MiRows {
  /** Column prompts. */
  readonly prompts: string[]
  /** Row reasonings. */
  readonly reasonings: string[]
  /** column[r]: the own prompt of row r. */
  readonly column: Int32Array
  /** Per-column signature. */
  readonly signature: string[]
}

/** Up to `n` positions of 0..total-1, uniformly without replacement, ascending. */
const subset = (total: number, n: number, rng: Rng): number[] => {
  const all = Array.from({ length: total }, (_, i) => i)
  if (n >= total) return all
  return rng.shuffle(all).slice(0, n).sort((a, b) => a - b)
}

export const buildMiRows = (
  turns: ReadonlyArray<TurnSample>,
  mode: "first-turn" | "trajectory",
  rng: Rng,
  maxRows: number
): MiRows => {
  if (mode === "first-turn") {
    const first = turns.filter((t) => t.turn === 0).slice().sort((a, b) => a.group - b.group || a.traj - b.traj)
    const groupIds = [...new Set(first.map((t) => t.group))].sort((a, b) => a - b)
    const colOf = new Map(groupIds.map((g, j) => [g, j]))
    const prompts = groupIds.map((g) => first.find((t) => t.group === g)!.prompt)
    const picked = subset(first.length, maxRows, rng).map((i) => first[i]!)
    return {
      prompts,
      reasonings: picked.map((t) => t.reasoning),
      column: Int32Array.from(picked, (t) => colOf.get(t.group)!),
      signature: prompts.slice()
    }
  }
  const ordered = turns.slice().sort((a, b) => a.group - b.group || a.traj - b.traj || a.turn - b.turn)
  const picked = subset(ordered.length, maxRows, rng).map((i) => ordered[i]!)
  const prompts = picked.map((t) => t.prompt)
  return {
    prompts,
    reasonings: picked.map((t) => t.reasoning),
    column: Int32Array.from(picked, (_, r) => r),
    signature: prompts.slice()
  }
}
