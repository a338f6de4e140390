/**
 * Learning curves from run folders, as the markdown tables of benchmarks/results/train.md: for each
 * (env, algo, filter, lr, and any trainer option that differs between the runs) group, the mean over its seeds of each metric at every step where all
 * of them logged it, with the seed count; a figure is never typed in by hand.
 *   bun plugins/leaderboard/analysis/curves.ts <results dir>... [--metric val/success@0.5]... [--every N] [--window W]
 * Default metrics: val/success@0.5, val/success@1.0, val/fact_accuracy@0.5, val/consistency@0.5.
 * --every N keeps only the steps that are multiples of N (step 0 always); --window W averages a
 * per-step metric (train/success, a new batch each step) over the W steps ending at each shown
 * step, so the noise of one batch does not read as a trend. Every file is decoded
 * through the results schemas (core/results/store.ts).
 */
import { Effect } from "effect"
import { listRunDirs, readRun } from "../../../core/host.ts"

const argv = process.argv.slice(2)
const metrics: string[] = []
const dirs: string[] = []
let every = 1
let window = 1
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--metric") metrics.push(argv[++i]!)
  else if (argv[i] === "--every") every = Number(argv[++i])
  else if (argv[i] === "--window") window = Number(argv[++i])
  else dirs.push(argv[i]!)
}
if (dirs.length === 0) {
  console.error("usage: bun plugins/leaderboard/analysis/curves.ts <results dir>... [--metric name]... [--every N]")
  process.exit(2)
}
if (metrics.length === 0) metrics.push("val/success@0.5", "val/success@1.0", "val/fact_accuracy@0.5", "val/consistency@0.5")

const label = (o: unknown): string => (typeof o === "string" ? o : JSON.stringify(o))
const read = dirs.flatMap((dir) => listRunDirs(dir).map((runDir) => Effect.runSync(readRun(runDir))))
// trainer options that differ between the runs read (e.g. minibatchSize) are part of a group's name
const trainKeys = [...new Set(read.flatMap((r) => Object.keys(r.config.config.train)))]
const varying = trainKeys.filter((k) => new Set(read.map((r) => label((r.config.config.train as Record<string, unknown>)[k] ?? null))).size > 1)
const groups = new Map<string, Array<Map<number, Record<string, number | null>>>>()
for (const run of read) {
  const c = run.config.config
  const t = c.train as Record<string, unknown>
  const filter = Object.keys(c.filterOptions).length > 0 ? `${c.filter} ${label(c.filterOptions)}` : c.filter
  const extra = varying.map((k) => ` ${k}=${label(t[k] ?? "-")}`).join("")
  const key = `${c.env}${Object.keys(c.envOptions).length > 0 ? ` ${label(c.envOptions)}` : ""} | ${c.algo} | ${filter}${extra} | ${c.lr}`
  const bySteps = new Map<number, Record<string, number | null>>()
  for (const line of run.metrics.lines) if (typeof line.step === "number") bySteps.set(line.step, { ...bySteps.get(line.step), ...line })
  const g = groups.get(key) ?? []
  g.push(bySteps)
  groups.set(key, g)
}

for (const m of metrics) {
  console.log(`\n${m}, mean over the seeds${window > 1 ? ` and the last ${window} steps` : ""}\n\n| env | algo | filter | lr | seeds | step: mean |\n|---|---|---|---|---|---|`)
  for (const [key, runs] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const has = (s: number) => runs.every((r) => typeof r.get(s)?.[m] === "number")
    const steps = [...runs[0]!.keys()].filter((s) => (s === 0 || s % every === 0) && has(s)).sort((a, b) => a - b)
    if (steps.length === 0) continue
    const mean = (s: number) => {
      const span = Array.from({ length: window }, (_, k) => s - k).filter((t) => t >= 0 && has(t))
      return span.reduce((a, t) => a + runs.reduce((b, r) => b + (r.get(t)![m] as number), 0) / runs.length, 0) / span.length
    }
    console.log(`| ${key} | ${runs.length} | ${steps.map((s) => `${s}: ${mean(s).toFixed(3)}`).join(", ")} |`)
  }
}
