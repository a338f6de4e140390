/**
 * SFT warm-start on an env teacher's traces (DESIGN.md §4/§10): collect teacher turns on the
 * training seeds (10000.., §3) with action noise ε and reasoning noise, train on the completion
 * tokens with the mean token NLL (through `accumulate`, the same path RL uses), stop at a target
 * held-out token accuracy or the step budget. Prompts and completions use core/prompt.ts, so SFT
 * and RL see identical text.
 */
import type { EnvSpec, LossFn, TrainItem } from "../../core/contracts/index.ts"
import { buildPrompt, formatCompletion } from "../../core/prompt.ts"
import { derive } from "../../core/rng.ts"
import type { TinyLMPolicy } from "./policy.ts"

export interface TeacherTurn {
  readonly prompt: string
  readonly completion: string
}

export interface CollectOptions {
  readonly turns: number
  readonly epsilon: number
  readonly reasoningNoise: number
  readonly seed: number
  /** First env seed (DESIGN.md §3: training seeds start at 10000). */
  readonly seedStart?: number
  /** Shown at the top of each prompt (undefined: Markov prompts, the grid-env default). */
  readonly instructions?: string | undefined
  readonly maxTurns?: number
}

/** Teacher episodes until `turns` turns are collected; the env steps on the (noisy) action. */
export const collectTeacherTurns = (spec: EnvSpec, envOptions: unknown, o: CollectOptions): TeacherTurn[] => {
  const out: TeacherTurn[] = []
  const env = spec.make(envOptions)
  const maxTurns = o.maxTurns ?? spec.maxTurns
  for (let seed = o.seedStart ?? 10000; out.length < o.turns; seed++) {
    let obs = env.reset(seed)
    const rng = derive(o.seed, "sft-teacher", seed)
    for (let turn = 0; turn < maxTurns && !env.done && out.length < o.turns; turn++) {
      const t = env.teach({ epsilon: o.epsilon, reasoningNoise: o.reasoningNoise }, rng)
      out.push({ prompt: buildPrompt({ instructions: o.instructions, observation: obs }), completion: formatCompletion(t.reasoning, t.action) })
      const r = env.step(t.action)
      obs = r.observation
      if (r.terminated) break
    }
  }
  return out
}

/**
 * collectTeacherTurns for any env: awaits resetAsync/stepAsync when the env has them (remote-backed
 * envs throw on sync reset/step), else the same sync calls, so the turns are identical.
 */
export const collectTeacherTurnsAsync = async (spec: EnvSpec, envOptions: unknown, o: CollectOptions): Promise<TeacherTurn[]> => {
  const out: TeacherTurn[] = []
  const env = spec.make(envOptions)
  if (!env.resetAsync && !env.stepAsync) return collectTeacherTurns(spec, envOptions, o)
  const maxTurns = o.maxTurns ?? spec.maxTurns
  for (let seed = o.seedStart ?? 10000; out.length < o.turns; seed++) {
    let obs = env.resetAsync ? await env.resetAsync(seed) : env.reset(seed)
    const rng = derive(o.seed, "sft-teacher", seed)
    for (let turn = 0; turn < maxTurns && !env.done && out.length < o.turns; turn++) {
      const t = env.teach({ epsilon: o.epsilon, reasoningNoise: o.reasoningNoise }, rng)
      out.push({ prompt: buildPrompt({ instructions: o.instructions, observation: obs }), completion: formatCompletion(t.reasoning, t.action) })
      const r = env.stepAsync ? await env.stepAsync(t.action) : env.step(t.action)
      obs = r.observation
      if (r.terminated) break
    }
  }
  return out
}

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

export interface SftOptions {
  readonly steps: number
  readonly lr: number
  readonly batch: number
  /** Stop once held-out token accuracy reaches this (checked every `evalEvery` steps; > 1 = never). */
  readonly targetAcc: number
  readonly evalEvery: number
  readonly maxGradNorm: number
  readonly seed: number
  /** Share of the final steps over which lr decays linearly to 0 (0: constant lr, the default). */
  readonly cooldown?: number
  /** Checked every 10 steps (after a turn of the event loop, so Ctrl-C is seen). */
  readonly signal?: AbortSignal
}

/** SFT was stopped through `signal` before its budget; nothing is to be kept. */
export class SftStopped extends Error {
  override readonly name = "SftStopped"
  constructor(readonly step: number) {
    super(`SFT stopped at step ${step}`)
  }
}

export interface SftProgress {
  readonly step: number
  readonly loss: number
  readonly heldOutAcc: number | undefined
  readonly seconds: number
}

export interface SftResult {
  readonly steps: number
  readonly loss: number
  readonly heldOutAcc: number
  readonly seconds: number
  readonly tokens: number
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
  let loss = 0, acc = 0, tokens = 0, cursor = train.length, step = 0
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
    const lr = cool > 0 && step > o.steps - cool ? o.lr * (o.steps - step + 1) / (cool + 1) : o.lr
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
