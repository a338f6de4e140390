/**
 * WebGPU scoring side by side with PyTorch on the same GPU (docs/decisions.md#issue-29), in one run: the same
 * model (tinylm `tiny`; weights: benchmarks/webgpu-cases.ts, --weights init|warmstart), the same rows
 * (the cross-scoring batch of benchmarks/webgpu-scoring.ts: FrozenLake prompts, the policy's own
 * samples as reasonings), the same accounting (scored tokens). Per case:
 *   1. parity: the WebGPU scorer against the CPU scorer on the first reasonings (max |Δ| of sums
 *      and per-token means), then PyTorch's per-row sums against WebGPU's on every row;
 *   2. timing: the WebGPU engine (each --variants: none/epilogues/all, plan.ts's dispatch lists, with
 *      each --tiles: the matmul's output tile edge, at each --max-positions: positions per chunk,
 *      i.e. submissions per batch) and
 *      PyTorch (benchmarks/webgpu_vs_torch.py, each --torch-modes), medians of --iters;
 *   3. scored tokens/s and the ratio WebGPU / PyTorch (eager fp32: the issue's target ≥ 0.5).
 * Cases: tiny (P=4 G=4 × 4 columns: a smoke run on lavapipe), p8, p32 (P=32 G=8 × 32), stress
 * (1,024 × 64). The weights go to PyTorch as a temp safetensors file, the rows as packed int32.
 * Without python3 + torch + CUDA it says so in one line and times the WebGPU side only
 * (--torch-device cpu runs torch on the CPU instead: a parity check where there is no GPU).
 * --profile adds, per variant, one more call with every dispatch timed (timestamp-query): the
 * milliseconds per kernel, to show where the time goes (in process, i.e. under Deno).
 * On a software adapter (lavapipe) the WebGPU seconds are a correctness figure only.
 *
 * Usage: deno run -A benchmarks/webgpu-vs-torch.ts [--cases p32,stress] [--iters 5]
 *          [--variants none,epilogues,all] [--tiles 64,32] [--torch-modes eager,bf16,compile] [--torch-device cuda|cpu]
 *          [--backend auto|navigator|dawn|deno] [--max-positions 16384,65536] [--python python3] [--weights init|warmstart] [--profile] [--json]
 *        (bun works too: WebGPU through Dawn or a Deno child)
 */
import { spawnSync } from "node:child_process"
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { projectRoot } from "../core/runtime.ts"
import { makeCpuScorer } from "../plugins/scorers/cpu.ts"
import { parameterShapes } from "../plugins/tinylm/config.ts"
import { encodeSafetensors } from "../plugins/tinylm/safetensors.ts"
import { type GpuBackend, InProcessBackend } from "../plugins/webgpu/backend.ts"
import { packRows, type ScoreRow } from "../plugins/webgpu/layout.ts"
import { type BackendChoice, defaultWebGpuOptions, makeWebGpuScorer, openBackend } from "../plugins/webgpu/scorer.ts"
import type { Fuse, Tile } from "../plugins/webgpu/plan.ts"
import type { ModelView } from "../plugins/webgpu/view.ts"
import { CASES, caseBatch, policy, view } from "./webgpu-cases.ts"

