/**
 * The per-token objective shared by PPO, GRPO and DAPO, written once because all three use it
 * unchanged: clipped importance ratio with asymmetric clip (DAPO's clip-higher) and dual clip
 * (Ye et al. 2020, "Mastering Complex Control in MOBA Games", as verl's compute_policy_loss),
 * entropy bonus, KL to the reference policy (k1, or Schulman's low-variance k3 as verl's
 * "low_var_kl"), clipped value loss (PPO), and the loss aggregation modes of verl's agg_loss.
 * It returns a LossFn: the policy gives per-token logprobs/entropy/values, this gives the loss
 * and its gradient with respect to each of them (the policy back-propagates the rest).
 */
import type { LossAgg, LossFn, LossOutput, TokenForward, TokenGrads } from "../../core/host.ts"

/** Loss aggregation modes (names and meanings in core/stats.ts, where the trainer's options read them). */
export { type LossAgg, LossAggOption } from "../../core/host.ts"

/** Which terms the LossFn includes; single terms serve the gradient decomposition (paper Fig. 3). */
export type LossTerms = "all" | "task" | "entropy" | "kl"

export interface ObjectiveOptions {
  readonly clipLow: number
  readonly clipHigh: number
  /** Dual-clip constant c > 1 bounds the loss of negative-advantage tokens at −A·c; 0 = off. */
  readonly dualClip: number
  readonly lossAgg: LossAgg
  /** Denominator length for seq-mean-token-sum-norm. */
  readonly normLength: number
  readonly entropyCoef: number
  readonly klCoef: number
  readonly klEstimator: "k1" | "k3"
  /** Value-loss coefficient (0 = no critic). */
  readonly valueCoef: number
  /** Value clipping range around the old value (0 = off). */
  readonly valueClip: number
  readonly terms?: LossTerms
}

export interface ObjectiveItem {
  readonly advantages: Float32Array
  readonly oldLogprobs: Float32Array
  readonly refLogprobs?: Float32Array
  readonly returns?: Float32Array
  readonly oldValues?: Float32Array
  /**
   * The trajectory this item (one turn) belongs to, an index within the update's kept set. The
   * "sequence" of the seq-mean-* modes is one StarPO trajectory, all its turns together (the
   * reference trains a trajectory as one sequence); an item without it is a sequence of its own.
   */
  readonly traj?: number
}

/**
 * Per-item token weight w_i so that the aggregated loss is Σ_i Σ_t w_i ℓ_it (verl's agg_loss,
 * with a sequence = a trajectory). A trajectory seen k times in the batch (the update pads by
 * copies, and a copy is the same item object again) counts as k sequences, as the reference's
 * copied rows do. With B sequences, L_s the tokens of sequence s and N all tokens:
 *   token-mean 1/N · seq-mean-token-mean 1/(B·L_s) · seq-mean-token-sum 1/B ·
 *   seq-mean-token-sum-norm 1/(B·normLength) · seq-sum 1.
 */
export const aggregationWeights = (batch: ReadonlyArray<Pick<ObjectiveItem, "advantages" | "traj">>, mode: LossAgg, normLength: number): Float64Array => {
  const n = batch.length
  // Sequence key of each item: its trajectory, or the item itself when it has none.
  const key = batch.map((b, i) => (b.traj === undefined ? `i${i}` : `t${b.traj}`))
  const occurrences = new Map<string, number>()
  const distinct = new Map<string, Set<unknown>>()
  const tokens = new Map<string, number>()
  let N = 0
  for (let i = 0; i < n; i++) {
    const k = key[i]!
    occurrences.set(k, (occurrences.get(k) ?? 0) + 1)
    const seen = distinct.get(k) ?? new Set<unknown>()
    if (!seen.has(batch[i])) tokens.set(k, (tokens.get(k) ?? 0) + batch[i]!.advantages.length)
    seen.add(batch[i])
    distinct.set(k, seen)
    N += batch[i]!.advantages.length
  }
  // Copies of a whole trajectory: occurrences / distinct items = how many times it is in the batch.
  let B = 0
  for (const [k, c] of occurrences) B += c / distinct.get(k)!.size
  const w = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const L = tokens.get(key[i]!)!
    w[i] =
      mode === "token-mean"
        ? N > 0
          ? 1 / N
          : 0
        : mode === "seq-mean-token-mean"
          ? L > 0
            ? 1 / (B * L)
            : 0
          : mode === "seq-mean-token-sum"
            ? 1 / B
            : mode === "seq-mean-token-sum-norm"
              ? 1 / (B * normLength)
              : 1
  }
  return w
}

/** One token's clipped-ratio loss and its derivative with respect to the new log-prob. */
export const clippedTokenLoss = (
  logprob: number,
  oldLogprob: number,
  advantage: number,
  clipLow: number,
  clipHigh: number,
  dualClip: number
): { loss: number; dLogprob: number; clipped: boolean; dualClipped: boolean; ratio: number } => {
  // Clamp the log-ratio as verl does (±20) so one stale token cannot overflow exp.
  const logRatio = Math.max(-20, Math.min(20, logprob - oldLogprob))
  const ratio = Math.exp(logRatio)
  const l1 = -advantage * ratio
  const l2 = -advantage * Math.min(Math.max(ratio, 1 - clipLow), 1 + clipHigh)
  const clipped = l2 > l1
  let loss = clipped ? l2 : l1
  let grad = clipped ? 0 : -advantage * ratio
  let dualClipped = false
  if (dualClip > 0 && advantage < 0) {
    const l3 = -advantage * dualClip
    if (l3 < loss) {
      loss = l3
      grad = 0
      dualClipped = true
    }
  }
  return { loss, dLogprob: grad, clipped, dualClipped, ratio }
}

