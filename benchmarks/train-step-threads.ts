/**
 * The training step on one kernel thread and on two, side by side (issue 5's ≤ 1 s target; the
 * second thread is plugins/tinylm/kernels/wasm/pool.ts). Alternates child runs of
 * benchmarks/train-step.ts under RAGEN_THREADS=1 and 2 from the same SFT checkpoint and prints,
 * per thread count, the median over the reps of each run's mean step time and its parts.
 *
 *   node_modules/.bin/bun benchmarks/train-step-threads.ts [--reps 3] [--steps 10] [--init ckpt]
 *
 * Without --init, a 600-step FrozenLake SFT (ε = 0.5) is trained once first (≈ 1–2 min).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const argv = process.argv.slice(2)
const arg = (name: string, d: string): string => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : d)
const reps = Number(arg("--reps", "3"))
const steps = arg("--steps", "10")
const here = new URL(".", import.meta.url).pathname
const bun = process.execPath

let init = arg("--init", "")
if (init === "") {
  const dir = mkdtempSync(join(tmpdir(), "ragen-threads-sft-"))
  console.error("training the SFT start (600 steps, FrozenLake, ε = 0.5) …")
  execFileSync(bun, [join(here, "../core/cli/main.ts"), "sft", "--env", "frozenlake", "--steps", "600", "--epsilon", "0.5", "--val-seeds", "8", "--out", dir], { stdio: ["ignore", "ignore", "inherit"] })
  init = join(dir, readdirSync(dir).find((f) => f.endsWith(".safetensors"))!)
}

type Part = "step_seconds" | "rollout_seconds" | "update_seconds" | "diag_seconds"
const parts: Part[] = ["step_seconds", "rollout_seconds", "update_seconds", "diag_seconds"]
const runs: Record<string, Array<Record<Part, number>>> = { "1": [], "2": [] }
for (let r = 0; r < reps; r++) {
  for (const threads of ["1", "2"]) {
    const out = execFileSync(bun, [join(here, "train-step.ts"), "--steps", steps, "--init", init], { env: { ...process.env, RAGEN_THREADS: threads }, encoding: "utf8" })
    const j = JSON.parse(out.trim().split("\n").pop()!) as Record<Part, { mean: number }>
    runs[threads]!.push(Object.fromEntries(parts.map((p) => [p, j[p].mean])) as Record<Part, number>)
    console.error(`rep ${r + 1} threads ${threads}: step ${j.step_seconds.mean.toFixed(3)} s`)
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const row = (t: string) => parts.map((p) => median(runs[t]!.map((x) => x[p])))
const one = row("1"), two = row("2")
console.log(`FrozenLake P = 8, G = 16, tiny, diagnostics every 5; ${reps} alternating reps of ${steps} steps; medians of the per-run means (s)`)
console.log(`| threads | step | rollout | update | diagnostics |`)
console.log(`|---|---|---|---|---|`)
for (const [t, v] of [["1", one], ["2", two]] as const) console.log(`| ${t} | ${v.map((x) => x.toFixed(3)).join(" | ")} |`)
console.log(`| 1 / 2 | ${one.map((x, i) => (x / two[i]!).toFixed(2) + "×").join(" | ")} |`)
console.log(JSON.stringify({ bench: "train-step-threads", reps, steps: Number(steps), threads1: one, threads2: two }))
