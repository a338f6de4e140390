/**
 * The collapse track's calibration gate (docs/results/calibration.md §5, issue 39), from run
 * records (run folders or compact records): per setting (every config key but the seed), the
 * share of seeds whose validation success rises above step 0 and then ends (last-3 mean) at least
 * 10 points below its peak without an immediate fall (a blow-up: the first evaluation after step 0
 * 10 or more points below step 0), the seed means of step 0, peak and last-3, and MI-Est on the
 * fixed validation probe (first vs last diagnostic; fact accuracy step 0 vs last where MI-Est is
 * saturated). `--through N` cuts every curve at step N (the trainer's lr is constant, so the first
 * N steps of a longer run are those of an N-step run). `--every K` reads only the evaluations at
 * multiples of K steps (the evaluation-spacing lever: a run evaluated every 10 steps read as one
 * evaluated every K). `--runs` adds one line per seed.
 *
 *   node_modules/.bin/bun experiments/collapse-calibration/gate.ts <dirs...> [--through N] [--every K] [--runs] [--md]
 */
import { Effect } from "effect"
import { SUCCESS_METRIC } from "../../core/host.ts"
import { collectInputs } from "../../plugins/leaderboard/collect.ts"
import { type RunView, viewOf } from "../../plugins/leaderboard/replication/runs.ts"
import { curveOf } from "../../plugins/leaderboard/statistics/scores.ts"
import { SATURATED, SHARE, seedGate } from "./rule.ts"

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const through = flag("--through") === undefined ? undefined : Number(flag("--through"))
const every = flag("--every") === undefined ? undefined : Number(flag("--every"))
/** The evaluation steps read: up to --through, at multiples of --every. */
const kept = (step: number): boolean => (through === undefined || step <= through) && (every === undefined || step % every === 0)
const perRun = args.includes("--runs")
const md = args.includes("--md")
const dirs = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--through" && args[i - 1] !== "--every")
if (dirs.length === 0 || (every !== undefined && !(every > 0))) {
  console.error("usage: bun experiments/collapse-calibration/gate.ts <results-or-compact-dir...> [--through N] [--every K] [--runs] [--md]")
  process.exit(2)
}

const MI = "mi/probe_first_turn/mi_est"
const MI_BOUND = "mi/probe_first_turn/mi_upper_bound"
const FACT = "val/fact_accuracy@0.5"

