/**
 * A tinylm policy with non-trivial weights and a cross-scoring batch with the awkward cases:
 * prompts longer than ctx, a reasoning longer than ctx − 1 (scored tokens < its length), an
 * empty reasoning, repeated reasonings and prompts, a one-word prompt. Shared by the Deno parity
 * script, the Bun scorer test and the browser test (same seed, same numbers).
 */
import { Rng } from "../../core/rng.ts"
import { TinyLMPolicy } from "../../plugins/tinylm/policy.ts"
import { Tokenizer } from "../../plugins/tinylm/tokenizer.ts"

const WORDS = [
  "you",
  "are",
  "on",
  "a",
  "frozen",
  "lake",
  "move",
  "left",
  "right",
  "up",
  "down",
  "goal",
  "hole",
  "the",
  "agent",
  "is",
  "at",
  "row",
  "col",
  "grid",
  "think",
  "so",
  "go",
  "safe",
  "next",
  "step"
]

export const fixturePolicy = (seed = 11, config: { ctx: number; d: number; layers: number; heads: number } = { ctx: 64, d: 64, layers: 2, heads: 4 }): TinyLMPolicy => {
  const tok = Tokenizer.fromVocabulary(WORDS)
  const p = new TinyLMPolicy(tok, { config: { vocab: tok.size, ...config }, seed, adam: { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0 }, schedule: { kind: "constant" }, microBatch: 16 }, false)
  // GPT-2 init gives near-uniform predictions; spread the weights so log-probs vary a lot
  const rng = new Rng(seed).split("fixture")
  const x = p.model.params
  for (let i = 0; i < x.length; i++) x[i] = x[i]! + rng.normal() * 0.08
  return p
}

const sentence = (rng: Rng, n: number) => Array.from({ length: n }, () => WORDS[rng.int(WORDS.length)]!).join(" ")

export interface Batch {
  readonly prompts: string[]
  readonly reasonings: string[]
  /** Row r's own prompt column. */
  readonly column: Int32Array
}

/** `cols` prompts, `rows` reasonings (row r belongs to prompt r mod cols). */
export const fixtureBatch = (rows = 12, cols = 6, seed = 5): Batch => {
  const rng = new Rng(seed)
  const prompts = Array.from({ length: cols }, (_, j) => `${sentence(rng, j === 0 ? 90 : 5 + rng.int(20))} <think>`)
  if (cols > 2) prompts[2] = "lake"
  if (cols > 4) prompts[4] = prompts[3]!
  const reasonings = Array.from({ length: rows }, (_, r) => (r === 1 ? "" : sentence(rng, r === 0 ? 80 : 2 + rng.int(12))))
  if (rows > 5) reasonings[5] = reasonings[3]!
  return { prompts, reasonings, column: Int32Array.from({ length: rows }, (_, r) => r % cols) }
}
