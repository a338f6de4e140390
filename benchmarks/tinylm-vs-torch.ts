/**
 * tinylm (js and wasm kernels) side by side with PyTorch on the CPU (issue 4 "Figures"):
 * the same GPT (vocab 128, d 64, 2 layers, 4 heads), the same batch, alternating runs.
 *   train: forward + backward + AdamW, loss on every position (as the torch script)
 *   score: forward only, per-token log-probs of every position
 *   sample: ours with the KV cache (128 sequences from a 1-token prompt, chunks of 32) vs torch's
 *           uncached generate() of the same count (torch_tiny_gpt.py --bench gen)
 * GFLOP/s with the torch script's counts (6N + 12·L·d·T train, 2N + 4·L·d·T forward; N = matmul
 * weights incl. the tied head) for both sides; peak ≈ 400 GFLOP/s fp32 on 2 cores (AVX-512 FMA).
 * Torch gets --threads (default 2); ours with wasm kernels gets RAGEN_THREADS (default 2 on a
 * 2-core machine: plugins/tinylm/kernels/wasm/pool.ts), the js reference kernels one thread.
 * Usage: bun benchmarks/tinylm-vs-torch.ts [--reps 5] [--threads 2] [--json] [--no-js] [--case ctx64|tiny]
 */
import { spawnSync } from "node:child_process"
import { Rng } from "../core/rng.ts"
import { plainKernels, useKernels, wasmKernels, wasmSelfCheck } from "../plugins/tinylm/kernels/dispatch.ts"
import { kernelThreads } from "../plugins/tinylm/kernels/wasm/pool.ts"
import { TinyLMPolicy } from "../plugins/tinylm/policy.ts"
import { nllLoss } from "../plugins/tinylm/sft.ts"
import { Tokenizer } from "../plugins/tinylm/tokenizer.ts"

const args = process.argv.slice(2)
const opt = (name: string, d: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : d)
const reps = Number(opt("--reps", "5"))
const threads = Number(opt("--threads", "2"))
const json = args.includes("--json")
const withJs = !args.includes("--no-js")
const only = opt("--case", "")
const PY = "/usr/bin/python3"
const TORCH = "/work/shared/reference/torch_tiny_gpt.py"

interface Case { readonly name: string; readonly ctx: number; readonly B: number; readonly genNew: number }
const cases: Case[] = [
  { name: "ctx64", ctx: 64, B: 32, genNew: 63 },
  { name: "tiny", ctx: 128, B: 32, genNew: 64 }
].filter((c) => only === "" || c.name === only)
const V = 128, D = 64, L = 2, NH = 4, GEN_SEQS = 128

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const nMatmul = L * 12 * D * D + D * V
const trainFlops = (T: number) => 6 * nMatmul + 12 * L * D * T
const fwdFlops = (T: number) => 2 * nMatmul + 4 * L * D * T

const torchAvailable = spawnSync(PY, ["-c", "import torch"], { encoding: "utf8" }).status === 0
if (!torchAvailable) console.log("PyTorch not available (`/usr/bin/python3 -c 'import torch'` fails): reporting ours only")

// 124 words + the tokenizer's specials fill the vocabulary of 128 exactly as torch's randint(0, 128)
const words = Array.from({ length: 200 }, (_, i) => `w${i}`)
let tok = Tokenizer.fromVocabulary(words)
tok = Tokenizer.fromVocabulary(words.slice(0, words.length - (tok.size - V)))
if (tok.size !== V) throw new Error(`tokenizer size ${tok.size} != ${V}`)

interface Ours { train: number; score: number; sample: number; rss: number }

const runOurs = async (c: Case, policy: TinyLMPolicy, wasm: boolean, steps: number): Promise<Ours> => {
  useKernels(wasm ? wasmKernels : plainKernels)
  const rng = new Rng(1)
  const T = c.ctx
  // prompt of 1 token + T − 1 scored tokens: T positions per row, T − 1 targets (torch: T targets)
  const items = Array.from({ length: c.B }, () => ({ prompt: rng.pick(words), tokens: Int32Array.from({ length: T - 1 }, () => tok.id(rng.pick(words))) }))
  const time = async (f: () => Promise<unknown>, n: number) => {
    await f()
    const ts: number[] = []
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      await f()
      ts.push((performance.now() - t0) / 1000)
    }
    return median(ts)
  }
  const train = await time(async () => {
    await policy.accumulate(items, nllLoss)
    policy.step({ lr: 1e-4, maxGradNorm: 1 })
  }, steps)
  const rss = process.memoryUsage().rss
  const score = await time(() => policy.score(items.map((it) => ({ prompt: it.prompt, continuation: it.tokens }))), steps)
  const prompts = Array.from({ length: GEN_SEQS }, () => rng.pick(words))
  let generated = 0
  const sample = await time(async () => {
    const cs = await policy.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: c.genNew, stop: "" }, new Rng(2))
    generated = cs.reduce((s, x) => s + x.tokens.length, 0)
  }, 1)
  const tokens = c.B * T
  return { train: tokens / train, score: tokens / score, sample: generated / sample, rss: rss / 2 ** 20 }
}

