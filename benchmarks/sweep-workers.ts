/**
 * Sweep speed-up of 2 workers over 1 on the same spec, with the real trainer and tinylm.
 *
 *   node_modules/.bin/bun benchmarks/sweep-workers.ts [--reps 2] [--steps 3]
 *
 * The spec: FrozenLake and Sokoban × none / top-p 0.9 × 2 seeds (8 runs), GRPO, P=4 G=8, no SFT,
 * 16 validation seeds. Each repetition runs the sweep with 1 and then 2 workers into fresh
 * folders (alternating, so drift in machine load hits both); the figure is the ratio of medians.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { spawnOnRuntimeSync } from "../core/runtime.ts"

const argv = process.argv.slice(2)
const arg = (name: string, dflt: number): number => {
  const i = argv.indexOf(name)
  return i >= 0 ? Number(argv[i + 1]) : dflt
}
const reps = arg("--reps", 2)
const steps = arg("--steps", 3)
const cli = fileURLToPath(new URL("../cli.ts", import.meta.url))

const spec = {
  name: "workers-bench",
  axes: { env: ["frozenlake", "sokoban"], filter: ["none", { id: "top-p", options: { p: 0.9 } }], seeds: [1, 2] },
  fixed: { P: 4, G: 8, train: { diagEvery: 5 } },
  budget: { steps, evalEvery: steps, valSeeds: 16 }
}
const dir = mkdtempSync(join(tmpdir(), "ragen-sweep-bench-"))
const specPath = join(dir, "spec.json")
writeFileSync(specPath, JSON.stringify(spec))

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const time = (workers: number, rep: number): number => {
  const out = join(dir, `w${workers}-r${rep}`)
  const t0 = performance.now()
  const r = spawnOnRuntimeSync(cli, ["sweep", specPath, "--workers", String(workers), "--out", join(out, "results"), "--leaderboard", join(out, "site")], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  const s = (performance.now() - t0) / 1000
  if (r.status !== 0) throw new Error(`sweep with ${workers} worker(s) failed: ${r.stderr.toString().slice(-500)}`)
  rmSync(out, { recursive: true, force: true })
  return s
}

const times: Record<number, number[]> = { 1: [], 2: [] }
for (let rep = 0; rep < reps; rep++) {
  for (const w of [1, 2]) {
    const s = time(w, rep)
    times[w]!.push(s)
    console.log(`rep ${rep + 1}: ${w} worker(s) ${s.toFixed(1)} s`)
  }
}
rmSync(dir, { recursive: true, force: true })
const m1 = median(times[1]!),
  m2 = median(times[2]!)
console.log(`\n8 runs × ${steps} steps: 1 worker ${m1.toFixed(1)} s, 2 workers ${m2.toFixed(1)} s (medians of ${reps}); speed-up ${(m1 / m2).toFixed(2)}×`)
console.log(JSON.stringify({ bench: "sweep-workers", runs: 8, steps, reps, oneWorkerSeconds: times[1], twoWorkerSeconds: times[2], speedup: m1 / m2 }))
