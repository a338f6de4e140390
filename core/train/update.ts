/**
 * The update of one training step: advantages for the kept trajectories, then minibatches of
 * optimizer steps (docs/design.md §3).
 *
 * Minibatching follows the paper's reference (verl's ppo_mini_batch_size): minibatches of a fixed
 * number of whole trajectories (default 32; the kept trajectories are shuffled and padded by
 * copies to a multiple of it), so a filter that keeps fewer groups takes fewer optimizer steps.
 * A trajectory is the unit whatever its number of turns. The older rules stay as options: a fixed
 * count of minibatches (`minibatches`), minibatches of about `minibatchSize` turns, and
 * `padFilteredBatch` (pad the kept turns back to the unfiltered count).
 */
import type { AlgoTrajectory, LossRegularisers } from "../contracts/algorithm.ts"
import type { LossFn, LossOutput, TokenForward, TrainablePolicy, TrainItem } from "../contracts/index.ts"
import { derive } from "../rng.ts"
import { NonFiniteUpdate, type TrainContext } from "./context.ts"
import type { Trajectory } from "./rollout.ts"
import type { TrainSetup } from "./setup.ts"

export type KeptTrajectory = Trajectory & { readonly groupId: number }

/** Per-token values of the items before the update (PPO's old values). */
const forwardValues = async (policy: TrainablePolicy, items: TrainItem[]): Promise<TokenForward[]> => {
  if (policy.forward) return policy.forward(items)
  let captured: ReadonlyArray<TokenForward> = []
  const zero: LossFn = (fw) => {
    captured = fw
    return {
      loss: 0,
      grads: fw.map((f) => ({ dLogprobs: new Float32Array(f.logprobs.length), dEntropy: new Float32Array(f.logprobs.length), dValues: new Float32Array(f.logprobs.length) })),
      stats: {}
    }
  }
  await policy.accumulate(items, zero)
  policy.zeroGrad()
  return captured.map((f) => ({ logprobs: Float32Array.from(f.logprobs), entropy: Float32Array.from(f.entropy), values: Float32Array.from(f.values) }))
}

export interface Prepared {
  /** One training sequence per turn with tokens. */
  readonly items: TrainItem[]
  readonly obj: Array<{ advantages: Float32Array; oldLogprobs: Float32Array; traj: number; refLogprobs?: Float32Array; returns?: Float32Array; oldValues?: Float32Array }>
  /** Item indices of each trajectory (in the order of the trajectories given). */
  readonly itemsOfTraj: number[][]
}

const concat = (parts: Float32Array[]): Float32Array => {
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0))
  let o = 0
  for (const p of parts) out.set(p, o), (o += p.length)
  return out
}

/** Training sequences (one per turn with tokens) with advantages for the given trajectories. */
export const prepare = async (c: TrainContext, trajs: ReadonlyArray<KeptTrajectory>): Promise<Prepared> => {
  const { s, policy } = c
  const flat: TrainItem[] = trajs.flatMap((t) => t.turns.map((u) => ({ prompt: u.prompt, tokens: u.completion.tokens })))
  let oldLp = trajs.flatMap((t) => t.turns.map((u) => u.completion.rawLogprobs))
  let values: Float32Array[] | undefined
  // train.teacherForcing: scorer runs these passes on the scorer's device (WebGPU) when it can
  const onScorer = s.opts.teacherForcing === "scorer" ? c.scorer?.forward?.bind(c.scorer) : undefined
  if (s.algo.needsValue || s.opts.recomputeOldLogprobs) {
    const fw = (await onScorer?.(policy, flat)) ?? (await forwardValues(policy, flat))
    if (s.algo.needsValue) values = fw.map((f) => f.values)
    if (s.opts.recomputeOldLogprobs) oldLp = fw.map((f) => f.logprobs)
  }
  const ref = c.ref && s.opts.klCoef > 0 ? c.ref : undefined
  const refLp = ref
    ? ((await onScorer?.(ref, flat))?.map((f) => f.logprobs) ?? (await ref.score(flat.map((it) => ({ prompt: it.prompt, continuation: it.tokens })))).map((r) => r.logprobs))
    : undefined
  let k = 0
  const algoTrajs: AlgoTrajectory[] = trajs.map((t) => {
    const n = t.turns.length
    const lp = oldLp.slice(k, k + n)
    const v = values?.slice(k, k + n)
    k += n
    return {
      group: t.groupId,
      ret: t.ret,
      turnRewards: t.turns.map((u) => u.reward),
      turnLengths: t.turns.map((u) => u.completion.tokens.length),
      oldLogprobs: concat(lp),
      ...(v ? { values: concat(v) } : {}),
      truncatedTokens: t.turns.some((u) => u.completion.finishReason === "length")
    }
  })
  const adv = s.algo.advantages(algoTrajs, s.algoOptions)
  const items: TrainItem[] = []
  const obj: Prepared["obj"] = []
  const itemsOfTraj: number[][] = []
  k = 0
  trajs.forEach((t, i) => {
    const a = adv[i]!
    const mine: number[] = []
    let off = 0
    for (const u of t.turns) {
      const L = u.completion.tokens.length
      const j = k++
      if (L > 0) {
        mine.push(items.length)
        items.push(flat[j]!)
        obj.push({
          advantages: a.advantages.subarray(off, off + L),
          oldLogprobs: oldLp[j]!,
          traj: i,
          ...(refLp ? { refLogprobs: refLp[j]! } : {}),
          ...(a.returns && values ? { returns: a.returns.subarray(off, off + L), oldValues: values[j]! } : {})
        })
      }
      off += L
    }
    itemsOfTraj.push(mine)
  })
  return { items, obj, itemsOfTraj }
}

