/**
 * The training step under two settings side by side (docs/decisions.md#issue-5's ≤ 1 s target): alternating child
 * runs of benchmarks/train-step.ts from the same SFT checkpoint, the median over the reps of each
 * run's mean step time and its parts, and the ratio.
 *   --vary prefix   shared-prompt batching on (plugins/tinylm/prefix.ts) vs off (sharePrefix: false)
 *   --vary threads  RAGEN_THREADS=2 vs 1 (the kernel pool, plugins/tinylm/kernels/wasm/pool.ts)
 *   --vary kernels  the tinylm option kernels: native vs wasm (docs/kernels.md)
 *   --vary checkout this tree's native kernels vs another checkout's (--baseline DIR: e.g. a
 *                   `git worktree` of the commit before a kernel change), the same step script
 *
 *   node_modules/.bin/bun benchmarks/train-step-compare.ts [--vary prefix|threads|kernels|checkout] [--baseline DIR] [--reps 3] [--steps 10] [--init ckpt]
 *
 * Without --init, a 600-step FrozenLake SFT (ε = 0.5) is trained once first (≈ 1–2 min).
 */
import { mkdtempSync, readdirSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { spawnOnRuntimeSync } from "../core/runtime.ts"

const argv = process.argv.slice(2)
const arg = (name: string, d: string): string => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : d)
const vary = arg("--vary", "prefix")
const reps = Number(arg("--reps", "3"))
const steps = arg("--steps", "10")
const here = new URL(".", import.meta.url).pathname

interface Setting {
  readonly name: string
  readonly args: string[]
  readonly env: Record<string, string>
  /** The checkout whose benchmarks/train-step.ts runs (default: this one). */
  readonly root?: string
}
const baseline = arg("--baseline", "")
const settings: Setting[] =
  vary === "threads"
    ? [
        { name: "2 threads", args: [], env: { RAGEN_THREADS: "2" } },
        { name: "1 thread", args: [], env: { RAGEN_THREADS: "1" } }
      ]
    : vary === "prefix"
      ? [
          { name: "shared prompts", args: [], env: {} },
          { name: "every row alone", args: ["--no-share-prefix"], env: {} }
        ]
      : vary === "kernels"
        ? [
            { name: "native", args: ["--kernels", "native"], env: {} },
            { name: "wasm", args: ["--kernels", "wasm"], env: {} }
          ]
        : vary === "checkout" && baseline !== ""
          ? [
              { name: "native, this tree", args: ["--kernels", "native"], env: {} },
              { name: `native, ${baseline}`, args: ["--kernels", "native"], env: {}, root: baseline }
            ]
          : (() => {
              throw new Error(`--vary ${vary}: use prefix, threads, kernels, or checkout with --baseline DIR`)
            })()

let init = arg("--init", "")
if (init === "") {
  const dir = mkdtempSync(join(tmpdir(), "ragen-step-sft-"))
  console.error("training the SFT start (600 steps, FrozenLake, ε = 0.5) …")
  const sft = spawnOnRuntimeSync(join(here, "../cli.ts"), ["sft", "--env", "frozenlake", "--steps", "600", "--epsilon", "0.5", "--val-seeds", "8", "--out", dir], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  if (sft.status !== 0) throw new Error(`sft exited with ${sft.status}`)
  init = join(dir, readdirSync(dir).find((f) => f.endsWith(".safetensors"))!)
}

type Part = "step_seconds" | "rollout_seconds" | "update_seconds" | "diag_seconds"
const parts: Part[] = ["step_seconds", "rollout_seconds", "update_seconds", "diag_seconds"]
const runs: Array<Array<Record<Part, number>>> = settings.map(() => [])
for (let r = 0; r < reps; r++) {
  // alternate the order every rep so that drift in the machine's load hits both settings alike
  for (const i of r % 2 === 0 ? settings.map((_, k) => k) : settings.map((_, k) => settings.length - 1 - k)) {
    const s = settings[i]!
    const script = s.root ? join(s.root, "benchmarks", "train-step.ts") : join(here, "train-step.ts")
    const child = spawnOnRuntimeSync(script, ["--steps", steps, "--init", init, ...s.args], {
      env: { ...process.env, ...s.env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"]
    })
    if (child.status !== 0) throw new Error(`train-step.ts exited with ${child.status}`)
    const out = String(child.stdout)
    const j = JSON.parse(out.trim().split("\n").pop()!) as Record<Part, { mean: number }>
    runs[i]!.push(Object.fromEntries(parts.map((p) => [p, j[p].mean])) as Record<Part, number>)
    console.error(`rep ${r + 1} ${s.name}: step ${j.step_seconds.mean.toFixed(3)} s (load ${loadavg()[0]!.toFixed(1)})`)
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}
const rows = runs.map((rs) => parts.map((p) => median(rs.map((x) => x[p]))))
console.log(
  `FrozenLake P = 8, G = 16, tiny, diagnostics every 5; ${reps} alternating reps of ${steps} steps; medians of the per-run means (s); load average at the end ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`
)
console.log(`| setting | step | rollout | update | diagnostics |`)
console.log(`|---|---|---|---|---|`)
settings.forEach((s, i) => console.log(`| ${s.name} | ${rows[i]!.map((x) => x.toFixed(3)).join(" | ")} |`))
console.log(`| ${settings[1]!.name} / ${settings[0]!.name} | ${rows[1]!.map((x, i) => (x / rows[0]![i]!).toFixed(2) + "×").join(" | ")} |`)
console.log(
  JSON.stringify({ bench: "train-step-compare", vary, reps, steps: Number(steps), settings: settings.map((s, i) => ({ name: s.name, ...Object.fromEntries(parts.map((p, k) => [p, rows[i]![k]])) })) })
)
