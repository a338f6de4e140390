/**
 * A template-collapse diagnosis of any policy (docs/design.md §6), served or embedded: roll out P
 * prompts × G trajectories, then on that pre-filter batch
 * - the MI proxies (first-turn rows against the P prompts, and trajectory samples), through
 *   the registered "cpu" CrossScorer on the policy's own score() — over HTTP for a served model;
 * - H(Z|X) (from the proxies), policy token entropy, reasoning length, format validity and
 *   teacher-graded fact accuracy and consistency (rolloutStats);
 * - the reward-variance profile of the groups and what each registered filter, at its default
 *   options, would keep of them (filterStats, the trainer's filter/* names).
 * Entropy: exact per-token entropy from the policy's forward when it has one (tinylm); else,
 * at temperature 1, the mean −log p of the sampled tokens (an unbiased estimate of the
 * per-token entropy of the sampling distribution); else unavailable.
 */
import { Effect } from "effect"
import {
  buildMiRows,
  decodeFilterOptions,
  derive,
  filterResolver,
  filterStats,
  groupScore,
  type MiProxies,
  miProxies,
  type RegistryData,
  Rng,
  type RolloutBatch,
  runFilter,
  scoreMetricOf,
  type TurnSample,
  ZERO_SCORE
} from "../../core/host.ts"
import type { CrossScorer, Group, Policy, TrainablePolicy } from "../../core/contracts/index.ts"

export interface GroupProfile {
  readonly group: number
  readonly seed: number
  readonly returns: number[]
  /** Unbiased std of the returns (the filters' default score). */
  readonly rv: number
}

export type FilterOutcome =
  | { readonly id: string; readonly ok: true; readonly keptGroups: number[]; readonly stats: Record<string, number> }
  | { readonly id: string; readonly ok: false; readonly error: string }

export interface DiagnoseReport {
  readonly kind: "diagnose"
  readonly env: string
  readonly agent: string
  readonly reproducible: boolean
  readonly P: number
  readonly G: number
  readonly seeds: number[]
  readonly temperature: number
  readonly seed: number
  /** rolloutStats: success, return, format_valid, reasoning_words, response_tokens, fact_accuracy, consistency, … */
  readonly rollout: Record<string, number>
  readonly entropy: { readonly value: number | null; readonly method: string }
  readonly mi: { readonly firstTurn: MiProxies | null; readonly trajectory: MiProxies | null; readonly skipped?: string }
  readonly rewardVariance: {
    readonly metric: "std"
    readonly groups: GroupProfile[]
    readonly mean: number
    readonly std: number
    readonly min: number
    readonly max: number
    readonly zeroGroups: number
  }
  readonly filters: FilterOutcome[]
}

const hasForward = (p: Policy): p is TrainablePolicy & { forward: NonNullable<TrainablePolicy["forward"]> } => typeof (p as TrainablePolicy).forward === "function"

export const entropyOf = async (policy: Policy, b: RolloutBatch, temperature: number): Promise<DiagnoseReport["entropy"]> => {
  const items = b.trajectories.flatMap((t) => t.turns.map((u) => ({ prompt: u.prompt, tokens: u.completion.tokens })))
  if (hasForward(policy)) {
    let s = 0,
      n = 0
    for (let i = 0; i < items.length; i += 64) {
      for (const f of await policy.forward(items.slice(i, i + 64))) for (const e of f.entropy) (s += e), n++
    }
    return { value: n > 0 ? s / n : null, method: "exact: mean per-token entropy of the policy's next-token distribution (nats)" }
  }
  if (Math.abs(temperature - 1) > 1e-9) return { value: null, method: "unavailable: the policy has no forward pass; sample at --temperature 1 for the −log p estimate" }
  let s = 0,
    n = 0
  for (const t of b.trajectories) for (const u of t.turns) for (const x of u.completion.rawLogprobs) (s += -x), n++
  return { value: n > 0 ? s / n : null, method: "estimate: mean −log p of the sampled tokens at T = 1 (nats)" }
}

export const miOf = async (scorer: CrossScorer, b: RolloutBatch, seed: number, maxRows: number): Promise<{ firstTurn: MiProxies | null; trajectory: MiProxies | null }> => {
  const turns: TurnSample[] = []
  for (const t of b.trajectories) t.turns.forEach((u, turn) => turns.push({ group: t.group, traj: t.index, turn, prompt: u.prompt, reasoning: u.reasoning }))
  const out: { firstTurn: MiProxies | null; trajectory: MiProxies | null } = { firstTurn: null, trajectory: null }
  for (const mode of ["first-turn", "trajectory"] as const) {
    const rows = buildMiRows(turns, mode, derive(seed, "diagnose", mode), mode === "first-turn" ? maxRows : Math.min(32, maxRows))
    if (rows.reasonings.length === 0 || rows.prompts.length === 0) continue
    const L = await scorer.score(rows.reasonings, rows.prompts)
    const p = miProxies({ tokenMean: L.tokenMean, sum: L.sum, rows: L.rows, cols: L.cols, column: rows.column, signature: rows.signature })
    if (mode === "first-turn") out.firstTurn = p
    else out.trajectory = p
  }
  return out
}

export const groupsOf = (b: RolloutBatch): Group[] => b.seeds.map((seed, g) => ({ index: g, seed, returns: b.trajectories.filter((t) => t.group === g).map((t) => t.ret) }))

export const rewardProfile = (groups: ReadonlyArray<Group>): DiagnoseReport["rewardVariance"] => {
  const profile = groups.map((g) => ({ group: g.index, seed: g.seed, returns: [...g.returns], rv: groupScore(g.returns, "std") }))
  const rv = profile.map((p) => p.rv)
  const n = rv.length
  const mean = n ? rv.reduce((a, b) => a + b, 0) / n : 0
  const std = n ? Math.sqrt(rv.reduce((a, b) => a + (b - mean) ** 2, 0) / n) : 0
  return { metric: "std", groups: profile, mean, std, min: n ? Math.min(...rv) : 0, max: n ? Math.max(...rv) : 0, zeroGroups: rv.filter((x) => x <= ZERO_SCORE).length }
}

/** Every registered filter at its default options on these groups (one seeded Rng per filter). */
export const filterOutcomes = (data: RegistryData, groups: ReadonlyArray<Group>, seed: number): Effect.Effect<FilterOutcome[]> =>
  Effect.gen(function* () {
    const out: FilterOutcome[] = []
    const resolveFilter = filterResolver(data)
    for (const e of data.entries.filters) {
      const r = yield* Effect.result(
        Effect.gen(function* () {
          const options = yield* decodeFilterOptions(e.value, {})
          const result = yield* runFilter(e.value, groups, { options, rng: new Rng(seed).split(e.fullId), step: 0, resolveFilter }, e.fullId)
          return { result, metric: scoreMetricOf(e.value, options) }
        })
      )
      if (r._tag === "Failure") {
        out.push({ id: e.fullId, ok: false, error: r.failure.message })
        continue
      }
      const { result, metric } = r.success
      const kept = result.keep
        .filter((k) => k.trajectories.length > 0)
        .map((k) => k.group)
        .sort((a, b) => a - b)
      out.push({ id: e.fullId, ok: true, keptGroups: kept, stats: filterStats(groups, result, metric, e.fullId) })
    }
    return out
  })
