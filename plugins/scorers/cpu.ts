/**
 * CPU CrossScorer (docs/design.md §6): L[r, j] = log p(Z_r | X_j) by teacher forcing reasoning r
 * after prompt j with the policy's own `score` primitive, in batches.
 * The continuation is exactly the reasoning text (no closing tag appended), so matched and
 * cross scores see the same tokens. Per-token mean (0 for an empty continuation) and sum.
 * Cheap savings that leave L unchanged (benchmarks/results/diagnostics.md):
 * - each distinct reasoning is scored once against each distinct prompt (scoring is
 *   deterministic): a low-entropy policy repeats its reasoning within a group, and trajectory
 *   samples repeat prompts (same seed, same state);
 * - an empty reasoning is 0 without a call;
 * - reasonings go in order of length, each against all prompts in consecutive requests, so a
 *   policy's padded batches hold continuations of similar length.
 */
import { Effect, Schema } from "effect"
import type { CrossScorer, CrossScores, Policy, ScorerSpec, ScoreRequest } from "../../core/contracts/index.ts"

export const CpuScorerOptions = Schema.Struct({
  /** Requests per policy.score call. */
  batchSize: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.withDecodingDefault(Effect.succeed(64)))
})
export type CpuScorerOptions = { readonly batchSize: number }

/** Distinct values in first-seen order, and each input's index among them. */
const distinct = (xs: ReadonlyArray<string>): { values: string[]; index: Int32Array } => {
  const at = new Map<string, number>()
  const values: string[] = []
  const index = new Int32Array(xs.length)
  xs.forEach((x, i) => {
    let k = at.get(x)
    if (k === undefined) {
      k = values.length
      at.set(x, k)
      values.push(x)
    }
    index[i] = k
  })
  return { values, index }
}

export const makeCpuScorer = (policy: Policy, options: CpuScorerOptions = { batchSize: 64 }): CrossScorer => ({
  id: "cpu",
  score: async (reasonings, prompts): Promise<CrossScores> => {
    const R = reasonings.length
    const N = prompts.length
    const ur = distinct(reasonings)
    const up = distinct(prompts)
    const U = up.values.length
    // Distinct (reasoning, prompt) scores: uSum[a·U + b], uMean likewise; empty reasoning stays 0.
    const uSum = new Float64Array(ur.values.length * U)
    const uMean = new Float64Array(ur.values.length * U)
    const order = ur.values.map((_, a) => a).filter((a) => ur.values[a]!.length > 0)
    order.sort((a, b) => ur.values[a]!.length - ur.values[b]!.length || a - b)
    const pairs: number[] = []
    for (const a of order) for (let b = 0; b < U; b++) pairs.push(a * U + b)
    for (let start = 0; start < pairs.length; start += options.batchSize) {
      const batch = pairs.slice(start, start + options.batchSize)
      const requests: ScoreRequest[] = batch.map((p) => ({ prompt: up.values[p % U]!, continuation: ur.values[Math.floor(p / U)]! }))
      const results = await policy.score(requests)
      if (results.length !== requests.length) {
        throw new Error(`cpu scorer: policy ${policy.id} returned ${results.length} scores for ${requests.length} requests`)
      }
      for (let q = 0; q < results.length; q++) {
        const lp = results[q]!.logprobs
        let s = 0
        for (let t = 0; t < lp.length; t++) s += lp[t]!
        uSum[batch[q]!] = s
        uMean[batch[q]!] = lp.length > 0 ? s / lp.length : 0
      }
    }
    const tokenMean = new Float64Array(R * N)
    const sum = new Float64Array(R * N)
    for (let r = 0; r < R; r++) {
      for (let j = 0; j < N; j++) {
        const u = ur.index[r]! * U + up.index[j]!
        sum[r * N + j] = uSum[u]!
        tokenMean[r * N + j] = uMean[u]!
      }
    }
    return { tokenMean, sum, rows: R, cols: N }
  }
})

export const cpuScorerSpec: ScorerSpec<CpuScorerOptions> = {
  id: "cpu",
  description: "Cross-scores reasoning against prompts with the policy's own teacher-forced score() (CPU)",
  options: CpuScorerOptions,
  make: async (options, policy) => makeCpuScorer(policy, options)
}
