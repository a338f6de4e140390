import { Console, Effect } from "effect"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { readAgentRuns, verifyNote } from "./agents.ts"
import { collectWithReference, REFERENCE_FLAG, referenceDir } from "./join.ts"
import { writeSite } from "./site.ts"
import { DEFAULT_RERUN_BUDGET } from "./rerun-budget.ts"
import { verifyRuns } from "./verify.ts"
import { replicate } from "./replication/run.ts"
import { defineCommand, loadTrainer, numberFlagOr, Registry, terminalSafe, UsageError } from "../../core/host.ts"

const checkDirs = (dirs: ReadonlyArray<string>): Effect.Effect<void, UsageError> => {
  if (dirs.length === 0) return Effect.fail(new UsageError({ field: "results-dir", message: "give at least one results folder: ragen-bench leaderboard results/ --out site/" }))
  const missing = dirs.find((d) => !existsSync(d))
  return missing ? Effect.fail(new UsageError({ field: "results-dir", message: `results folder ${missing} does not exist` })) : Effect.void
}

export default defineCommand({
  pattern: "leaderboard [...dirs]",
  description:
    "Build the leaderboard (JSON, Markdown, static HTML) from results folders or compact folders; `leaderboard verify <dir>` re-runs a sample; `leaderboard replicate <dir...>` writes the replication report (docs/replication.md)",
  options: [
    REFERENCE_FLAG,
    { flags: "--json", description: "Print a JSON summary (runs, rows, filters, problems, files) instead of two lines" },
    { flags: "--out <path>", description: "Site folder to write (default: site); replicate: the report file (default: docs/replication.md)" },
    { flags: "--sample <k>", description: "verify: how many runs to re-run", default: 3 },
    { flags: "--seed <n>", description: "verify: seed of the random choice of runs", default: 1 },
    { flags: "--allow-external", description: "verify: also re-run configs that read files or reach URLs (only for results you trust)" },
    { flags: "--max-steps <n>", description: "verify: refuse re-runs of more training steps than this", default: DEFAULT_RERUN_BUDGET.steps },
    { flags: "--max-pg <n>", description: "verify: refuse re-runs with more trajectories per step (P × G) than this", default: DEFAULT_RERUN_BUDGET.pg },
    { flags: "--max-tokens <n>", description: "verify: refuse re-runs that may generate more tokens (steps × P × G × turns × tokens per turn) than this", default: DEFAULT_RERUN_BUDGET.tokens }
  ],
  examples: [
    "ragen-bench leaderboard results/ --out site/",
    "ragen-bench leaderboard results/ --reference plugins/leaderboard/reference/standard/",
    "ragen-bench leaderboard verify results/ --sample 2",
    "ragen-bench leaderboard replicate plugins/leaderboard/reference/standard plugins/leaderboard/reference/fig3 --out docs/replication.md"
  ],
  run: (args, opts) =>
    Effect.gen(function* () {
      const all = ((args[0] ?? []) as string[]).map(String)
      if (all[0] === "replicate") return yield* replicate(all.slice(1), opts.out)
      if (all[0] === "verify") {
        const dirs = all.slice(1)
        yield* checkDirs(dirs)
        const sample = yield* numberFlagOr(opts.sample, "--sample", 3, { integer: true, min: 0 })
        const seed = yield* numberFlagOr(opts.seed, "--seed", 1, { integer: true, min: 0 })
        const budget = {
          steps: yield* numberFlagOr(opts.maxSteps, "--max-steps", DEFAULT_RERUN_BUDGET.steps, { integer: true, min: 0 }),
          pg: yield* numberFlagOr(opts.maxPg, "--max-pg", DEFAULT_RERUN_BUDGET.pg, { integer: true, min: 1 }),
          tokens: yield* numberFlagOr(opts.maxTokens, "--max-tokens", DEFAULT_RERUN_BUDGET.tokens, { min: 0 })
        }
        const train = yield* Effect.tryPromise({
          try: loadTrainer,
          catch: (e) => new UsageError({ field: "trainer", message: `cannot load the trainer to re-run runs: ${(e as Error).message}` })
        })
        const registry = yield* Registry
        let bad = 0
        for (const dir of dirs) {
          const results = yield* verifyRuns(dir, sample, seed, train, registry.data.plugins, { allowExternal: opts.allowExternal === true, budget })
          for (const r of results) {
            if (!r.ok) bad++
            yield* Console.log(terminalSafe(`${r.ok ? "verified" : r.refused ? "REFUSED " : "MISMATCH"}  ${r.runId}: ${r.detail}`))
          }
          // Agent evaluations of remote models cannot be re-run bit for bit: say so instead of re-running them.
          for (const e of (yield* readAgentRuns(dir)).entries) {
            const note = verifyNote(e.config)
            if (note) yield* Console.log(terminalSafe(`skipped   ${e.summary.runId}: ${note}`))
          }
          yield* Console.log(`${dir}: ${results.filter((r) => r.ok).length}/${results.length} re-run(s) matched; marks in ${resolve(dir, "verify.json")}`)
        }
        if (bad > 0) process.exitCode = 1
        return
      }
      yield* checkDirs(all)
      const siteDir = String(opts.out ?? "site")
      const refDir = yield* referenceDir(opts.reference, all)
      const collected = collectWithReference(all, siteDir, refDir)
      const site = yield* writeSite(all, siteDir, collected)
      // Paths and messages come from result folders: no control or escape sequence reaches the terminal.
      for (const p of site.leaderboard.problems) process.stderr.write(`warning: ${terminalSafe(p.path)}: ${terminalSafe(p.message)}\n`)
      const lb = site.leaderboard
      if (opts.json) {
        return yield* Console.log(
          JSON.stringify(
            {
              runs: lb.entries.length,
              rows: lb.rows.length,
              filters: lb.filters,
              verdict: lb.verdict.sentence,
              problems: lb.problems,
              files: { html: resolve(site.files.html), md: resolve(site.files.md), json: resolve(site.files.json) }
            },
            null,
            2
          )
        )
      }
      yield* Console.log(`${lb.entries.length} runs, ${lb.rows.length} rows, ${lb.filters.length} filters, ${lb.problems.length} file problem(s)`)
      yield* Console.log(terminalSafe(lb.verdict.sentence))
      yield* Console.log(`leaderboard: ${resolve(site.files.html)} (also ${site.files.md}, ${site.files.json})`)
    })
})
