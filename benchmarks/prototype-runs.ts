/**
 * The DESIGN.md §10 prototype's run files (../shared/reference/prototype/runs/*.jsonl: a config
 * line, then one line per step) in the terms of benchmarks/paired.ts, so the two can be read side
 * by side: validation fact accuracy and success (T = 0.5, 256 seeds) at one step, and per-step
 * means over steps 0..step−1 of the zero-spread groups, the dropped non-zero-spread groups
 * (P − zero-spread − kept, for top-p, which drops every zero-spread group), kept groups,
 * minibatches and the mean group spread (unbiased std of returns).
 *   bun benchmarks/prototype-runs.ts <run.jsonl>... [--step 40]
 */
import { readFileSync } from "node:fs"
import { basename } from "node:path"

const argv = process.argv.slice(2)
let step = 40
const files: string[] = []
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--step") step = Number(argv[++i])
  else files.push(argv[i]!)
}
if (files.length === 0 || !Number.isInteger(step)) {
  console.error("usage: bun benchmarks/prototype-runs.ts <run.jsonl>... [--step 40]")
  process.exit(2)
}

const num = (x: unknown): number | undefined => (typeof x === "number" && Number.isFinite(x) ? x : undefined)
const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, x) => a + x, 0) / xs.length : Number.NaN)

console.log(`| run | filter | P | val fact accuracy @${step} | val success @${step} | zero-spread | dropped non-zero | kept groups | minibatches | rv mean |\n|---|---|---|---|---|---|---|---|---|---|`)
for (const f of files) {
  const lines = readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
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
  const v = (k: string) => (at && num(at[k]) !== undefined ? (at[k] as number).toFixed(3) : "–")
  console.log(`| ${basename(f, ".jsonl")} | ${filter} | ${P} | ${v("val_fact_acc")} | ${v("val_success")} | ${mean(train.map((r) => r.zero_var as number)).toFixed(2)} | ${dropped.length > 0 ? mean(dropped).toFixed(2) : "–"} | ${mean(kept).toFixed(2)} | ${mean(mb).toFixed(2)} | ${mean(train.map((r) => r.rv_mean as number)).toFixed(3)} |`)
}
