/**
 * tinylm (native and wasm kernels, optionally js) side by side with PyTorch on the CPU, stock and
 * tuned (docs/decisions.md#issue-16): the same GPT (vocab 128, d 64, 2 layers, 4 heads), the same batch, alternating
 * runs in one script.
 *   train: forward + backward + AdamW, loss on every position (as the torch script)
 *   score: forward only, per-token log-probs of every position
 *   sample: ours with the KV cache (128 sequences from a 1-token prompt, chunks of 32) vs torch's
 *           uncached generate() of the same count (torch_tiny_gpt.py --bench gen; only with --sample:
 *           torch's uncached generation takes a minute per run on a loaded machine)
 * Ours is timed with tinybench (median latency of `--steps` calls per round); torch runs its own
 * script (median of 10 steps after 3 warm-up) once per round, stock and tuned:
 * OPENBLAS_CORETYPE=SkylakeX (OpenBLAS's AVX-512 kernels, which it does not pick on this CPU by
 * itself) MALLOC_MMAP_THRESHOLD_=MALLOC_TRIM_THRESHOLD_=1e9 (no page-fault churn).
 * GFLOP/s with the torch script's counts (6N + 12·L·d·T train, 2N + 4·L·d·T forward; N = matmul
 * weights incl. the tied head) for every side; share of a stated peak (--peak, default 400 GFLOP/s
 * fp32: 2 cores × 2 AVX-512 FMA pipes × 16 lanes × 2 flops × ≈ 3.1 GHz).
 * Torch gets --threads (default 2); ours RAGEN_THREADS (default 2 on a 2-core machine).
 * The torch script: ../shared/reference/torch_tiny_gpt.py from the project root (--torch-script to
 * override); python: the first `python3` on PATH that imports torch (--python to override).
 * Usage: bun benchmarks/tinylm-vs-torch.ts [--reps 5] [--steps 5] [--threads 2] [--json] [--js] [--sample] [--case ctx64|tiny] [--peak 400]
 */
import { spawnSync } from "node:child_process"
import { accessSync, constants } from "node:fs"
import { loadavg } from "node:os"
import { delimiter, join } from "node:path"
import { Bench } from "tinybench"
import { projectRoot } from "../core/runtime.ts"
import { Rng } from "../core/rng.ts"
import { type Kernels, plainKernels, selectKernels, useKernels, wasmKernels } from "../plugins/tinylm/kernels/dispatch.ts"
import { nativeStatus } from "../plugins/tinylm/kernels/native/ffi.ts"
import { nativeKernelsFor } from "../plugins/tinylm/kernels/native/loader.ts"
import { kernelThreads } from "../plugins/tinylm/kernels/wasm/pool.ts"
import { TinyLMPolicy } from "../plugins/tinylm/policy.ts"
import { nllLoss } from "../plugins/tinylm/sft.ts"
import { Tokenizer } from "../plugins/tinylm/tokenizer.ts"
import { figures, median, runtime, tinybenchVersion } from "./_tinybench.ts"

const args = process.argv.slice(2)
const opt = (name: string, d: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : d)
const reps = Number(opt("--reps", "5"))
const steps = Number(opt("--steps", "5"))
const threads = Number(opt("--threads", "2"))
const peak = Number(opt("--peak", "400"))
const json = args.includes("--json")
const withJs = args.includes("--js")
const only = opt("--case", "")
const withSample = args.includes("--sample")
const TORCH = opt("--torch-script", join(projectRoot, "..", "shared", "reference", "torch_tiny_gpt.py"))

/** The first python3 on PATH that imports torch (Debian's python3-torch may sit behind a pyenv shim). */
const findPython = (): string | undefined => {
  if (args.includes("--python")) return opt("--python", "python3")
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const py = join(dir, "python3")
    try {
      accessSync(py, constants.X_OK)
    } catch {
      continue
    }
    if (spawnSync(py, ["-c", "import torch"], { encoding: "utf8" }).status === 0) return py
  }
  return undefined
}
const PY = findPython()
if (!PY) console.log("PyTorch not found (no python3 on PATH imports torch: apt-get install -y python3-torch libopenblas0-openmp): reporting ours only")
const TUNED = { OPENBLAS_CORETYPE: "SkylakeX", MALLOC_MMAP_THRESHOLD_: "1000000000", MALLOC_TRIM_THRESHOLD_: "1000000000" }