const regularisers = (s: TrainSetup, terms: LossRegularisers["terms"]): LossRegularisers => ({
  entropyCoef: s.opts.entropyCoef,
  klCoef: s.opts.klCoef,
  klEstimator: s.opts.klEstimator,
  normLength: s.opts.maxTokens,
  terms,
  ...(s.opts.lossAgg ? { lossAgg: s.opts.lossAgg } : {})
})

export const lossOf = (s: TrainSetup, obj: Prepared["obj"], terms: LossRegularisers["terms"] = "all"): LossFn => s.algo.loss(obj, { ...s.algoOptions, ...regularisers(s, terms) })

/**
 * The minibatches of one epoch, as lists of item indices. `unfilteredTurns`: the turn count of
 * the whole (pre-filter) batch, for padFilteredBatch.
 */
export const minibatchPlan = (s: TrainSetup, prep: Prepared, step: number, epoch: number, unfilteredTurns: number): number[][] => {
  const { opts, config } = s
  const rng = derive(config.seed, "minibatch", step, epoch)
  if (opts.minibatches === undefined && opts.minibatchSize === undefined && !opts.padFilteredBatch) {
    // Whole trajectories, shuffled, padded by copies to a multiple of the minibatch size.
    const size = opts.minibatchTrajectories
    const order = rng.shuffle(prep.itemsOfTraj.map((_, i) => i).filter((i) => prep.itemsOfTraj[i]!.length > 0))
    if (order.length === 0) return []
    const padded = [...order]
    const pad = derive(config.seed, "pad", step, epoch)
    while (padded.length % size !== 0) padded.push(order[pad.int(order.length)]!)
    const out: number[][] = []
    for (let b = 0; b < padded.length; b += size) out.push(padded.slice(b, b + size).flatMap((t) => prep.itemsOfTraj[t]!))
    return out
  }
  // Turn-level rules (the options kept from earlier versions).
  let order = prep.items.map((_, i) => i)
  if (opts.padFilteredBatch) {
    const pad = derive(config.seed, "pad", step)
    while (order.length < unfilteredTurns) order.push(pad.int(prep.items.length))
  }
  order = rng.shuffle(order)
  const n = opts.minibatchSize !== undefined ? Math.max(1, Math.round(order.length / opts.minibatchSize)) : Math.min(opts.minibatches ?? 4, order.length)
  return Array.from({ length: n }, (_, b) => order.slice(Math.floor((b * order.length) / n), Math.floor(((b + 1) * order.length) / n)))
}

/** Advantages, minibatches and optimizer steps for the kept trajectories; returns the update's metrics. */
export const update = async (c: TrainContext, kept: ReadonlyArray<KeptTrajectory>, step: number, unfilteredTurns: number): Promise<Record<string, number>> => {
  const { s, policy } = c
  const m: Record<string, number> = {}
  let optimizerSteps = 0
  const lossStats: Record<string, number[]> = {}
  const gradNorms: number[] = []
  const sizes: number[] = []
  let entSum = 0,
    entN = 0
  const prep = kept.length > 0 ? await prepare(c, kept) : undefined
  for (let epoch = 0; prep && epoch < s.opts.epochs; epoch++) {
    const plan = minibatchPlan(s, prep, step, epoch, unfilteredTurns)
    for (const [b, idx] of plan.entries()) {
      const inner = lossOf(
        s,
        idx.map((i) => prep.obj[i]!)
      )
      const wrapped: LossFn = (fw): LossOutput => {
        if (epoch === 0) for (const f of fw) for (const e of f.entropy) (entSum += e), entN++
        return inner(fw)
      }
      const out = await policy.accumulate(
        idx.map((i) => prep.items[i]!),
        wrapped
      )
      if (!Number.isFinite(out.loss)) {
        policy.zeroGrad()
        throw new NonFiniteUpdate(
          `non-finite loss (${out.loss}) at step ${step}, epoch ${epoch + 1}, minibatch ${b + 1}; no update was applied. Lower --lr or tighten clipping (--set maxGradNorm=...)`
        )
      }
      for (const [k, v] of Object.entries(out.stats)) (lossStats[k] ??= []).push(v)
      const norm = policy.step({ lr: s.config.lr, maxGradNorm: s.opts.maxGradNorm })
      if (!Number.isFinite(norm)) throw new NonFiniteUpdate(`non-finite gradient norm at step ${step}; lower --lr`)
      gradNorms.push(norm)
      sizes.push(idx.length)
      optimizerSteps++
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  for (const [k, v] of Object.entries(lossStats)) m[k] = mean(v)
  m["train/kept_items"] = prep?.items.length ?? 0
  m["train/skipped_update"] = optimizerSteps === 0 ? 1 : 0
  m["train/optimizer_steps"] = optimizerSteps
  if (sizes.length > 0) m["train/minibatch_turns"] = mean(sizes)
  if (gradNorms.length > 0) m["train/grad_norm"] = mean(gradNorms)
  if (entN > 0) m["train/entropy"] = entSum / entN
  return m
}
