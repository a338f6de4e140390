/**
 * The docs/design.md §10 prototype's run files (../shared/reference/prototype/runs/*.jsonl: a config
 * line, then one line per step) in the terms of plugins/leaderboard/analysis/paired.ts, so the two can be read side
 * by side: validation fact accuracy and success (T = 0.5, 256 seeds) at one step, and per-step
 * means over steps 0..step−1 of the zero-spread groups, the dropped non-zero-spread groups
 * (P − zero-spread − kept, for top-p, which drops every zero-spread group), kept groups,
 * minibatches and the mean group spread (unbiased std of returns).
 * Then, where runs of a filter and of none share seeds, the paired difference filter − none at
 * that step with a percentile bootstrap 95% interval over the seeds, as plugins/leaderboard/analysis/paired.ts.
 *   bun experiments/prototype-comparison/prototype-runs.ts <run.jsonl>... [--step 40]
 */
import { readFileSync } from "node:fs"
import { basename } from "node:path"
import { derive } from "../../core/rng.ts"

const argv = process.argv.slice(2)
let step = 40
const files: string[] = []
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--step") step = Number(argv[++i])
  else files.push(argv[i]!)
}
if (files.length === 0 || !Number.isInteger(step)) {
  console.error("usage: bun experiments/prototype-comparison/prototype-runs.ts <run.jsonl>... [--step 40]")
  process.exit(2)
}

const num = (x: unknown): number | undefined => (typeof x === "number" && Number.isFinite(x) ? x : undefined)
const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, x) => a + x, 0) / xs.length : Number.NaN)

const atStep: Array<{ filter: string; seed: number; fact: number; success: number }> = []
console.log(
  `| run | filter | P | val fact accuracy @${step} | val success @${step} | zero-spread | dropped non-zero | kept groups | minibatches | rv mean |\n|---|---|---|---|---|---|---|---|---|---|`
)
for (const f of files) {
  const lines = readFileSync(f, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  const config = (lines[0]!.config ?? {}) as Record<string, unknown>
  const P = num(config.P) ?? 8
  const filter = String(config.filter ?? "?")
  const recs = lines.filter((l) => num(l.step) !== undefined)
  const at = recs.find((r) => r.step === step)
  const train = recs.filter((r) => num(r.kept) !== undefined && (r.step as number) < step)
  const kept = train.map((r) => r.kept as number)
  // Only the prototype's top-p drops every zero-spread group, so only there is P − zero − kept the count of dropped non-zero ones.
  const dropped = filter !== "topp" ? [] : train.map((r) => P - (r.zero_var as number) - (r.kept as number))
  const mb = train.map((r) => num(r.upd_n_mb) ?? 0)
  if (at && num(at.val_fact_acc) !== undefined && num(at.val_success) !== undefined) {
    atStep.push({ filter, seed: num(config.seed) ?? -1, fact: at.val_fact_acc as number, success: at.val_success as number })
  }
  const v = (k: string) => (at && num(at[k]) !== undefined ? (at[k] as number).toFixed(3) : "–")
  console.log(
    `| ${basename(f, ".jsonl")} | ${filter} | ${P} | ${v("val_fact_acc")} | ${v("val_success")} | ${mean(train.map((r) => r.zero_var as number)).toFixed(2)} | ${dropped.length > 0 ? mean(dropped).toFixed(2) : "–"} | ${mean(kept).toFixed(2)} | ${mean(mb).toFixed(2)} | ${mean(train.map((r) => r.rv_mean as number)).toFixed(3)} |`
  )
}

const bootstrap = (xs: ReadonlyArray<number>, resamples = 10_000): [number, number] => {
  const rng = derive(0, "paired-bootstrap", xs.length)
  const means = new Float64Array(resamples)
  for (let b = 0; b < resamples; b++) {
    let s = 0
    for (let i = 0; i < xs.length; i++) s += xs[rng.int(xs.length)]!
    means[b] = s / xs.length
  }
  means.sort()
  return [means[Math.round(0.025 * (resamples - 1))]!, means[Math.round(0.975 * (resamples - 1))]!]
}
const f3 = (x: number) => (x >= 0 ? " " : "") + x.toFixed(3)
const arms = [...new Set(atStep.map((r) => r.filter))].filter((f) => f !== "none").sort()
if (arms.length > 0 && atStep.some((r) => r.filter === "none")) {
  console.log(`\nPaired difference filter − none at step ${step} (percentile bootstrap 95% interval over the seeds, 10000 resamples):\n`)
  console.log("| filter | metric | paired seeds | difference | 95% interval | per seed |\n|---|---|---|---|---|---|")
  for (const arm of arms) {
    for (const key of ["fact", "success"] as const) {
      const d = atStep
        .filter((r) => r.filter === arm)
        .flatMap((r) => {
          const b = atStep.find((x) => x.filter === "none" && x.seed === r.seed)
          return b ? [r[key] - b[key]] : []
        })
      if (d.length === 0) continue
      const [lo, hi] = bootstrap(d)
      console.log(`| ${arm} | ${key === "fact" ? "val fact accuracy" : "val success"} | ${d.length} | ${f3(mean(d))} | [${f3(lo)}, ${f3(hi)}] | ${d.map((x) => x.toFixed(3)).join(" ")} |`)
    }
  }
}
