/**
 * Gradient decomposition (RAGEN-2 Fig. 3, Table 2): groups bucketed by reward spread (unbiased
 * std of returns) into equal-count quantile buckets, q1 = lowest spread … qB = highest; per
 * bucket the gradient norm of the task (policy) loss, the entropy term and the KL term, each from
 * its own backward pass, with no optimizer step (gradients are zeroed afterwards).
 */
import type { LossFn, TrainablePolicy, TrainItem } from "../contracts/index.ts"
import type { LossRegularisers } from "../contracts/algorithm.ts"
import { stdUnbiased } from "../stats.ts"

export const bucketOf = (rank: number, count: number, buckets: number): number => Math.floor((rank * buckets) / count)

export const gradDecomposition = async (
  policy: TrainablePolicy,
  groupReturns: ReadonlyArray<ReadonlyArray<number>>,
  itemsOfGroup: (groups: number[]) => { items: TrainItem[]; loss: (terms: LossRegularisers["terms"]) => LossFn },
  buckets: number
): Promise<Record<string, number>> => {
  const P = groupReturns.length
  const rv = groupReturns.map((r) => stdUnbiased(r))
  const order = rv.map((_, i) => i).sort((a, b) => rv[a]! - rv[b]! || a - b)
  const out: Record<string, number> = {}
  for (let b = 0; b < buckets; b++) {
    const groups = order.filter((_, rank) => bucketOf(rank, P, buckets) === b)
    if (groups.length === 0) continue
    const q = `q${b + 1}`
    out[`grad/rv_${q}`] = groups.reduce((s, g) => s + rv[g]!, 0) / groups.length
    const { items, loss } = itemsOfGroup(groups)
    if (items.length === 0) continue
    for (const term of ["task", "entropy", "kl"] as const) {
      policy.zeroGrad()
      await policy.accumulate(items, loss(term))
      out[`grad/${term}_${q}`] = policy.gradNorm()
    }
  }
  policy.zeroGrad()
  return out
}