/** KL(π‖π_ref) estimate per token and its derivative w.r.t. log π (Schulman, "Approximating KL Divergence", 2020). */
export const klTerm = (logprob: number, refLogprob: number, estimator: "k1" | "k3"): { kl: number; dLogprob: number } => {
  if (estimator === "k1") return { kl: logprob - refLogprob, dLogprob: 1 }
  // k3 = e^x − x − 1 with x = log π_ref − log π; verl clamps it to [−10, 10].
  const x = Math.max(-20, Math.min(20, refLogprob - logprob))
  const ex = Math.exp(x)
  const kl = ex - x - 1
  if (kl > 10) return { kl: 10, dLogprob: 0 }
  return { kl, dLogprob: 1 - ex }
}

export const buildObjective =
  (batch: ReadonlyArray<ObjectiveItem>, o: ObjectiveOptions): LossFn =>
  (forward: ReadonlyArray<TokenForward>): LossOutput => {
    if (forward.length !== batch.length) throw new Error(`objective: ${forward.length} forwards for ${batch.length} items`)
    const terms = o.terms ?? "all"
    const useTask = terms === "all" || terms === "task"
    const useEnt = (terms === "all" || terms === "entropy") && o.entropyCoef !== 0
    const useKl = (terms === "all" || terms === "kl") && o.klCoef !== 0
    const useValue = terms === "all" && o.valueCoef !== 0
    const w = aggregationWeights(batch, o.lossAgg, o.normLength)
    let pg = 0
    let ent = 0
    let kl = 0
    let vf = 0
    let tokens = 0
    let clipCount = 0
    let dualCount = 0
    let approxKl = 0
    let ratioSum = 0
    const grads: TokenGrads[] = []
    for (let i = 0; i < batch.length; i++) {
      const b = batch[i]!
      const f = forward[i]!
      const T = b.advantages.length
      if (f.logprobs.length !== T) throw new Error(`objective: item ${i} has ${f.logprobs.length} logprobs for ${T} advantages`)
      const dLogprobs = new Float32Array(T)
      const dEntropy = new Float32Array(T)
      const dValues = new Float32Array(T)
      const wi = w[i]!
      for (let t = 0; t < T; t++) {
        const lp = f.logprobs[t]!
        const c = clippedTokenLoss(lp, b.oldLogprobs[t]!, b.advantages[t]!, o.clipLow, o.clipHigh, o.dualClip)
        pg += wi * c.loss
        if (useTask) dLogprobs[t] = wi * c.dLogprob
        if (c.clipped) clipCount++
        if (c.dualClipped) dualCount++
        // cleanrl's approx_kl: mean((r − 1) − log r).
        approxKl += c.ratio - 1 - Math.log(c.ratio)
        ratioSum += c.ratio
        ent += wi * f.entropy[t]!
        if (useEnt) dEntropy[t] = -o.entropyCoef * wi
        if (b.refLogprobs) {
          const k = klTerm(lp, b.refLogprobs[t]!, o.klEstimator)
          kl += wi * k.kl
          if (useKl) dLogprobs[t] = dLogprobs[t]! + o.klCoef * wi * k.dLogprob
        }
        if (b.returns && b.oldValues) {
          // Clipped value loss (PPO2 / cleanrl clip_vloss): 0.5 · max((v−R)², (v_clip−R)²).
          const v = f.values[t]!
          const R = b.returns[t]!
          const old = b.oldValues[t]!
          const d = v - old
          const inside = o.valueClip <= 0 || Math.abs(d) <= o.valueClip
          const vc = inside ? v : old + Math.sign(d) * o.valueClip
          const e1 = (v - R) ** 2
          const e2 = (vc - R) ** 2
          vf += wi * 0.5 * Math.max(e1, e2)
          if (useValue && (e1 >= e2 || inside)) dValues[t] = o.valueCoef * wi * (v - R)
        }
      }
      tokens += T
      grads.push({ dLogprobs, dEntropy, dValues })
    }
    let loss = 0
    if (useTask) loss += pg
    if (useEnt) loss -= o.entropyCoef * ent
    if (useKl) loss += o.klCoef * kl
    if (useValue) loss += o.valueCoef * vf
    const n = Math.max(1, tokens)
    const stats: Record<string, number> = {
      "losses/policy": pg,
      "losses/entropy": ent,
      "losses/clipfrac": clipCount / n,
      "losses/dual_clipfrac": dualCount / n,
      "losses/approx_kl": approxKl / n,
      "losses/ratio": ratioSum / n,
      "losses/total": loss
    }
    if (batch.some((b) => b.refLogprobs)) stats["losses/kl"] = kl
    if (batch.some((b) => b.returns && b.oldValues)) stats["losses/value"] = vf
    return { loss, grads, stats }
  }