const trainOf = (v: RunView): Record<string, unknown> => (v.run.config.config as unknown as { train?: Record<string, unknown> }).train ?? {}
const settingOf = (v: RunView): string => {
  const c = v.run.config.config
  const t = trainOf(v)
  const opts = (o: Record<string, unknown>): string =>
    Object.keys(o)
      .sort()
      .map((k) => `${k}=${JSON.stringify(o[k])}`)
      .join(",")
  const defaults: Record<string, unknown> = { entropyCoef: 0.001, klCoef: 0, minibatchTrajectories: 32, epochs: 1, temperature: 1 }
  const extra = Object.keys(defaults)
    .filter((k) => t[k] !== undefined && t[k] !== defaults[k])
    .map((k) => `${k}=${t[k]}`)
  const loss = (c.algoOptions as Record<string, unknown>).lossAgg
  return [
    c.env.replace(/^envs\//, "") + (c.env.includes("frozenlake") ? `(s=${Number(Number((c.envOptions as Record<string, unknown>).successRate).toFixed(3))})` : ""),
    c.algo.replace(/^algorithms\//, "") + (loss ? `(${loss})` : ""),
    `lr=${c.lr}`,
    `start=${t.warmStart && t.warmStart !== "none" ? String(t.warmStart).replace(/@.*$/, "") : `sft${t.sftSteps}`}`,
    `${c.P}x${c.G}`,
    `steps=${through !== undefined ? Math.min(through, c.steps) : c.steps}/eval${every ?? t.evalEvery}`,
    ...extra,
    `filter=${c.filter.replace(/^filters\//, "")}${Object.keys(c.filterOptions).length ? `(${opts(c.filterOptions as Record<string, unknown>)})` : ""}`,
    v.stream !== 0 ? `stream=${v.stream}` : ""
  ]
    .filter((s) => s !== "")
    .join(" ")
}

const pct = (x: number): string => (100 * x).toFixed(1)
const mean = (xs: ReadonlyArray<number>): number => xs.reduce((s, x) => s + x, 0) / xs.length
/** A metric's first and last values at the evaluation steps (compact records keep only those; run folders also log the diagnostics of step 1). */
const firstLast = (lines: ReadonlyArray<Readonly<Record<string, number | null | undefined>>>, metric: string, steps: ReadonlySet<number>): { first: number; last: number } | null => {
  const c = curveOf(lines, metric).filter((p) => steps.has(p.step) && kept(p.step))
  if (c.length < 2) return null
  return { first: c[0]!.value, last: c[c.length - 1]!.value }
}

const collected = await Effect.runPromise(collectInputs(dirs, "."))
const views = collected.runs.map((r) => viewOf(r.run)).filter((v) => v.complete)
const bySetting = new Map<string, RunView[]>()
for (const v of views) bySetting.set(settingOf(v), [...(bySetting.get(settingOf(v)) ?? []), v])

const rows: string[] = []
if (md)
  rows.push(
    "| setting | seeds | rise-then-fall | blow-ups | step 0 | peak | last-3 | peak − last-3 | MI-Est first → last | fact acc. 0 → last | passes |",
    "|---|---|---|---|---|---|---|---|---|---|---|"
  )
for (const [setting, vs] of [...bySetting.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
  const seeds = vs
    .sort((a, b) => a.seed - b.seed)
    .map((v) => {
      const lines = v.run.metrics.lines
      const curve = curveOf(lines, SUCCESS_METRIC).filter((p) => kept(p.step))
      const steps = new Set(curve.map((p) => p.step))
      return { v, g: seedGate(v.seed, curve), mi: firstLast(lines, MI, steps), bound: firstLast(lines, MI_BOUND, steps), fact: firstLast(lines, FACT, steps) }
    })
    .filter((s) => s.g !== null)
  if (seeds.length === 0) continue
  const gs = seeds.map((s) => s.g!)
  const passing = gs.filter((g) => g.pass).length
  const mis = seeds.filter((s) => s.mi !== null)
  const miFirst = mis.length ? mean(mis.map((s) => s.mi!.first)) : NaN
  const miLast = mis.length ? mean(mis.map((s) => s.mi!.last)) : NaN
  const bound = mis.length && seeds[0]!.bound ? seeds[0]!.bound.first : NaN
  const saturated = miFirst >= SATURATED * bound
  const facts = seeds.filter((s) => s.fact !== null)
  const factFirst = facts.length ? mean(facts.map((s) => s.fact!.first)) : NaN
  const factLast = facts.length ? mean(facts.map((s) => s.fact!.last)) : NaN
  const diagFalls = saturated ? factLast < factFirst : miLast < miFirst
  const miFallsSeeds = mis.filter((s) => s.mi!.last < s.mi!.first).length
  const share = passing / gs.length
  const pass = share >= SHARE - 1e-9 && diagFalls
  const stats = {
    step0: mean(gs.map((g) => g.step0)),
    peak: mean(gs.map((g) => g.peak)),
    last3: mean(gs.map((g) => g.last3)),
    drop: mean(gs.map((g) => g.peak - g.last3))
  }
  const blowUps = gs.filter((g) => g.blowUp).length
  const miText = `${miFirst.toFixed(2)} → ${miLast.toFixed(2)} (falls on ${miFallsSeeds}/${mis.length}${saturated ? `; saturated, bound ${bound.toFixed(2)}` : ""})`
  const factText = `${factFirst.toFixed(2)} → ${factLast.toFixed(2)}`
  const verdict = gs.length < 3 ? "too few seeds" : pass ? "PASS" : "no"
  if (md)
    rows.push(
      `| ${setting} | ${gs.length} | ${passing}/${gs.length} | ${blowUps} | ${pct(stats.step0)} | ${pct(stats.peak)} | ${pct(stats.last3)} | ${pct(stats.drop)} | ${miText} | ${factText} | ${verdict} |`
    )
  else {
    rows.push(`${setting}`)
    rows.push(
      `  seeds ${gs.length}: rise-then-fall ${passing}/${gs.length} (${(100 * share).toFixed(0)}%), blow-ups ${blowUps}; step0 ${pct(stats.step0)}  peak ${pct(stats.peak)}  last-3 ${pct(stats.last3)}  peak−last3 ${pct(stats.drop)}; MI-Est ${miText}; fact acc ${factText}  ⇒ ${verdict}`
    )
  }
  if (perRun)
    for (const s of seeds)
      rows.push(
        `${md ? "| " : "    "}s${s.g!.seed}: ${s.g!.curve.map((p) => pct(p.value)).join(" ")} | peak ${pct(s.g!.peak)}@${s.g!.peakStep} last-3 ${pct(s.g!.last3)}${s.g!.blowUp ? " BLOW-UP" : ""}${s.g!.pass ? " rise-then-fall" : ""} | MI ${s.mi ? `${s.mi.first.toFixed(2)}→${s.mi.last.toFixed(2)}` : "—"} fact ${s.fact ? `${s.fact.first.toFixed(2)}→${s.fact.last.toFixed(2)}` : "—"}${md ? " |" : ""}`
      )
}
console.log(rows.join("\n"))
