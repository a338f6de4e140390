/**
 * SFT warm start of the tinylm policy (docs/design.md §4/§10) on teacher turns (core/train/teacher-turns.ts):
 * train on the completion tokens with the mean token NLL (through `accumulate`, the same path RL
 * uses), stop at a target held-out token accuracy or the step budget.
 */
import type { LossFn, SftOptions, SftProgress, SftResult, TeacherTurn, TrainItem } from "../../core/contracts/index.ts"
import { derive } from "../../core/host.ts"
import type { TinyLMPolicy } from "./policy.ts"

/** Mean token NLL over the minibatch: loss = −Σ logp / n, d loss / d logp = −1/n. */
export const nllLoss: LossFn = (fwd) => {
  let n = 0
  let s = 0
  for (const f of fwd) {
    n += f.logprobs.length
    for (let i = 0; i < f.logprobs.length; i++) s += f.logprobs[i]!
  }
  const g = n > 0 ? -1 / n : 0
  return {
    loss: n > 0 ? -s / n : 0,
    grads: fwd.map((f) => ({ dLogprobs: new Float32Array(f.logprobs.length).fill(g), dEntropy: new Float32Array(f.logprobs.length), dValues: new Float32Array(f.logprobs.length) })),
    stats: { "sft/nll": n > 0 ? -s / n : 0 }
  }
}

/** SFT was stopped through `signal` before its budget; nothing is to be kept. */
export class SftStopped extends Error {
  override readonly name = "SftStopped"
  constructor(readonly step: number) {
    super(`SFT stopped at step ${step}`)
  }
}

/** Train on teacher turns; 1/32 of them (at least 32) are held out for token accuracy. */
export const runSft = async (policy: TinyLMPolicy, turns: ReadonlyArray<TeacherTurn>, o: SftOptions, onProgress?: (p: SftProgress) => void): Promise<SftResult> => {
  const items: TrainItem[] = turns.map((t) => ({ prompt: t.prompt, tokens: policy.tokenizer.encode(t.completion) }))
  const rng = derive(o.seed, "sft-order")
  rng.shuffle(items)
  const nHeld = Math.min(Math.max(32, Math.floor(items.length / 32)), Math.floor(items.length / 2))
  const held = items.slice(0, nHeld)
  const train = items.slice(nHeld)
  const t0 = performance.now()
  let loss = 0,
    acc = 0,
    tokens = 0,
    cursor = train.length,
    step = 0
  for (step = 1; step <= o.steps; step++) {
    if (o.signal && step % 10 === 0) {
      await new Promise<void>((resolve) => setTimeout(resolve, 0))
      if (o.signal.aborted) throw new SftStopped(step)
    }
    if (cursor + o.batch > train.length) {
      rng.shuffle(train)
      cursor = 0
    }
    const mb = train.slice(cursor, cursor + o.batch)
    cursor += o.batch
    for (const it of mb) tokens += it.tokens.length
    loss = (await policy.accumulate(mb, nllLoss)).loss
    // Linear cooldown over the last `cooldown` share of the budget: a constant lr leaves the final
    // weights wherever the last noisy minibatches put them.
    const cool = Math.max(0, Math.min(1, o.cooldown ?? 0)) * o.steps
    const lr = cool > 0 && step > o.steps - cool ? (o.lr * (o.steps - step + 1)) / (cool + 1) : o.lr
    policy.step({ lr, maxGradNorm: o.maxGradNorm })
    const last = step === o.steps
    let heldOut: number | undefined
    if (step % o.evalEvery === 0 || last) {
      acc = heldOut = policy.tokenAccuracy(held)
    }
    onProgress?.({ step, loss, heldOutAcc: heldOut, seconds: (performance.now() - t0) / 1000 })
    if (heldOut !== undefined && heldOut >= o.targetAcc) break
  }
  if (step > o.steps) step = o.steps
  return { steps: step, loss, heldOutAcc: acc, seconds: (performance.now() - t0) / 1000, tokens }
}