const runTorch = (c: Case): { train: number; score: number; sample: number } | undefined => {
  if (!torchAvailable) return undefined
  const r = spawnSync(PY, [TORCH, "--config", "tiny", "--vocab", String(V), "--ctx", String(c.ctx), "--batch", String(c.B), "--threads", String(threads),
    "--steps", "10", "--warmup", "3", "--gen-seqs", String(GEN_SEQS), "--gen-new", String(c.genNew), "--gen-reps", "1", "--json"], { encoding: "utf8" })
  const line = r.stdout.split("\n").find((l) => l.startsWith("JSON "))
  if (!line) {
    console.log(`torch run failed: ${r.stderr.slice(-300)}`)
    return undefined
  }
  const j = JSON.parse(line.slice(5))
  return { train: j.train_tok_s, score: j.fwd_tok_s, sample: j.gen_new_tok_s }
}

console.log(`wasm self-check: max rel diff ${wasmSelfCheck().toExponential(2)}; reps ${reps}, torch threads ${threads}, ours (wasm) ${kernelThreads()} thread(s)`)
const rows: Array<Record<string, unknown>> = []
for (const c of cases) {
  const policy = new TinyLMPolicy(tok, {
    config: { vocab: V, ctx: c.ctx, d: D, layers: L, heads: NH },
    seed: 0,
    adam: { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 },
    schedule: { kind: "constant" },
    microBatch: c.B
  })
  const js: Ours[] = [], wa: Ours[] = [], th: Array<{ train: number; score: number; sample: number }> = []
  for (let r = 0; r < reps; r++) {
    // alternate: wasm, torch, js (js only every rep when asked: it is slow)
    wa.push(await runOurs(c, policy, true, 5))
    const t = runTorch(c)
    if (t) th.push(t)
    if (withJs) js.push(await runOurs(c, policy, false, 2))
    console.log(`  ${c.name} rep ${r + 1}: wasm train ${Math.round(wa.at(-1)!.train)} score ${Math.round(wa.at(-1)!.score)} sample ${Math.round(wa.at(-1)!.sample)}` +
      (t ? ` | torch train ${Math.round(t.train)} score ${Math.round(t.score)} gen ${Math.round(t.sample)}` : "") +
      (withJs ? ` | js train ${Math.round(js.at(-1)!.train)} score ${Math.round(js.at(-1)!.score)} sample ${Math.round(js.at(-1)!.sample)}` : ""))
  }
  const med = (xs: ReadonlyArray<Record<string, number>>, k: string) => (xs.length ? median(xs.map((x) => x[k]!)) : NaN)
  const T = c.ctx
  const row: Record<string, unknown> = { case: `${c.name}: d64 2L 4H vocab 128 ctx ${T}, batch ${c.B}x${T}` }
  for (const [name, xs] of [["wasm", wa], ["js", js], ["torch", th]] as const) {
    const x = xs as unknown as ReadonlyArray<Record<string, number>>
    row[name] = {
      train: Math.round(med(x, "train")), trainGflops: +((med(x, "train") * trainFlops(T)) / 1e9).toFixed(1),
      score: Math.round(med(x, "score")), scoreGflops: +((med(x, "score") * fwdFlops(T)) / 1e9).toFixed(1),
      sample: Math.round(med(x, "sample"))
    }
  }
  const w = row.wasm as Record<string, number>, t = row.torch as Record<string, number>
  row.ratio = { train: +(w.train! / t.train!).toFixed(2), score: +(w.score! / t.score!).toFixed(2), sample: +(w.sample! / t.sample!).toFixed(2) }
  // torch's 2 OpenMP threads collapse when the CPU is shared (10x swings between reps), ours
  // much less: the conservative figure compares our median with torch's best rep
  const best = (k: "train" | "score" | "sample") => Math.max(...th.map((x) => x[k]))
  row.torchBest = { train: Math.round(best("train")), score: Math.round(best("score")), sample: Math.round(best("sample")) }
  row.ratioVsTorchBest = { train: +(w.train! / best("train")).toFixed(2), score: +(w.score! / best("score")).toFixed(2), sample: +(w.sample! / best("sample")).toFixed(2) }
  row.peakRssMiB = Math.round(median(wa.map((x) => x.rss)))
  rows.push(row)
  console.log(json ? JSON.stringify(row) : `${row.case}\n  wasm ${JSON.stringify(row.wasm)}\n  js ${JSON.stringify(row.js)}\n  torch ${JSON.stringify(row.torch)}\n  ratio wasm/torch ${JSON.stringify(row.ratio)}; torch best rep ${JSON.stringify(row.torchBest)}, ratio vs it ${JSON.stringify(row.ratioVsTorchBest)}; RSS ${row.peakRssMiB} MiB`)
}
