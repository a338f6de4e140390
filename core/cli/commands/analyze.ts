/**
 * `ragen-bench analyze <results-dir>...`: across the runs in the given folders (run folders, or
 * folders of run folders such as a sweep's --out), the Spearman correlation of each diagnostic
 * (mi/*, reasoning/*, filter/*, the policy entropy) at a chosen step with the run's final
 * validation success (summary.json finalValSuccess), with n and a percentile bootstrap interval
 * (the paper's Fig. 8). Runs without a summary or a final validation success are left out and
 * listed.
 */
import { Console, Effect } from "effect"
import { existsSync, statSync } from "node:fs"
import { basename, join, resolve } from "node:path"
import { correlate, type CorrelationRow, isDiagnostic, metricNames, type RunPoint } from "../../diagnostics/correlate.ts"
import { UsageError } from "../../errors.ts"
import { listRunDirs, readRun } from "../../results/store.ts"
import { numberFlag, numberFlagOr } from "../flags.ts"
import { defineCommand } from "../../contracts/plugin.ts"

const asList = (x: unknown): string[] =>
  x === undefined
    ? []
    : (Array.isArray(x) ? x : [x])
        .flatMap((v) => String(v).split(","))
        .map((s) => s.trim())
        .filter((s) => s !== "")

/** Run folders named by the arguments: a folder with config.json is a run, else its subfolders are. */
const runDirsOf = (args: ReadonlyArray<string>): Effect.Effect<string[], UsageError> =>
  Effect.gen(function* () {
    const out = new Set<string>()
    for (const a of args) {
      if (!existsSync(a) || !statSync(a).isDirectory()) {
        return yield* new UsageError({ field: "results-dir", message: `results folder ${a} does not exist; pass the --out folder of train or sweep (default: results)` })
      }
      const dirs = existsSync(join(a, "config.json")) ? [a] : listRunDirs(a)
      for (const d of dirs) out.add(resolve(d))
    }
    return [...out].sort()
  })

const fmt = (x: number, signed = true): string => (Number.isFinite(x) ? `${signed && x >= 0 ? "+" : ""}${x.toFixed(3)}` : "—")
const jsonNum = (x: number): number | null => (Number.isFinite(x) ? Number(x.toPrecision(6)) : null)

const table = (rows: ReadonlyArray<CorrelationRow>): string => {
  const head = ["metric", "step", "n", "rho", "95% CI"]
  const body = rows.map((r) => [
    r.metric,
    Number.isNaN(r.stepMin) ? "—" : r.stepMin === r.stepMax ? String(r.stepMin) : `${r.stepMin}–${r.stepMax}`,
    String(r.n),
    fmt(r.rho),
    Number.isFinite(r.lo) ? `[${fmt(r.lo)}, ${fmt(r.hi)}]` : "—"
  ])
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  return [head, ...body]
    .map((cells) =>
      cells
        .map((c, i) => c.padEnd(w[i]!))
        .join("  ")
        .trimEnd()
    )
    .join("\n")
}

export default defineCommand({
  pattern: "analyze [...dirs]",
  description: "Spearman correlation of each diagnostic at a step with final validation success, across runs (paper Fig. 8)",
  options: [
    { flags: "--step <s>", description: "Step of the diagnostics (its value there or the latest before); default: each one's first logged step" },
    { flags: "--metric <name>", description: "Only these metrics (repeatable or comma-separated; any logged metric name)" },
    { flags: "--resamples <n>", description: "Bootstrap resamples", default: 1000 },
    { flags: "--seed <n>", description: "Seed of the bootstrap's RNG", default: 12345 },
    { flags: "--json", description: "Print JSON instead of a table" }
  ],
  examples: ["ragen-bench analyze results", "ragen-bench analyze results/sweep-a results/sweep-b --step 5 --json", "ragen-bench analyze results --metric mi/first_turn/mi_est,reasoning/fact_accuracy"],
  run: (args, opts) =>
    Effect.gen(function* () {
      const dirsArg = (args[0] ?? []) as string[]
      if (dirsArg.length === 0) {
        return yield* new UsageError({ field: "results-dir", message: "analyze needs at least one results folder: ragen-bench analyze <results-dir>... (the --out of train or sweep)" })
      }
      const step = yield* numberFlag(opts.step, "--step", { integer: true, min: 0 })
      const resamples = yield* numberFlagOr(opts.resamples, "--resamples", 1000, { integer: true, min: 1 })
      const seed = yield* numberFlagOr(opts.seed, "--seed", 12345, { integer: true, min: 0 })
      const dirs = yield* runDirsOf(dirsArg)
      if (dirs.length === 0) {
        return yield* new UsageError({ field: "results-dir", message: `no runs found in ${dirsArg.join(", ")}: a run folder holds config.json; pass run folders or the folder that holds them` })
      }
      const runs: RunPoint[] = []
      const skipped: Array<{ run: string; reason: string }> = []
      for (const d of dirs) {
        const run = yield* readRun(d)
        const id = basename(d)
        if (!run.summary) skipped.push({ run: id, reason: "no summary.json (unfinished run)" })
        else if (run.summary.finalValSuccess === null) skipped.push({ run: id, reason: "no final validation success" })
        else runs.push({ id, lines: run.metrics.lines, target: run.summary.finalValSuccess })
      }
      if (runs.length === 0) {
        return yield* new UsageError({ field: "results-dir", message: `none of the ${dirs.length} runs found has a summary.json with finalValSuccess; let the runs finish (or resume them) first` })
      }
      const known = metricNames(runs)
      const wanted = asList(opts.metric)
      const unknown = wanted.filter((m) => !known.includes(m))
      if (unknown.length > 0) {
        return yield* new UsageError({
          field: "--metric",
          message: `unknown metric ${unknown.map((m) => `"${m}"`).join(", ")}: not logged by any of the ${runs.length} runs; known metrics: ${known.join(", ")}`
        })
      }
      const metrics = wanted.length > 0 ? wanted : known.filter(isDiagnostic)
      if (metrics.length === 0) {
        return yield* new UsageError({
          field: "--metric",
          message: `the runs log no diagnostics (mi/*, reasoning/*, filter/*, entropy); pick metrics with --metric; known metrics: ${known.join(", ")}`
        })
      }
      const rows = correlate(runs, metrics, { ...(step === undefined ? {} : { step }), resamples, seed })
      if (opts.json) {
        const out = {
          target: "summary.finalValSuccess",
          step: step ?? "first",
          runs: runs.length,
          skipped,
          bootstrap: { resamples, seed, level: 0.95 },
          rows: rows.map((r) => ({ metric: r.metric, n: r.n, rho: jsonNum(r.rho), lo: jsonNum(r.lo), hi: jsonNum(r.hi), stepMin: jsonNum(r.stepMin), stepMax: jsonNum(r.stepMax) }))
        }
        return yield* Console.log(JSON.stringify(out, null, 2))
      }
      const at = step === undefined ? "at its first logged step" : `at step ${step} (or the latest logged before)`
      const lines = [
        `Spearman rho of each diagnostic ${at} vs final validation success, ${runs.length} runs; 95% bootstrap interval (${resamples} resamples, seed ${seed})`,
        ...skipped.map((s) => `skipped ${s.run}: ${s.reason}`),
        "",
        table(rows)
      ]
      yield* Console.log(lines.join("\n"))
    })
})
