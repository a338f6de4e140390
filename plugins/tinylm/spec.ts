/**
 * The tinylm policy spec: a small GPT policy trained on the CPU (docs/design.md §8).
 * Options decode to a full TinyLMSettings; the tokenizer comes from PolicyContext.vocabulary.
 */
import { Schema } from "effect"
import type { PolicyContext, PolicySpec } from "../../core/contracts/index.ts"
import { PRESETS } from "./config.ts"
import { selectKernels } from "./kernels/dispatch.ts"
import { policyFromCheckpoint, type TinyLMSettings, TinyLMPolicy } from "./policy.ts"
import { Tokenizer } from "./tokenizer.ts"
import { withDefault as dflt } from "../../core/host.ts"

const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const Unit = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

export const TinyLMOptions = Schema.Struct({
  /** tiny: ctx 128, d 64, 2 layers, 4 heads; small: ctx 256, d 128, 4 layers, 4 heads. */
  preset: dflt(Schema.Literals(["tiny", "small"]), "tiny"),
  /** Model vocabulary size (≥ the tokenizer's; default: the tokenizer's). */
  vocab: Schema.optional(PosInt),
  ctx: Schema.optional(PosInt),
  d: Schema.optional(PosInt),
  layers: Schema.optional(PosInt),
  heads: Schema.optional(PosInt),
  /** Init seed (default: the run seed). */
  seed: Schema.optional(Schema.Int),
  /** AdamW decoupled weight decay on matrices (torch default 0.01). */
  weightDecay: dflt(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)), 0.01),
  /** AdamW betas (the paper's reference code, verl's default: 0.9, 0.999). */
  betas: dflt(Schema.Tuple([Unit, Unit]), [0.9, 0.999]),
  eps: dflt(Schema.Finite, 1e-8),
  /** Multiplier of the trainer's lr: constant, or linear warmup then cosine to minLrRatio. */
  lrSchedule: dflt(Schema.Literals(["constant", "cosine"]), "constant"),
  warmupSteps: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 0),
  totalSteps: dflt(PosInt, 1000),
  minLrRatio: dflt(Unit, 0.1),
  /** Rows per forward chunk (memory ∝ rows × ctx). */
  microBatch: dflt(PosInt, 32),
  /** Rows that continue the same prompt compute it once (prefix.ts); false: every row alone (same forward numbers, slower). */
  sharePrefix: dflt(Schema.Boolean, true),
  /** PPO: let the value loss train the shared trunk too (default: the value head learns on detached features, like a separate critic). */
  valueTrunkGrad: dflt(Schema.Boolean, false),
  /** A tinylm checkpoint to start from (its config and tokenizer win over the options above). */
  init: Schema.optional(Schema.String),
  /** Kernel backend, process-wide (docs/kernels.md): auto = native where it loads, else wasm; env RAGEN_KERNELS overrides. */
  kernels: dflt(Schema.Literals(["auto", "native", "wasm", "js"]), "auto")
})
export type TinyLMOptions = typeof TinyLMOptions.Type

export const settingsOf = (o: TinyLMOptions, vocab: number, seed: number): TinyLMSettings => {
  const p = PRESETS[o.preset]
  return {
    config: { vocab: o.vocab ?? vocab, ctx: o.ctx ?? p.ctx, d: o.d ?? p.d, layers: o.layers ?? p.layers, heads: o.heads ?? p.heads },
    seed: o.seed ?? seed,
    adam: { beta1: o.betas[0], beta2: o.betas[1], eps: o.eps, weightDecay: o.weightDecay },
    schedule: o.lrSchedule === "constant" ? { kind: "constant" } : { kind: "cosine", warmupSteps: o.warmupSteps, totalSteps: o.totalSteps, minLrRatio: o.minLrRatio },
    microBatch: o.microBatch,
    sharePrefix: o.sharePrefix,
    valueTrunkGrad: o.valueTrunkGrad
  }
}

export const makeTinyLM = async (o: TinyLMOptions, ctx: PolicyContext): Promise<TinyLMPolicy> => {
  selectKernels(o.kernels)
  const tok = Tokenizer.fromVocabulary(ctx.vocabulary)
  const s = settingsOf(o, tok.size, ctx.seed)
  if (o.init !== undefined) return policyFromCheckpoint(o.init, s)
  return new TinyLMPolicy(tok, s)
}

export const tinylmSpec: PolicySpec<TinyLMOptions> = {
  id: "tinylm",
  description: "Small GPT (token+position embeddings, pre-LN blocks, tied head, value head) trained on the CPU; presets tiny (d64 2L) and small (d128 4L)",
  options: TinyLMOptions,
  trainable: true,
  make: makeTinyLM
}