interface Case {
  readonly name: string
  readonly ctx: number
  readonly B: number
  readonly genNew: number
}
const cases: Case[] = [
  { name: "ctx64", ctx: 64, B: 32, genNew: 63 },
  { name: "tiny", ctx: 128, B: 32, genNew: 64 }
].filter((c) => only === "" || c.name === only)
const V = 128,
  D = 64,
  L = 2,
  NH = 4,
  GEN_SEQS = 128

const nMatmul = L * 12 * D * D + D * V
const trainFlops = (T: number) => 6 * nMatmul + 12 * L * D * T
const fwdFlops = (T: number) => 2 * nMatmul + 4 * L * D * T

// 124 words + the tokenizer's specials fill the vocabulary of 128 exactly as torch's randint(0, 128)
const words = Array.from({ length: 200 }, (_, i) => `w${i}`)
let tok = Tokenizer.fromVocabulary(words)
tok = Tokenizer.fromVocabulary(words.slice(0, words.length - (tok.size - V)))
if (tok.size !== V) throw new Error(`tokenizer size ${tok.size} != ${V}`)

interface Figures {
  train: number
  score: number
  sample: number
}

const runOurs = async (c: Case, policy: TinyLMPolicy, k: Kernels, n: number): Promise<Figures> => {
  useKernels(k)
  const rng = new Rng(1)
  const T = c.ctx
  // prompt of 1 token + T − 1 scored tokens: T positions per row, T − 1 targets (torch: T targets)
  const items = Array.from({ length: c.B }, () => ({ prompt: rng.pick(words), tokens: Int32Array.from({ length: T - 1 }, () => tok.id(rng.pick(words))) }))
  const scoreReqs = items.map((it) => ({ prompt: it.prompt, continuation: it.tokens }))
  const prompts = Array.from({ length: GEN_SEQS }, () => rng.pick(words))
  let generated = 0
  const bench = new Bench({ iterations: n, time: 0, warmupIterations: 1 })
  bench.add("train", async () => {
    await policy.accumulate(items, nllLoss)
    policy.step({ lr: 1e-4, maxGradNorm: 1 })
  })
  bench.add("score", () => policy.score(scoreReqs))
  bench.add(
    "sample",
    async () => {
      const cs = await policy.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: c.genNew, stop: "" }, new Rng(2))
      generated = cs.reduce((s, x) => s + x.tokens.length, 0)
    },
    { iterations: 1, warmupIterations: 0 } as never
  )
  await bench.run()
  const [tr, sc, sa] = bench.tasks.map(figures)
  const tokens = c.B * T
  return { train: tokens / (tr!.medianMs / 1000), score: tokens / (sc!.medianMs / 1000), sample: generated / (sa!.medianMs / 1000) }
}

const runTorch = (c: Case, env: Record<string, string>): Figures | undefined => {
  if (!PY) return undefined
  const r = spawnSync(
    PY,
    [
      TORCH,
      "--config",
      "tiny",
      "--vocab",
      String(V),
      "--ctx",
      String(c.ctx),
      "--batch",
      String(c.B),
      "--threads",
      String(threads),
      "--steps",
      "10",
      "--warmup",
      "3",
      "--bench",
      withSample ? "train,fwd,gen" : "train,fwd",
      "--gen-seqs",
      String(GEN_SEQS),
      "--gen-new",
      String(c.genNew),
      "--gen-reps",
      "1",
      "--json"
    ],
    { encoding: "utf8", env: { ...process.env, ...env } }
  )
  const line = r.stdout.split("\n").find((l) => l.startsWith("JSON "))
  if (!line) {
    console.log(`torch run failed: ${r.stderr.slice(-300)}`)
    return undefined
  }
  const j = JSON.parse(line.slice(5))
  return { train: j.train_tok_s, score: j.fwd_tok_s, sample: j.gen_new_tok_s ?? Number.NaN }
}

