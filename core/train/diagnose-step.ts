/**
 * The diagnostics of a training step on its PRE-filter batch (docs/design.md §6): the MI proxies from
 * cross-scoring reasoning against prompts (first turns and a trajectory sample; and on a fixed
 * validation probe), and the gradient decomposition by reward-spread bucket (paper Fig. 3).
 */
import { miMetrics, miProxies } from "../diagnostics/mi.ts"
import { buildMiRows, miSampleMetrics, type TurnSample } from "../diagnostics/samples.ts"
import { derive } from "../rng.ts"
import type { TrainContext } from "./context.ts"
import { gradDecomposition } from "./grad-decomp.ts"
import { type RolloutBatch, rolloutStats } from "./rollout.ts"
import { lossOf, prepare } from "./update.ts"

export type MiMode = "first-turn" | "trajectory"

/** MI proxies on a batch's turns; metrics named <prefix>first_turn/* and <prefix>trajectory/*. */
export const miDiagnostics = async (c: TrainContext, b: RolloutBatch, prefix: string, step: number, modes: ReadonlyArray<MiMode>): Promise<Record<string, number>> => {
  const out: Record<string, number> = {}
  if (!c.scorer) return out
  const turns: TurnSample[] = []
  for (const t of b.trajectories) {
    t.turns.forEach((u, turn) => turns.push({ group: t.group, traj: t.index, turn, prompt: u.prompt, reasoning: u.reasoning, valid: u.formatValid }))
  }
  const graded = b.trajectories.some((t) => t.turns.some((u) => u.grade !== undefined))
  for (const mode of modes) {
    const rows = buildMiRows(turns, mode, derive(c.s.config.seed, "mi", prefix, mode, step), mode === "first-turn" ? c.s.opts.diagRows : Math.min(32, c.s.opts.diagRows))
    const key = `${prefix}${mode === "first-turn" ? "first_turn" : "trajectory"}`
    Object.assign(out, miSampleMetrics(key, rows))
    if (rows.reasonings.length === 0 || rows.prompts.length === 0) continue
    const L = await c.scorer.score(rows.reasonings, rows.prompts)
    const ema = (c.miEma[key] ??= {})
    // The batch's teacher-graded fact accuracy lets the regime label see the collapse of docs/design.md §10.
    const p = miProxies(
      { tokenMean: L.tokenMean, sum: L.sum, rows: L.rows, cols: L.cols, column: rows.column, signature: rows.signature },
      ema,
      undefined,
      undefined,
      graded ? { factAccuracy: rolloutStats(b).fact_accuracy } : {}
    )
    Object.assign(out, miMetrics(key as `mi/${string}`, p))
  }
  return out
}

/** Gradient norms of the task, entropy and KL terms per reward-spread bucket; no optimizer step. */
export const gradDecompStep = async (c: TrainContext, b: RolloutBatch): Promise<Record<string, number>> => {
  const trajs = b.trajectories.map((t) => Object.assign(t, { groupId: t.group }))
  const returns = b.seeds.map((_, g) => trajs.filter((t) => t.group === g).map((t) => t.ret))
  const prepared = await prepare(c, trajs)
  const itemGroup: number[] = []
  prepared.itemsOfTraj.forEach((items, i) => {
    for (const _ of items) itemGroup.push(trajs[i]!.group)
  })
  return gradDecomposition(
    c.policy,
    returns,
    (groups) => {
      const set = new Set(groups)
      const idx = itemGroup.map((g, i) => (set.has(g) ? i : -1)).filter((i) => i >= 0)
      const obj = idx.map((i) => prepared.obj[i]!)
      return { items: idx.map((i) => prepared.items[i]!), loss: (terms) => lossOf(c.s, obj, terms) }
    },
    c.s.opts.gradDecompBuckets
  )
}
