/**
 * Paired differences between filter arms that share seeds (rliable's advice: when runs share
 * seeds, compare them pairwise): for each cell (every setting but the filter and the seed) and
 * each arm, the per-seed difference arm − baseline of a metric at one step, its mean, a
 * percentile bootstrap 95% interval over the seeds (resampling the seeds' differences with
 * replacement) and, because a bootstrap over a handful of seeds is too narrow, the Student-t
 * interval beside it. Every file is decoded through the results schemas (core/results/store.ts); no
 * figure is typed in by hand.
 *   bun plugins/leaderboard/analysis/paired.ts <results dir>... [--baseline none] [--step N] [--metric name]...
 *     [--per-step name]... [--resamples 10000]
 * Defaults: metrics val/fact_accuracy@0.5 and val/success@0.5 at the last step every run of the
 * cell logged them; per-step means (over steps ≥ 1 and seeds) of the zero-spread groups, the
 * dropped non-zero-spread groups, kept groups, optimizer steps, mean group spread and the
 * dual-clip fraction.
 */
import { Effect } from "effect"
import { derive, listRunDirs, readRun } from "../../../core/host.ts"

const argv = process.argv.slice(2)
const dirs: string[] = []
const metrics: string[] = []
const perStep: string[] = []
let baseline = "none"
let step: number | undefined
let resamples = 10_000
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!
  if (a === "--metric") metrics.push(argv[++i]!)
  else if (a === "--per-step") perStep.push(argv[++i]!)
  else if (a === "--baseline") baseline = argv[++i]!
  else if (a === "--step") step = Number(argv[++i])
  else if (a === "--resamples") resamples = Number(argv[++i])
  else dirs.push(a)
}
if (dirs.length === 0 || (step !== undefined && !Number.isInteger(step)) || !(resamples >= 100)) {
  console.error("usage: bun plugins/leaderboard/analysis/paired.ts <results dir>... [--baseline none] [--step N] [--metric name]... [--per-step name]... [--resamples 10000]")
  process.exit(2)
}
if (metrics.length === 0) metrics.push("val/fact_accuracy@0.5", "val/success@0.5")
if (perStep.length === 0) perStep.push("filter/zero_variance_groups", "filter/dropped_nonzero", "train/kept_groups", "train/optimizer_steps", "filter/rv_mean", "losses/dual_clipfrac")

const label = (o: unknown): string => (typeof o === "string" ? o : JSON.stringify(o))
const shortId = (id: string) => id.slice(id.lastIndexOf("/") + 1)

