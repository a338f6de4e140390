/**
 * tinylm at the shapes the trainer uses (core/train/loop.ts): update batches of many short rows,
 * prompt 30–40 + completion 10–20 tokens, microBatch 32, tiny preset (ctx 128). Train = accumulate
 * over 4 × 32 items + one AdamW step (loss on completion tokens); score the same 128 rows; sample
 * 64 prompts × ≤ 15 new tokens with the KV cache. Tokens/s count prompt + completion tokens.
 * Kernels: RAGEN_KERNELS=js|wasm. Usage: bun benchmarks/tinylm-trainer-shapes.ts [reps = 10]
 */
import { Rng } from "../core/rng.ts"
import { selectKernels } from "../plugins/tinylm/kernels/dispatch.ts"
import { TinyLMPolicy } from "../plugins/tinylm/policy.ts"
import { nllLoss } from "../plugins/tinylm/sft.ts"
import { Tokenizer } from "../plugins/tinylm/tokenizer.ts"
const words = Array.from({ length: 60 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`)
const tok = Tokenizer.fromVocabulary(words)
const p = new TinyLMPolicy(tok, { config: { vocab: tok.size, ctx: 128, d: 64, layers: 2, heads: 4 }, seed: 0, adam: { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01 }, schedule: { kind: "constant" }, microBatch: 32 })
const rng = new Rng(1)
const items = Array.from({ length: 128 }, () => ({
  prompt: Array.from({ length: 30 + rng.int(11) }, () => rng.pick(words)).join(" "),
  tokens: Int32Array.from({ length: 10 + rng.int(11) }, () => tok.id(rng.pick(words)))
}))
const reps = Number(process.argv[2] ?? 10)
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const tr: number[] = [], sc: number[] = [], sa: number[] = []
let ntok = 0, gen = 0
for (const it of items) ntok += it.tokens.length + tok.encode(it.prompt).length
for (let r = 0; r < reps; r++) {
  let t0 = performance.now()
  for (let k = 0; k < 128; k += 32) await p.accumulate(items.slice(k, k + 32), nllLoss)
  p.step({ lr: 1e-4, maxGradNorm: 1 })
  tr.push(performance.now() - t0)
  t0 = performance.now()
  await p.score(items.map((it) => ({ prompt: it.prompt, continuation: it.tokens })))
  sc.push(performance.now() - t0)
  t0 = performance.now()
  const cs = await p.sample(items.slice(0, 64).map((i) => i.prompt), { temperature: 1, topP: 1, minP: 0, maxTokens: 15, stop: "" }, new Rng(r))
  gen = cs.reduce((s, c) => s + c.tokens.length, 0)
  sa.push(performance.now() - t0)
}
console.log(`[${selectKernels().name}] trainer shapes (128 items, prompt 30-40 + completion 10-20, ${ntok} tokens): train ${Math.round(ntok / med(tr) * 1000)} tok/s (${med(tr).toFixed(0)} ms), score ${Math.round(ntok / med(sc) * 1000)} tok/s, sample ${Math.round(gen / med(sa) * 1000)} tok/s`)
