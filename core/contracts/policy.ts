/**
 * Policy contracts (docs/design.md §4). A Policy samples and scores text; a TrainablePolicy also
 * computes gradients of a loss that the algorithm supplies (algorithms stay out of kernels).
 * Methods are async so that remote policies (OpenAI-compatible servers) fit the same shape.
 */
import type { Schema } from "effect"
import type { Rng } from "./rng.ts"

export interface SampleOptions {
  readonly temperature: number
  /** Nucleus sampling mass (1 = off). */
  readonly topP: number
  /** Min-p cut relative to the top token's probability (0 = off). */
  readonly minP: number
  readonly maxTokens: number
  /** Stop after this string is produced (default "</answer>"). */
  readonly stop?: string
}

export interface Completion {
  readonly text: string
  /** Token ids of the completion (policy's own vocabulary; empty for text-only remotes). */
  readonly tokens: Int32Array
  /** Per-token log-prob under the sampling distribution (temperature, top-p, min-p). */
  readonly logprobs: Float32Array
  /** Per-token log-prob under the untempered model. */
  readonly rawLogprobs: Float32Array
  readonly finishReason: "stop" | "length" | "eos"
}

export interface ScoreRequest {
  readonly prompt: string
  /** Continuation as text, or as token ids produced by this policy's `sample`. */
  readonly continuation: string | Int32Array
}

export interface ScoreResult {
  readonly tokens: Int32Array
  /** Per-token log p(token | prompt, previous tokens) at temperature 1. */
  readonly logprobs: Float32Array
  /** Per-token entropy of the model's next-token distribution (nats). */
  readonly entropy: Float32Array
}

/**
 * What a scorer that runs the policy's forward itself (the WebGPU scorer) needs: the
 * architecture and its sizes, the weights by tensor name, and the tokenizer as `score` uses it.
 */
export interface ScoringExport {
  /** The forward these weights are for (tinylm: "gpt2"); a consumer refuses one it does not know. */
  readonly architecture: string
  /** The architecture's sizes by name (tinylm: vocab, ctx, d, layers, heads). */
  readonly config: Readonly<Record<string, number>>
  /** Each parameter tensor by name: views of the live weights, not copies. */
  readonly weights: ReadonlyMap<string, Float32Array>
  /** Rows that continue the same prompt share its activations (the scores are the same either way). */
  readonly sharePrefix: boolean
  /** Prompt tokens exactly as `score` encodes a prompt (an empty prompt included). */
  encodePrompt(prompt: string): Int32Array
  /** Continuation tokens as `score` encodes a text continuation. */
  encode(text: string): Int32Array
  decode(tokens: Int32Array): string
  /** Changes whenever the weights do, and differs between two policies' weights. */
  version(): string
}

export interface Policy {
  readonly id: string
  sample(prompts: ReadonlyArray<string>, options: SampleOptions, rng: Rng): Promise<Completion[]>
  score(requests: ReadonlyArray<ScoreRequest>): Promise<ScoreResult[]>
  /** Weights and tokenizer for a scorer that runs this policy's forward on another device. Optional. */
  exportForScoring?(): ScoringExport
}

/** One training sequence: a prompt and a completion produced by the policy. */
export interface TrainItem {
  readonly prompt: string
  readonly tokens: Int32Array
}

/** What the policy's forward pass gives the algorithm's loss, per item, per completion token. */
export interface TokenForward {
  readonly logprobs: Float32Array
  readonly entropy: Float32Array
  /** Value-head output per completion token (zeros when the policy has no value head). */
  readonly values: Float32Array
}

/** Gradients of the loss w.r.t. each per-token quantity, per item. */
export interface TokenGrads {
  readonly dLogprobs: Float32Array
  readonly dEntropy: Float32Array
  readonly dValues: Float32Array
}

export interface LossOutput {
  readonly loss: number
  readonly grads: ReadonlyArray<TokenGrads>
  /** Named statistics to log (e.g. "losses/policy", "losses/clipfrac"). */
  readonly stats: Readonly<Record<string, number>>
}

/** The algorithm's loss: called on the forward of a minibatch, returns loss and its gradients. */
export type LossFn = (forward: ReadonlyArray<TokenForward>) => LossOutput

export interface TrainablePolicy extends Policy {
  /** Forward + backward on a minibatch; gradients are accumulated (+=) until `step`. */
  accumulate(items: ReadonlyArray<TrainItem>, loss: LossFn): Promise<LossOutput>
  /** Global L2 norm of the accumulated gradients. */
  gradNorm(): number
  /** Clip, AdamW step, zero gradients. Returns the pre-clip gradient norm. */
  step(options: { readonly lr: number; readonly maxGradNorm: number }): number
  zeroGrad(): void
  /** A frozen copy (the reference policy for KL). */
  snapshot(): Promise<Policy>
  /** Save parameters, optimizer state (unless `optimizer: false`: a shipped warm start) and tokenizer to a checkpoint file. */
  save(path: string, options?: { readonly optimizer?: boolean }): Promise<void>
  /** Load a checkpoint written by `save`; fails on a model-config mismatch. */
  load(path: string): Promise<void>
  readonly parameterCount: number
  /** Forget the optimizer state (moments, step count) so RL starts fresh after SFT/--init. Optional. */
  resetOptimizer?(): void
  /** Forward only (no gradients): per-token logprobs/entropy/values of the items. Optional; else the trainer uses accumulate with a zero loss. */
  forward?(items: ReadonlyArray<TrainItem>): Promise<TokenForward[]>
  /**
   * Supervised warm start on teacher turns (docs/design.md §4, §10): the trainer's `sftSteps` and the
   * `sft` command use it. Optional: a policy without it can start from `init` only. When
   * `options.signal` aborts, it rejects with an Error named "SftStopped" and nothing is kept.
   */
  sft?(turns: ReadonlyArray<TeacherTurn>, options: SftOptions, onProgress?: (p: SftProgress) => void): Promise<SftResult>
}

/** One supervised example: a prompt and the teacher's completion ("<think>…</think><answer>…</answer>"). */
export interface TeacherTurn {
  readonly prompt: string
  readonly completion: string
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
  readonly signal?: AbortSignal
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

export interface PolicyContext {
  /** Words from the envs the policy will see (for word-level tokenizers). */
  readonly vocabulary: ReadonlyArray<string>
  readonly seed: number
}

export interface PolicySpec<Options = any> {
  readonly id: string
  readonly description: string
  readonly options: Schema.Codec<Options, any>
  readonly trainable: boolean
  make(options: Options, context: PolicyContext): Promise<Policy | TrainablePolicy>
}