interface Run {
  readonly cell: string
  readonly arm: string
  readonly seed: number
  readonly bySteps: Map<number, Record<string, number | null>>
}
const runs: Run[] = dirs.flatMap((dir) =>
  listRunDirs(dir).map((runDir) => {
    const r = Effect.runSync(readRun(runDir))
    const c = r.config.config
    const { seed, filter, filterOptions, ...rest } = c
    const arm = Object.keys(filterOptions).length > 0 ? `${shortId(filter)} ${label(filterOptions)}` : shortId(filter)
    const bySteps = new Map<number, Record<string, number | null>>()
    for (const line of r.metrics.lines) if (typeof line.step === "number") bySteps.set(line.step, { ...bySteps.get(line.step), ...line })
    return { cell: JSON.stringify(rest), arm, seed, bySteps }
  })
)

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, x) => a + x, 0) / xs.length
/** Percentile bootstrap of the mean: resample the values with replacement, 2.5% and 97.5% quantiles. */
const bootstrap = (xs: ReadonlyArray<number>): [number, number] => {
  const rng = derive(0, "paired-bootstrap", xs.length)
  const means = new Float64Array(resamples)
  for (let b = 0; b < resamples; b++) {
    let s = 0
    for (let i = 0; i < xs.length; i++) s += xs[rng.int(xs.length)]!
    means[b] = s / xs.length
  }
  means.sort()
  const q = (p: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(p * (resamples - 1))))]!
  return [q(0.025), q(0.975)]
}
/** Student-t 97.5% quantiles for 1..30 degrees of freedom (then 1.96): the t interval beside the bootstrap, which is too narrow for a handful of seeds. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045,
  2.042
]
const tInterval = (xs: ReadonlyArray<number>): [number, number] | undefined => {
  const n = xs.length
  if (n < 2) return undefined
  const m = mean(xs)
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (n - 1))
  const h = ((T975[n - 2] ?? 1.96) * sd) / Math.sqrt(n)
  return [m - h, m + h]
}
const f3 = (x: number) => (x >= 0 ? " " : "") + x.toFixed(3)

const cells = [...new Set(runs.map((r) => r.cell))]
for (const cell of cells) {
  const inCell = runs.filter((r) => r.cell === cell)
  const c = JSON.parse(cell)
  console.log(`\n## ${shortId(c.env)} ${label(c.envOptions)} | ${shortId(c.algo)} | lr ${c.lr} | P ${c.P} G ${c.G} | ${c.steps} steps\n`)
  const arms = [...new Set(inCell.map((r) => r.arm))].sort()
  const base = arms.find((a) => a === baseline || a.startsWith(`${baseline} `))
  for (const m of metrics) {
    const has = (r: Run, s: number) => typeof r.bySteps.get(s)?.[m] === "number"
    const at = step ?? Math.max(-1, ...[...inCell[0]!.bySteps.keys()].filter((s) => inCell.every((r) => has(r, s))))
    if (at < 0) {
      console.log(`${m}: no step where every run of the cell logged it\n`)
      continue
    }
    const value = (r: Run) => r.bySteps.get(at)![m] as number
    console.log(
      `${m} at step ${at}: each arm's mean over its seeds, and the paired difference arm − ${base ?? baseline} (mean, percentile bootstrap 95% interval over the seeds, ${resamples} resamples)\n`
    )
    console.log(`| arm | seeds | mean | per seed | paired seeds | difference | 95% interval (bootstrap) | 95% interval (t) | seeds with arm > baseline |\n|---|---|---|---|---|---|---|---|---|`)
    for (const arm of arms) {
      const mine = inCell.filter((r) => r.arm === arm && has(r, at)).sort((a, b) => a.seed - b.seed)
      const vals = mine.map(value)
      let diffCols = "– | – | – | – | –"
      if (base && arm !== base) {
        const pairs = mine.flatMap((r) => {
          const b = inCell.find((x) => x.arm === base && x.seed === r.seed && has(x, at))
          return b ? [value(r) - value(b)] : []
        })
        if (pairs.length > 0) {
          const [lo, hi] = bootstrap(pairs)
          const t = tInterval(pairs)
          diffCols = `${pairs.length} | ${f3(mean(pairs))} | [${f3(lo)}, ${f3(hi)}] | ${t ? `[${f3(t[0])}, ${f3(t[1])}]` : "–"} | ${pairs.filter((d) => d > 0).length} of ${pairs.length}`
        }
      }
      console.log(`| ${arm} | ${vals.length} | ${mean(vals).toFixed(3)} | ${vals.map((v) => v.toFixed(3)).join(" ")} | ${diffCols} |`)
    }
    console.log()
  }
  console.log(`Per-step means over steps ≥ 1 and the seeds:\n\n| arm | ${perStep.join(" | ")} |\n|---|${perStep.map(() => "---|").join("")}`)
  for (const arm of arms) {
    const cols = perStep.map((m) => {
      const xs = inCell.filter((r) => r.arm === arm).flatMap((r) => [...r.bySteps].filter(([s, l]) => s >= 1 && typeof l[m] === "number").map(([, l]) => l[m] as number))
      return xs.length > 0 ? mean(xs).toPrecision(3) : "–"
    })
    console.log(`| ${arm} | ${cols.join(" | ")} |`)
  }
}