const st = nativeStatus()
const sel = selectKernels()
const backends: Array<{ name: string; k: Kernels }> = []
if (st.ok) backends.push({ name: `native-${st.lib.cpuIsa}`, k: nativeKernelsFor(st.lib.cpuIsa) })
else console.log(`native kernels unavailable: ${st.why}`)
backends.push({ name: "wasm", k: wasmKernels })
if (withJs) backends.push({ name: "js", k: plainKernels })
console.log(
  `tinylm vs torch: ${runtime}, tinybench ${tinybenchVersion}; reps ${reps}, ${steps} timed calls per rep; torch threads ${threads}, ours ${kernelThreads()} thread(s); default kernels here: ${sel.name} ${sel.isa}; torch: ${PY ?? "none"} ${TORCH}`
)

const rows: Array<Record<string, unknown>> = []
for (const c of cases) {
  const policy = new TinyLMPolicy(tok, {
    config: { vocab: V, ctx: c.ctx, d: D, layers: L, heads: NH },
    seed: 0,
    adam: { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 },
    schedule: { kind: "constant" },
    microBatch: c.B
  })
  const sides = [...backends.map((b) => b.name), "torch", "torch-tuned"]
  const got: Record<string, Figures[]> = Object.fromEntries(sides.map((s) => [s, []]))
  for (let r = 0; r < reps; r++) {
    // alternate the order every rep so that drift in the machine's load hits every side alike
    const order = r % 2 === 0 ? sides : [...sides].reverse()
    const line: string[] = []
    for (const s of order) {
      const b = backends.find((x) => x.name === s)
      const f = b ? await runOurs(c, policy, b.k, s === "js" ? 2 : steps) : runTorch(c, s === "torch" ? {} : TUNED)
      if (!f) continue
      got[s]!.push(f)
      line.push(`${s} ${Math.round(f.train)}/${Math.round(f.score)}/${Math.round(f.sample)}`)
    }
    console.log(`  ${c.name} rep ${r + 1} (train/score/sample tok/s): ${line.join(" | ")} | load ${loadavg()[0]!.toFixed(2)}`)
  }
  const T = c.ctx
  const row: Record<string, unknown> = { case: `${c.name}: d64 2L 4H vocab 128 ctx ${T}, batch ${c.B}x${T}` }
  const med = (s: string, k: keyof Figures) => (got[s]!.length ? median(got[s]!.map((x) => x[k])) : Number.NaN)
  for (const s of sides) {
    if (!got[s]!.length) continue
    row[s] = {
      train: Math.round(med(s, "train")),
      trainGflops: +((med(s, "train") * trainFlops(T)) / 1e9).toFixed(1),
      score: Math.round(med(s, "score")),
      scoreGflops: +((med(s, "score") * fwdFlops(T)) / 1e9).toFixed(1),
      sample: Math.round(med(s, "sample")),
      trainPeakShare: +((med(s, "train") * trainFlops(T)) / 1e9 / peak).toFixed(3),
      scorePeakShare: +((med(s, "score") * fwdFlops(T)) / 1e9 / peak).toFixed(3)
    }
  }
  const ratio = (a: string, b: string) => ({
    train: +(med(a, "train") / med(b, "train")).toFixed(2),
    score: +(med(a, "score") / med(b, "score")).toFixed(2),
    sample: +(med(a, "sample") / med(b, "sample")).toFixed(2)
  })
  const ours = backends[0]!.name
  row.ratios = {
    [`${ours}/torch`]: ratio(ours, "torch"),
    [`${ours}/torch-tuned`]: ratio(ours, "torch-tuned"),
    [`${ours}/wasm`]: ratio(ours, "wasm"),
    "wasm/torch-tuned": ratio("wasm", "torch-tuned")
  }
  rows.push(row)
  console.log(
    json
      ? JSON.stringify({ ...row, runtime, tinybench: tinybenchVersion, reps, steps, peak })
      : `${row.case}\n${sides.map((s) => `  ${s} ${JSON.stringify(row[s])}`).join("\n")}\n  ratios ${JSON.stringify(row.ratios)}`
  )
}
