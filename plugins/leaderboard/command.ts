import { Console, Effect } from "effect"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { collectWithReference, REFERENCE_FLAG, referenceDir } from "./join.ts"
import { writeSite } from "./site.ts"
import { DEFAULT_RERUN_BUDGET } from "./rerun-budget.ts"
import { verifyCommand } from "./verify-command.ts"
import { replicate } from "./replication/run.ts"
import { defineCommand, terminalSafe, UsageError } from "../../core/host.ts"

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
    { flags: "--max-steps <n>", description: "verify: refuse re-runs of more optimizer steps (steps × epochs + SFT steps) than this", default: DEFAULT_RERUN_BUDGET.steps },
    { flags: "--max-pg <n>", description: "verify: refuse re-runs with more trajectories per step (P × G) than this", default: DEFAULT_RERUN_BUDGET.pg },
    {
      flags: "--max-tokens <n>",
      description: "verify: refuse re-runs that may generate or train on more tokens (rollouts, validation, diagnostics, epochs, SFT; × turns × tokens per turn) than this",
      default: DEFAULT_RERUN_BUDGET.tokens
    },
    { flags: "--max-episodes <n>", description: "verify: refuse re-runs that play more episodes (rollouts and validation episodes) than this", default: DEFAULT_RERUN_BUDGET.episodes },
    {
      flags: "--marks <dir>",
      description:
        "The builder's folder of verification marks: verify writes them there, the build shows them (default ~/.ragen-bench/verify-marks; never inside an input folder, and marks inside an input are never read)"
    }
  ],
  examples: [
    "ragen-bench leaderboard results/ --out site/",
    "ragen-bench leaderboard results/ --reference plugins/leaderboard/reference/standard/",
    "ragen-bench leaderboard verify results/ --sample 2",
    "ragen-bench leaderboard verify received-records/ --sample 1 --plugin ./their-filter.ts --marks my-marks/",
    "ragen-bench leaderboard replicate plugins/leaderboard/reference/standard plugins/leaderboard/reference/fig3 --out docs/replication.md"
  ],
  run: (args, opts) =>
    Effect.gen(function* () {
      const all = ((args[0] ?? []) as string[]).map(String)
      if (all[0] === "replicate") return yield* replicate(all.slice(1), opts.out)
      if (all[0] === "verify") return yield* verifyCommand(all.slice(1), opts)
      yield* checkDirs(all)
      const siteDir = String(opts.out ?? "site")
      const refDir = yield* referenceDir(opts.reference, all)
      // Marks are the builder's own (verify-marks.ts), never read from an input folder.
      const collected = collectWithReference(all, siteDir, refDir, opts.marks !== undefined ? { marksDir: String(opts.marks) } : {})
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
