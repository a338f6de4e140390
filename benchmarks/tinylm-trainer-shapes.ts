/**
 * tinylm at the shapes the trainer uses (core/train/loop.ts): update batches of many short rows,
 * prompt 30–40 + completion 10–20 tokens, microBatch 32, tiny preset (ctx 128). Train = accumulate
 * over 4 × 32 items + one AdamW step (loss on completion tokens); score the same 128 rows; sample
 * 64 prompts × ≤ 15 new tokens with the KV cache. Tokens/s count prompt + completion tokens.
 * Timed with tinybench (median latency of `reps` calls per task).
 * Kernels: the process's choice (RAGEN_KERNELS=native|wasm|js, default auto).
 *   --splits: the native kernels' two-thread split thresholds (plugins/tinylm/kernels/native/loader.ts)
 *   re-measured: alternating rounds over matmul thresholds 2^19..2^23 multiply-adds (pointwise 2^-4 of
 *   that) and one thread, medians per setting.
 * Usage: bun benchmarks/tinylm-trainer-shapes.ts [reps = 10] [--splits] [--rounds 3]
 */
import { loadavg } from "node:os"
import { Bench } from "tinybench"
import { Rng } from "../core/rng.ts"
import { selectKernels, useKernels } from "../plugins/tinylm/kernels/dispatch.ts"
import { NATIVE_SPLIT_MATMUL, NATIVE_SPLIT_POINTWISE, nativeKernelsFor, setNativeSplits } from "../plugins/tinylm/kernels/native/loader.ts"
import { nativeStatus } from "../plugins/tinylm/kernels/native/ffi.ts"
import { TinyLMPolicy } from "../plugins/tinylm/policy.ts"
import { nllLoss } from "../plugins/tinylm/sft.ts"
import { Tokenizer } from "../plugins/tinylm/tokenizer.ts"
import { figures, jsonLine, median, runtime, tinybenchVersion } from "./_tinybench.ts"

const argv = process.argv.slice(2)
const reps = Number(argv.find((a) => /^\d+$/.test(a)) ?? 10)
const rounds = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 3
const words = Array.from({ length: 60 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`)
const tok = Tokenizer.fromVocabulary(words)
const p = new TinyLMPolicy(tok, {
  config: { vocab: tok.size, ctx: 128, d: 64, layers: 2, heads: 4 },
  seed: 0,
  adam: { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01 },
  schedule: { kind: "constant" },
  microBatch: 32
})
const rng = new Rng(1)
const items = Array.from({ length: 128 }, () => ({
  prompt: Array.from({ length: 30 + rng.int(11) }, () => rng.pick(words)).join(" "),
  tokens: Int32Array.from({ length: 10 + rng.int(11) }, () => tok.id(rng.pick(words)))
}))
const scoreReqs = items.map((it) => ({ prompt: it.prompt, continuation: it.tokens }))
let ntok = 0,
  gen = 0
for (const it of items) ntok += it.tokens.length + tok.encode(it.prompt).length

/** Median tok/s of train, score and sample over `reps` calls each. */
const measure = async (n: number): Promise<{ train: number; score: number; sample: number }> => {
  let r = 0
  const bench = new Bench({ iterations: n, time: 0, warmupIterations: 1 })
  bench.add("train", async () => {
    for (let k = 0; k < 128; k += 32) await p.accumulate(items.slice(k, k + 32), nllLoss)
    p.step({ lr: 1e-4, maxGradNorm: 1 })
  })
  bench.add("score", () => p.score(scoreReqs))
  bench.add("sample", async () => {
    const cs = await p.sample(
      items.slice(0, 64).map((i) => i.prompt),
      { temperature: 1, topP: 1, minP: 0, maxTokens: 15, stop: "" },
      new Rng(r++)
    )
    gen = cs.reduce((s, c) => s + c.tokens.length, 0)
  })
  await bench.run()
  const [tr, sc, sa] = bench.tasks.map(figures)
  return { train: (ntok / tr!.medianMs) * 1000, score: (ntok / sc!.medianMs) * 1000, sample: (gen / sa!.medianMs) * 1000 }
}

const sel = selectKernels()
if (!argv.includes("--splits")) {
  const m = await measure(reps)
  console.log(
    `[${sel.name} ${sel.isa}] trainer shapes (128 items, prompt 30-40 + completion 10-20, ${ntok} tokens; ${runtime}, tinybench ${tinybenchVersion}, load ${loadavg()[0]!.toFixed(1)}): train ${Math.round(m.train)} tok/s, score ${Math.round(m.score)} tok/s, sample ${Math.round(m.sample)} tok/s`
  )
  jsonLine("tinylm-trainer-shapes", { kernels: sel.name, isa: sel.isa, tokens: ntok, trainTokS: Math.round(m.train), scoreTokS: Math.round(m.score), sampleTokS: Math.round(m.sample) })
} else {
  const st = nativeStatus()
  if (!st.ok) throw new Error(`--splits measures the native kernels, which do not load here: ${st.why}`)
  useKernels(nativeKernelsFor(st.lib.cpuIsa))
  const settings = [19, 20, 21, 22, 23].map((e) => ({ name: `split from 2^${e}`, matmul: 2 ** e, pointwise: 2 ** (e - 4) }))
  settings.push({ name: "one thread", matmul: Infinity, pointwise: Infinity })
  const got: Record<string, Array<{ train: number; score: number; sample: number }>> = Object.fromEntries(settings.map((s) => [s.name, []]))
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 === 0 ? settings : [...settings].reverse()) {
      setNativeSplits(s.matmul, s.pointwise)
      got[s.name]!.push(await measure(reps))
    }
    console.log(`round ${r + 1}/${rounds} done (load ${loadavg()[0]!.toFixed(1)})`)
  }
  setNativeSplits(NATIVE_SPLIT_MATMUL, NATIVE_SPLIT_POINTWISE)
  console.log(
    `native ${st.lib.cpuIsa}, trainer shapes (${ntok} tokens), ${rounds} alternating rounds × ${reps} calls; medians of the rounds' medians (tok/s); ${runtime}, tinybench ${tinybenchVersion}`
  )
  console.log("| setting | train | score | sample |")
  console.log("|---|---|---|---|")
  for (const s of settings) {
    const xs = got[s.name]!
    const row = { train: median(xs.map((x) => x.train)), score: median(xs.map((x) => x.score)), sample: median(xs.map((x) => x.sample)) }
    console.log(`| ${s.name} | ${Math.round(row.train)} | ${Math.round(row.score)} | ${Math.round(row.sample)} |`)
    jsonLine("tinylm-trainer-shapes-splits", { isa: st.lib.cpuIsa, setting: s.name, trainTokS: Math.round(row.train), scoreTokS: Math.round(row.score), sampleTokS: Math.round(row.sample) })
  }
}
