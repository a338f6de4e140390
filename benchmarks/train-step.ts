/**
 * Wall time per training step (docs/decisions.md#issue-5): FrozenLake (s = 1), GRPO, P = 8, G = 16, tinylm tiny,
 * diagnostics every 5 steps (and step 1), from an SFT start (a short SFT is run first unless
 * --init gives a checkpoint), validation off so only the step is timed.
 *
 *   node_modules/.bin/bun benchmarks/train-step.ts [--steps 10] [--sft-steps 300] [--init ckpt] [--micro-batch N] [--no-share-prefix] [--kernels auto|native|wasm|js]
 *
 * RAGEN_THREADS=1|2 picks the kernel threads (plugins/tinylm/kernels/wasm/pool.ts);
 * --no-share-prefix computes every row's prompt on its own (tinylm sharePrefix: false).
 *
 * Prints the median and mean of perf/step_seconds and its parts (rollout, update, diagnostics);
 * the mean over the steps is the figure that includes the diagnostics' share.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinPlugins } from "../builtins.ts"
import { runTraining } from "../core/train/run.ts"
import type { RunConfig } from "../core/contracts/run-config.ts"

const argv = process.argv.slice(2)
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv[i + 1] : undefined
}
const steps = Number(arg("--steps") ?? 10)
const sftSteps = Number(arg("--sft-steps") ?? 300)
const init = arg("--init")
const microBatch = arg("--micro-batch")
const sharePrefix = !argv.includes("--no-share-prefix")
const kernels = arg("--kernels")

const out = mkdtempSync(join(tmpdir(), "ragen-step-bench-"))
const config = {
  env: "frozenlake",
  envOptions: { successRate: 1 },
  algo: "grpo",
  filter: "none",
  policy: "tinylm",
  policyOptions: { ...(microBatch ? { microBatch: Number(microBatch) } : {}), sharePrefix, ...(kernels ? { kernels } : {}) },
  P: 8,
  G: 16,
  steps,
  seed: 1,
  lr: 1e-4,
  train: { evalEvery: 0, valSeeds: 0, diagEvery: 5, ...(init ? { init } : { sftSteps }) }
} as unknown as RunConfig
const summary = await runTraining(config, { outDir: out, plugins: builtinPlugins, onLog: () => {} })
const rows = readFileSync(join(out, summary.runId, "metrics.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as Record<string, number>)
rmSync(out, { recursive: true, force: true })
const series = (k: string) => rows.filter((r) => typeof r[k] === "number").map((r) => r[k]!)
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const parts = ["perf/step_seconds", "perf/rollout_seconds", "perf/update_seconds", "perf/diag_seconds"]
for (const k of parts) console.log(`${k.padEnd(22)} median ${median(series(k)).toFixed(3)} s   mean ${mean(series(k)).toFixed(3)} s`)
console.log(
  JSON.stringify({
    bench: "train-step",
    env: "frozenlake",
    P: 8,
    G: 16,
    steps,
    threads: process.env.RAGEN_THREADS ?? "default",
    microBatch: microBatch ?? "default",
    sharePrefix,
    kernels: kernels ?? "auto",
    ...Object.fromEntries(parts.map((k) => [k.slice(5), { median: median(series(k)), mean: mean(series(k)) }]))
  })
)
