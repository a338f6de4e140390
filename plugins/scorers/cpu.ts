/**
 * CPU CrossScorer (DESIGN.md §6): L[r, j] = log p(Z_r | X_j) by teacher forcing reasoning r
 * after prompt j with the policy's own `score` primitive, for every (r, j) pair, in batches.
 * The continuation is exactly the reasoning text (no closing tag appended), so matched and
 * cross scores see the same tokens. Per-token mean (0 for an empty continuation) and sum.
 */
import { Effect, Schema } from "effect"
import type { CrossScorer, CrossScores, Policy, ScorerSpec } from "../../core/contracts/index.ts"

export const CpuScorerOptions = Schema.Struct({
  /** Requests per policy.score call. */
  batchSize: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.withDecodingDefault(Effect.succeed(64)))
})
export type CpuScorerOptions = { readonly batchSize: number }

export const makeCpuScorer = (policy: Policy, options: CpuScorerOptions = { batchSize: 64 }): CrossScorer => ({
  id: "cpu",
  score: async (reasonings, prompts): Promise<CrossScores> => {
    const R = reasonings.length
    const N = prompts.length
    const tokenMean = new Float64Array(R * N)
    const sum = new Float64Array(R * N)
    const total = R * N
    for (let start = 0; start < total; start += options.batchSize) {
      const end = Math.min(total, start + options.batchSize)
      const requests = []
      for (let p = start; p < end; p++) {
        requests.push({ prompt: prompts[p % N]!, continuation: reasonings[Math.floor(p / N)]! })
      }
      const results = await policy.score(requests)
      if (results.length !== requests.length) {
        throw new Error(`cpu scorer: policy ${policy.id} returned ${results.length} scores for ${requests.length} requests`)
      }
      for (let q = 0; q < results.length; q++) {
        const lp = results[q]!.logprobs
        let s = 0
        for (let t = 0; t < lp.length; t++) s += lp[t]!
        sum[start + q] = s
        tokenMean[start + q] = lp.length > 0 ? s / lp.length : 0
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