const args = process.argv.slice(2)
const opt = (name: string, d: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : d)
const iters = Math.max(1, Number(opt("--iters", "5")))
const wanted = opt("--cases", "p32,stress").split(",")
const fuses = opt("--variants", "epilogues").split(",") as Fuse[]
const tiles = opt("--tiles", "64").split(",").map(Number) as Tile[]
if (tiles.some((t) => t !== 32 && t !== 64)) throw new Error("--tiles: 32 and/or 64")
/** Each dispatch list × matmul tile × chunk size ("epilogues/t64@16384"). */
const variants = fuses.flatMap((fuse) =>
  tiles.flatMap((tile) =>
    opt("--max-positions", "16384")
      .split(",")
      .map((m) => ({ fuse, tile, maxPositions: Number(m), name: `${fuse}/t${tile}@${m}` }))
  )
)
const torchModes = opt("--torch-modes", "eager")
const torchDevice = opt("--torch-device", "cuda")
const asJson = args.includes("--json")
const g = globalThis as { Bun?: { version: string }; Deno?: { version: { deno: string } } }
const runtime = g.Bun ? `bun ${g.Bun.version}` : g.Deno ? `deno ${g.Deno.version.deno}` : "node"
const out = (row: Record<string, unknown>) =>
  console.log(
    asJson
      ? JSON.stringify({ ...row, runtime })
      : Object.entries(row)
          .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`)
          .join("  ")
  )
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** The first python3 (--python, else on PATH) that imports torch, and whether it has the asked device. */
const findTorch = (): { py: string; version: string } | { why: string } => {
  const candidates = args.includes("--python") ? [opt("--python", "python3")] : (process.env.PATH ?? "").split(delimiter).map((d) => join(d, "python3"))
  for (const py of candidates) {
    try {
      if (py.includes("/")) accessSync(py, constants.X_OK)
    } catch {
      continue
    }
    const r = spawnSync(py, ["-c", "import torch; print(torch.__version__, torch.cuda.is_available())"], { encoding: "utf8", timeout: 120_000 })
    if (r.status !== 0) continue
    const [version, cuda] = r.stdout.trim().split(" ")
    if (torchDevice === "cuda" && cuda !== "True") return { why: `${py} has torch ${version} but no CUDA device` }
    return { py, version: version! }
  }
  return { why: "no python3 on PATH imports torch" }
}

const cases = CASES.filter((c) => wanted.includes(c.key))

/** The model, rows and config for the PyTorch side, in a temp folder. */
const writeTorchInput = (v: ModelView, rows: ReadonlyArray<ScoreRow>): string => {
  const dir = mkdtempSync(join(tmpdir(), "ragen-webgpu-vs-torch-"))
  const weights = policy.exportForScoring().weights
  const tensors = parameterShapes(v.config).map(([name, shape]) => ({ name, shape, data: weights.get(name)!.slice() }))
  writeFileSync(join(dir, "model.safetensors"), encodeSafetensors(tensors, {}))
  writeFileSync(join(dir, "rows.bin"), packRows(rows))
  writeFileSync(join(dir, "meta.json"), JSON.stringify({ config: v.config }))
  return dir
}

/** PyTorch's per-row sums and timings for `rows`, or why not. */
const runTorch = (py: string, rows: ReadonlyArray<ScoreRow>): { sums: Float32Array; result: Record<string, any> } | { error: string } => {
  const dir = writeTorchInput(view, rows)
  try {
    const script = join(projectRoot, "benchmarks", "webgpu_vs_torch.py")
    const r = spawnSync(py, [script, dir, "--device", torchDevice, "--modes", torchModes, "--iters", String(iters)], { encoding: "utf8", timeout: 1_800_000, maxBuffer: 16 << 20 })
    const last = (r.stdout ?? "").trim().split("\n").at(-1) ?? ""
    let result: Record<string, any>
    try {
      result = JSON.parse(last)
    } catch {
      return { error: `the torch script failed (exit ${r.status}): ${(r.stderr ?? "").trim().split("\n").at(-1) ?? ""}` }
    }
    if (result.error) return { error: String(result.error) }
    const b = readFileSync(join(dir, "sums.f32"))
    return { sums: new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)), result }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const maxAbs = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!))
  return m
}

/** The WebGPU scorer against the CPU scorer on the first reasonings of the case (parity before timing). */
const cpuParity = async (backend: GpuBackend, reasonings: string[], prompts: string[]) => {
  const warnings: string[] = []
  const gpu = makeWebGpuScorer(view, backend, makeCpuScorer(policy), (l) => warnings.push(l))
  const sub = reasonings.slice(0, 32)
  const [a, b] = [await gpu.score(sub, prompts), await makeCpuScorer(policy).score(sub, prompts)]
  return { sum: maxAbs(a.sum, b.sum), mean: maxAbs(a.tokenMean, b.tokenMean), warnings }
}

const timeGpu = async (backend: GpuBackend, rows: ScoreRow[]) => {
  await backend.setWeights(view.config, view.params(), view.version())
  const first = await backend.score(rows) // warm-up: pipelines, weights
  const ts: number[] = []
  for (let i = 0; i < iters; i++) {
    const t = performance.now()
    await backend.score(rows)
    ts.push((performance.now() - t) / 1000)
  }
  return { seconds: median(ts), sums: first.sum }
}

/** One more scoring call with each dispatch timed (timestamp-query): milliseconds per kernel, largest first. */
const profileOf = async (backend: GpuBackend, rows: ScoreRow[]): Promise<Record<string, number> | string> => {
  if (!(backend instanceof InProcessBackend)) return "in-process backends only (run under Deno)"
  const byKernel = backend.profile()
  if (!byKernel) return "the adapter has no timestamp-query"
  await backend.score(rows)
  const sorted = [...byKernel].sort((a, b) => b[1].ns - a[1].ns)
  return Object.fromEntries(sorted.map(([k, v]) => [`${k} ×${v.count}`, +(v.ns / 1e6).toFixed(3)]))
}

const torch = findTorch()
if ("why" in torch) console.log(`PyTorch with ${torchDevice === "cuda" ? "CUDA" : "torch"} not found (${torch.why}): timing the WebGPU side only`)

for (const c of cases) {
  const { prompts, reasonings, rows } = await caseBatch(c)
  const tokens = rows.reduce((s, r) => s + r.scored, 0)
  const row: Record<string, unknown> = { case: c.name, sequences: rows.length, tokens }
  let reference: Float32Array | undefined
  for (const variant of variants) {
    const { backend, reasons, diagnosis } = await openBackend(opt("--backend", "auto") as BackendChoice, {
      ...defaultWebGpuOptions,
      maxPositions: variant.maxPositions,
      fuse: variant.fuse,
      tile: variant.tile
    })
    if (!backend) {
      out({ ...row, error: `no WebGPU device: ${diagnosis} [tried ${reasons.join("; ")}]` })
      process.exit(0)
    }
    row.adapter = `${backend.via} on ${backend.adapter}`
    const p = await cpuParity(backend, reasonings, prompts)
    if (p.warnings.length > 0 || !(p.mean <= 1e-4)) {
      out({ ...row, error: `${variant.name}: the WebGPU scores fail the CPU parity check (${p.warnings.join("; ") || `max |Δ mean| ${p.mean}`}); not timed` })
      process.exit(1)
    }
    const t = await timeGpu(backend, rows)
    reference ??= t.sums
    if (args.includes("--profile")) row[`profile ${variant.name}`] = await profileOf(backend, rows)
    row[`webgpu ${variant.name}`] = { seconds: +t.seconds.toFixed(4), tokensPerSecond: Math.round(tokens / t.seconds), cpuParity: { sum: +p.sum.toExponential(2), mean: +p.mean.toExponential(2) } }
    backend.close()
  }
  if (!("why" in torch) && reference) {
    const tr = runTorch(torch.py, rows)
    if ("error" in tr) row.torch = { error: tr.error }
    else {
      const d = maxAbs(tr.sums, reference)
      row.torch = { device: tr.result.device, version: tr.result.torch, parityMaxAbsSum: +d.toExponential(2), modes: tr.result.modes }
      // the issue's target: WebGPU scored tokens/s ≥ 0.5 × eager fp32 PyTorch's, per dispatch list
      const eager = tr.result.modes.eager?.tokensPerSecond as number | undefined
      for (const v of variants) {
        const w = row[`webgpu ${v.name}`] as { tokensPerSecond: number; overTorchEager?: number }
        if (eager) w.overTorchEager = +(w.tokensPerSecond / eager).toFixed(3)
      }
      if (!(d <= 1e-3)) row.torchParity = `FAILED: max |Δ sum| ${d} > 1e-3 (the timings compare different numbers)`
    }
  }
  out(row)
}
