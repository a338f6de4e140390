/**
 * Typed model config (nanoGPT `GPTConfig` style) with presets and the parameter size table.
 *
 * Legend used across plugins/tinylm: V vocabulary size, Vp V padded to a multiple of 16 (rows of
 * the tied embedding that are never a target), T context length, C channels (d), L layers,
 * NH heads, hs = C/NH head size.
 */

export interface ModelConfig {
  /** Vocabulary size from the tokenizer (≤ Vp). */
  readonly vocab: number
  /** Context length (max positions). */
  readonly ctx: number
  /** Channels (model width d). */
  readonly d: number
  readonly layers: number
  readonly heads: number
}

export type PresetName = "tiny" | "small"

/** tiny: 115,521 parameters on FrozenLake's vocabulary (`parameterCount`, docs/tinylm.md); the docs/design.md §10 prototype's GPT of the same shape has about 107k (its own vocabulary). */
export const PRESETS: Record<PresetName, Omit<ModelConfig, "vocab">> = {
  tiny: { ctx: 128, d: 64, layers: 2, heads: 4 },
  small: { ctx: 256, d: 128, layers: 4, heads: 4 }
}

/** Largest vocabulary a preset accepts: 4096 words (the text envs' vocabularies; docs/decisions.md#issue-4 first capped it at 512). */
export const MAX_VOCAB = 4096

export const paddedVocab = (v: number): number => Math.ceil(v / 16) * 16

/** Parameter tensors in storage order (llm.c's ParameterTensors plus the value head). */
export const parameterShapes = (c: ModelConfig): Array<readonly [string, ReadonlyArray<number>]> => {
  const { ctx: T, d: C, layers: L } = c
  const Vp = paddedVocab(c.vocab)
  return [
    ["wte", [Vp, C]], // token embedding, tied with the output head
    ["wpe", [T, C]], // position embedding
    ["ln1w", [L, C]],
    ["ln1b", [L, C]],
    ["qkvw", [L, 3 * C, C]],
    ["qkvb", [L, 3 * C]],
    ["attprojw", [L, C, C]],
    ["attprojb", [L, C]],
    ["ln2w", [L, C]],
    ["ln2b", [L, C]],
    ["fcw", [L, 4 * C, C]],
    ["fcb", [L, 4 * C]],
    ["fcprojw", [L, C, 4 * C]],
    ["fcprojb", [L, C]],
    ["lnfw", [C]],
    ["lnfb", [C]],
    ["valuew", [C]], // scalar value head on the final hidden state (PPO)
    ["valueb", [1]]
  ]
}

/** Tensors that get weight decay (matrices only, as nanoGPT's configure_optimizers). */
export const DECAYED = new Set(["wte", "wpe", "qkvw", "attprojw", "fcw", "fcprojw"])

export const numel = (shape: ReadonlyArray<number>): number => shape.reduce((a, b) => a * b, 1)

/** Trainable parameters (the padded vocabulary rows count: they exist and get decay). */
export const parameterCount = (c: ModelConfig): number => parameterShapes(c).reduce((a, [, s]) => a + numel(s), 0)

/** Forward FLOPs per token at sequence length `t` (2 per multiply-add; nanoGPT's estimate_mfu). */
export const forwardFlopsPerToken = (c: ModelConfig, t: number): number => {
  const C = c.d
  const matmuls = c.layers * (3 * C * C + C * C + 8 * C * C) + paddedVocab(c.vocab) * C
  const attention = c.layers * 2 * C * t // q·k and att·v over ~t/2 keys on average, ×2 ops
  return 2 * matmuls + attention
}

/** Check a config; returns the offending field and why, or undefined. */
export const checkConfig = (c: ModelConfig): { field: string; message: string } | undefined => {
  if (!(c.vocab >= 8 && c.vocab <= MAX_VOCAB)) return { field: "vocab", message: `vocabulary size ${c.vocab} must be in 8..${MAX_VOCAB}` }
  if (!(c.ctx >= 8 && c.ctx <= 2048)) return { field: "ctx", message: `ctx ${c.ctx} must be in 8..2048` }
  if (!(c.heads >= 1 && c.d % c.heads === 0)) return { field: "heads", message: `d ${c.d} must be divisible by heads ${c.heads}` }
  if (!(c.d >= 4 && c.d % 4 === 0)) return { field: "d", message: `d ${c.d} must be a positive multiple of 4` }
  if (!(c.layers >= 1 && c.layers <= 48)) return { field: "layers", message: `layers ${c.layers} must be in 1..48` }
  return undefined
}
