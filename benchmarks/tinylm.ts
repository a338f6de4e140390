/**
 * tinylm throughput (docs/decisions.md#issue-4): training tokens/s (forward + backward + AdamW), scoring tokens/s
 * (forward only) and sampling tokens/s with the KV cache, for tiny and small at 32 × 128 and the
 * d64/2L/4H/ctx64 model at 32 × 64; GFLOP/s from nanoGPT's 6·N-style count (forward ×3 for training);
 * peak RSS after a training step. Kernels: RAGEN_KERNELS=native|wasm|js (default auto: native where it
 * loads, else wasm). Timed with tinybench (median latency of --iters calls after one warm-up).
 * Usage: bun benchmarks/tinylm.ts [--iters 3] [--json]; side by side with PyTorch: benchmarks/tinylm-vs-torch.ts
 */
import { Rng } from "../core/rng.ts"
import { selectKernels } from "../plugins/tinylm/kernels/dispatch.ts"
import { forwardFlopsPerToken } from "../plugins/tinylm/config.ts"
import { TinyLMPolicy } from "../plugins/tinylm/policy.ts"
import { nllLoss } from "../plugins/tinylm/sft.ts"
import { Tokenizer } from "../plugins/tinylm/tokenizer.ts"
import { Bench } from "tinybench"
import { figures, runtime, tinybenchVersion } from "./_tinybench.ts"

const args = process.argv.slice(2)
const iters = Number(args[args.indexOf("--iters") + 1] ?? 3) || 3
const json = args.includes("--json")

const words = Array.from({ length: 40 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`)
const tok = Tokenizer.fromVocabulary(words)

interface Case {
  readonly name: string
  readonly ctx: number
  readonly d: number
  readonly layers: number
  readonly heads: number
  readonly B: number
  readonly T: number
}
const cases: Case[] = [
  { name: "d64-2L-4H ctx64 32x64", ctx: 64, d: 64, layers: 2, heads: 4, B: 32, T: 64 },
  { name: "tiny 32x128", ctx: 128, d: 64, layers: 2, heads: 4, B: 32, T: 128 },
  { name: "small 32x128", ctx: 256, d: 128, layers: 4, heads: 4, B: 32, T: 128 }
]

for (const c of cases) {
  const p = new TinyLMPolicy(tok, {
    config: { vocab: tok.size, ctx: c.ctx, d: c.d, layers: c.layers, heads: c.heads },
    seed: 0,
    adam: { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01 },
    schedule: { kind: "constant" },
    microBatch: c.B
  })
  const rng = new Rng(1)
  const half = c.T / 2
  // prompt of T/2 tokens, completion of T/2 tokens (loss on the completion, as in RL)
  const items = Array.from({ length: c.B }, () => ({
    prompt: Array.from({ length: half }, () => rng.pick(words)).join(" "),
    tokens: Int32Array.from({ length: half }, () => tok.id(rng.pick(words)))
  }))
  const flopsTok = forwardFlopsPerToken(p.settings.config, c.T)
  /** Median seconds of one call over `iters` calls after a warm-up (tinybench). */
  const time = async (f: () => Promise<unknown>) => {
    const bench = new Bench({ iterations: iters, time: 0, warmupIterations: 1 })
    bench.add("call", f)
    await bench.run()
    return figures(bench.tasks[0]!).medianMs / 1000
  }
  const tokens = c.B * c.T
  const train = await time(async () => {
    await p.accumulate(items, nllLoss)
    p.step({ lr: 1e-4, maxGradNorm: 1 })
  })
  const rss = process.memoryUsage().rss
  const score = await time(() => p.score(items.map((it) => ({ prompt: it.prompt, continuation: it.tokens }))))
  let generated = 0
  const prompts = items.map((it) => it.prompt)
  const sample = await time(async () => {
    const cs = await p.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: half, stop: "" }, new Rng(2))
    generated = cs.reduce((s, x) => s + x.tokens.length, 0)
  })
  const row = {
    task: `tinylm ${c.name}`,
    params: p.parameterCount,
    trainTokPerS: Math.round(tokens / train),
    trainGflops: +((3 * flopsTok * tokens) / train / 1e9).toFixed(2),
    scoreTokPerS: Math.round(tokens / score),
    scoreGflops: +((flopsTok * tokens) / score / 1e9).toFixed(2),
    sampleTokPerS: Math.round(generated / sample),
    peakRssMiB: Math.round(rss / 2 ** 20),
    kernels: `${selectKernels().name} ${selectKernels().isa}`,
    runtime,
    tinybench: tinybenchVersion
  }
  console.log(
    json
      ? JSON.stringify(row)
      : `${row.task} [${row.kernels}]: ${row.params} params | train ${row.trainTokPerS} tok/s (${row.trainGflops} GFLOP/s) | score ${row.scoreTokPerS} tok/s (${row.scoreGflops} GFLOP/s) | sample ${row.sampleTokPerS} tok/s | RSS ${row.peakRssMiB} MiB`
  )
}
