/**
 * Cross-scoring throughput, CPU scorer against the WebGPU scorer (docs/decisions.md#issue-18), at the
 * diagnostics' sizes on tinylm `tiny` (FrozenLake vocabulary, Markov prompts, the untrained
 * policy's own samples as reasonings, as benchmarks/diagnostics.ts):
 *   P = 8,  G = 16: 128 reasonings × 8 prompt columns   (first-turn rows)
 *   P = 32, G = 8:  256 reasonings × 32 prompt columns
 *   stress:         1,024 reasonings × 64 prompt columns (--stress)
 * It probes for an adapter first (scorer.ts openBackend: navigator.gpu, Dawn, a Deno child) and
 * names it; with none it reports the CPU alone. Each case is checked against the CPU scorer
 * (max |Δ| of the sums and per-token means) before it is timed; times are medians of --iters,
 * CPU and GPU alternating. Tokens/s counts every scored token of the R × N matrix.
 * On a software adapter (lavapipe, SwiftShader) the GPU figure is a correctness figure only.
 *
 * Usage: bun benchmarks/webgpu-scoring.ts [--iters 3] [--cases p8,p32,stress] [--backend auto|navigator|dawn|deno|none] [--json]
 *        (default cases p8,p32; --backend none times the CPU scorer alone)
 *        deno run -A benchmarks/webgpu-scoring.ts …   (Deno's navigator.gpu in process)
 */
import { frozenLakeSpec } from "../envs/frozenlake/env.ts"
import { buildPrompt, parseResponse } from "../core/prompt.ts"
import { Rng } from "../core/rng.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { makeCpuScorer } from "../plugins/scorers/cpu.ts"
import { makeTinyLM, TinyLMOptions } from "../plugins/tinylm/spec.ts"
import { type BackendChoice, defaultWebGpuOptions, makeWebGpuScorer, openBackend } from "../plugins/webgpu/scorer.ts"
import { modelView } from "../plugins/webgpu/view.ts"

const args = typeof process !== "undefined" ? process.argv.slice(2) : []
const flag = (name: string, d: number) => {
  const v = Number(args[args.indexOf(name) + 1])
  return args.includes(name) && Number.isInteger(v) && v >= 1 ? v : d
}
const iters = flag("--iters", 3)
const wanted = (args.includes("--cases") ? args[args.indexOf("--cases") + 1]! : "p8,p32").split(",")
const asJson = args.includes("--json")
const backendArg = args.includes("--backend") ? (args[args.indexOf("--backend") + 1] as BackendChoice | "none") : "auto"
const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } }
const runtime = g.Bun ? `bun ${g.Bun.version}` : g.Deno ? `deno ${g.Deno.version.deno}` : "node"

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const out = (row: Record<string, unknown>) =>
  console.log(
    asJson
      ? JSON.stringify({ ...row, runtime })
      : Object.entries(row)
          .map(([k, v]) => `${k}=${v}`)
          .join("  ")
  )

const envOptions = decodeSync(frozenLakeSpec.options, { successRate: 1 })
if (!envOptions.ok) throw new Error(envOptions.message)
const tinyOptions = decodeSync(TinyLMOptions, { preset: "tiny" })
if (!tinyOptions.ok) throw new Error(tinyOptions.message)
const policy = await makeTinyLM(tinyOptions.value, { vocabulary: frozenLakeSpec.vocabulary(envOptions.value), seed: 1 })
const view = modelView(policy)
if ("reason" in view) throw new Error(view.reason)

/** P prompts (distinct seeds) and G samples of the policy per prompt. */
const batch = async (P: number, G: number) => {
  const prompts = Array.from({ length: P }, (_, i) => buildPrompt({ observation: frozenLakeSpec.make(envOptions.value).reset(20000 + i) }))
  const samples = await policy.sample(
    prompts.flatMap((p) => Array(G).fill(p)),
    { temperature: 1, topP: 1, minP: 0, maxTokens: 64 },
    new Rng(P * 1000 + G)
  )
  return { prompts, reasonings: samples.map((c) => parseResponse(c.text).reasoning) }
}

const cases = [
  { key: "p8", name: "P=8 G=16", P: 8, G: 16, cols: 8 },
  { key: "p32", name: "P=32 G=8", P: 32, G: 8, cols: 32 },
  { key: "stress", name: "stress 1024x64", P: 64, G: 16, cols: 64 }
].filter((c) => wanted.includes(c.key))

const cpu = makeCpuScorer(policy)
const t0 = performance.now()
const { backend, reasons } = backendArg === "none" ? { backend: undefined, reasons: ["--backend none"] } : await openBackend(backendArg, defaultWebGpuOptions)
const probeSeconds = (performance.now() - t0) / 1000
const warnings: string[] = []
const gpu = backend ? makeWebGpuScorer(view, backend, cpu, (l) => warnings.push(l)) : undefined
out({
  adapter: backend ? `${backend.via} on ${backend.adapter}` : `none (${reasons.join("; ")})`,
  probeSeconds: +probeSeconds.toFixed(2),
  kernels: process.env.RAGEN_KERNELS ?? "default",
  threads: process.env.RAGEN_THREADS ?? "default"
})

const time = async (f: () => Promise<unknown>) => {
  const t = performance.now()
  await f()
  return (performance.now() - t) / 1000
}

for (const c of cases) {
  const { prompts, reasonings } = await batch(c.P, c.G)
  const cols = prompts.slice(0, c.cols)
  const tokens = reasonings.reduce((s, r) => s + Math.min(view.encode(r).length, view.config.ctx - 1), 0) * cols.length
  const ref = await cpu.score(reasonings, cols)
  const row: Record<string, unknown> = { case: c.name, rows: reasonings.length, cols: cols.length, sequences: reasonings.length * cols.length, tokens }
  const tc: number[] = [],
    tg: number[] = []
  if (gpu) {
    const got = await gpu.score(reasonings, cols) // warm-up: pipelines, weights upload
    let dSum = 0,
      dMean = 0
    for (let i = 0; i < ref.sum.length; i++) {
      dSum = Math.max(dSum, Math.abs(got.sum[i]! - ref.sum[i]!))
      dMean = Math.max(dMean, Math.abs(got.tokenMean[i]! - ref.tokenMean[i]!))
    }
    row.maxAbsSum = +dSum.toExponential(2)
    row.maxAbsMean = +dMean.toExponential(2)
    if (warnings.length > 0 || !(dMean <= 1e-4)) {
      out({ ...row, error: `the WebGPU scores fail the parity check (${warnings.join("; ") || `max |Δ mean| ${dMean}`}); not timed` })
      continue
    }
  }
  for (let i = 0; i < iters; i++) {
    tc.push(await time(() => cpu.score(reasonings, cols)))
    if (gpu) tg.push(await time(() => gpu.score(reasonings, cols)))
  }
  const sc = median(tc)
  row.cpuSeconds = +sc.toFixed(3)
  row.cpuTokensPerSecond = Math.round(tokens / sc)
  if (gpu) {
    const sg = median(tg)
    row.gpuSeconds = +sg.toFixed(3)
    row.gpuTokensPerSecond = Math.round(tokens / sg)
    row.gpuOverCpu = +(sc / sg).toFixed(2)
  }
  out(row)
}
gpu?.close()
