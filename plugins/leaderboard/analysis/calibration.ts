/**
 * The calibration tables of docs/results/calibration.md, from run records (run folders or
 * compact records): per run, the validation-success curve, its area (mean over the evaluations
 * after step 0), last-3, peak and the fraction of groups kept; per (lr, filter) cell, the paired
 * area differences against `none` on the same seeds with the exact sign-flip p. `--through N`
 * also scores each curve cut at step N (what a run of N steps would have seen: the trainer's
 * constant learning rate makes a longer run's first N steps those of an N-step run).
 *
 *   node_modules/.bin/bun plugins/leaderboard/analysis/calibration.ts <dirs...> [--through N] [--out FILE]
 */
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { SUCCESS_METRIC } from "../../../core/host.ts"
import { collectInputs } from "../collect.ts"
import { groupBy, type RunView, viewOf } from "../replication/runs.ts"
import { keptOf } from "../run-scores.ts"
import { signFlipTest } from "../statistics/paired-tests.ts"
import { areaScore, type CurvePoint, curveOf, lastMeanScore, peakScore } from "../statistics/scores.ts"

const args = process.argv.slice(2)
const flag = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const out = flag("--out")
const through = flag("--through") === undefined ? undefined : Number(flag("--through"))
const dirs = args.filter((a, i) => !a.startsWith("--") && !["--out", "--through"].includes(args[i - 1] ?? ""))
if (dirs.length === 0 || (through !== undefined && !(through > 0))) {
  console.error("usage: bun plugins/leaderboard/analysis/calibration.ts <results-or-compact-dir...> [--through N] [--out FILE]")
  process.exit(2)
}

const pct = (x: number | null): string => (x === null ? "—" : (100 * x).toFixed(1))
const signed = (x: number): string => `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}`
const optionText = (o: Readonly<Record<string, unknown>>): string =>
  Object.keys(o)
    .sort()
    .map((k) => `${k}=${typeof o[k] === "object" ? JSON.stringify(o[k]) : String(o[k])}`)
    .join(" ")
const cellOf = (v: RunView): string => (v.stream !== 0 ? "none′ (noise floor)" : `${v.filter}${Object.keys(v.filterOptions).length ? ` ${optionText(v.filterOptions)}` : ""}`)
const lrOf = (v: RunView): number => v.run.config.config.lr
const cut = (c: ReadonlyArray<CurvePoint>): CurvePoint[] => c.filter((p) => through === undefined || p.step <= through)

interface Scored {
  readonly v: RunView
  readonly curve: CurvePoint[]
  readonly area: number | null
  readonly areaCut: number | null
}

const collected = await Effect.runPromise(collectInputs(dirs, "."))
const runs: Scored[] = collected.runs
  .map((r) => viewOf(r.run))
  .filter((v) => v.complete)
  .map((v) => {
    const curve = curveOf(v.run.metrics.lines, SUCCESS_METRIC)
    return { v, curve, area: areaScore(curve), areaCut: areaScore(cut(curve)) }
  })
  .sort((a, b) => lrOf(a.v) - lrOf(b.v) || cellOf(a.v).localeCompare(cellOf(b.v)) || a.v.seed - b.v.seed)

const cutHead = through === undefined ? "" : ` area ≤ ${through} |`
const perRun = (): string[] => [
  `| env | lr | filter | seed | curve (step: success %) | area |${cutHead} last-3 | peak | groups kept |`,
  `|---|---|---|---|---|---|${through === undefined ? "" : "---|"}---|---|---|`,
  ...runs.map(({ v, curve, area, areaCut }) => {
    const points = curve.map((p) => `${p.step}: ${pct(p.value)}`).join(", ")
    const cutCell = through === undefined ? "" : ` ${pct(areaCut)} |`
    return `| ${v.env} | ${lrOf(v)} | ${cellOf(v)} | ${v.seed} | ${points} | ${pct(area)} |${cutCell} ${pct(lastMeanScore(curve))} | ${pct(peakScore(curve))} | ${pct(keptOf(v.run).groups)} |`
  })
]

/** Per (env, lr, filter): mean area and the paired area differences against none on the same seeds. */
const perCell = (pick: (s: Scored) => number | null, what: string): string[] => {
  const lines = [`| env | lr | filter | seeds | mean ${what} | Δ ${what} vs none per seed | below none | sign-flip p |`, "|---|---|---|---|---|---|---|---|"]
  for (const cell of groupBy(runs, (s) => `${s.v.env}\u0000${lrOf(s.v)}\u0000${cellOf(s.v)}`).values()) {
    const { env } = cell[0]!.v
    const lr = lrOf(cell[0]!.v)
    const none = new Map(runs.filter((s) => s.v.env === env && lrOf(s.v) === lr && s.v.stream === 0 && s.v.filter === "none").map((s) => [s.v.seed, pick(s)]))
    const scores = cell.map(pick).filter((x): x is number => x !== null)
    const deltas = cell.flatMap((s) => ((s.v.stream === 0 && s.v.filter === "none") || pick(s) === null || typeof none.get(s.v.seed) !== "number" ? [] : [pick(s)! - none.get(s.v.seed)!]))
    const p = deltas.length >= 2 ? signFlipTest(deltas, { seed: `${env}:${lr}:${cellOf(cell[0]!.v)}` }).p.toFixed(4) : "—"
    const mean = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null
    const below = deltas.length ? `${deltas.filter((d) => d < 0).length}/${deltas.length}` : "—"
    lines.push(`| ${env} | ${lr} | ${cellOf(cell[0]!.v)} | ${cell.length} | ${pct(mean)} | ${deltas.map(signed).join(", ") || "—"} | ${below} | ${p} |`)
  }
  return lines
}

const text = [
  `Generated by \`bun plugins/leaderboard/analysis/calibration.ts ${args.join(" ")}\` from ${runs.length} complete runs; no figure typed by hand.`,
  "Success = validation success at T = 0.5, in %; area = mean over the evaluations after step 0; groups kept = mean filter/kept_ratio over the logged steps (every step in a run folder; the evaluation steps only in a compact record).",
  "",
  ...perRun(),
  "",
  ...perCell((s) => s.area, "area"),
  ...(through === undefined ? [] : ["", ...perCell((s) => s.areaCut, `area ≤ ${through}`)]),
  ""
].join("\n")
if (out) writeFileSync(out, text)
else console.log(text)
