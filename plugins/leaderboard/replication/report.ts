/**
 * docs/replication.md from run records: one row per claim of the paper (and the project's own
 * finding) with the preset that backs it, its seeds, the numbers with 95% intervals and a verdict.
 *
 *   node_modules/.bin/bun cli.ts leaderboard replicate <results-or-compact-dir...> [--out docs/replication.md]
 *
 * Inputs are read as the leaderboard reads them (plugins/leaderboard/collect.ts: run folders and
 * compact records in any mix; a file that does not decode is listed under "Left out"). A folder
 * without runs gives a valid document with every row "not run".
 */
import { Effect } from "effect"
import { existsSync, statSync } from "node:fs"
import { dirname, normalize } from "node:path"
import { collectInputs } from "../collect.ts"
import { evaluateClaims } from "./claims.ts"
import { renderReport } from "./render.ts"
import { type RunView, viewOf } from "./runs.ts"

export const USAGE = "usage: ragen-bench leaderboard replicate <results-or-compact-dir...> [--out docs/replication.md]"

export interface Args {
  readonly dirs: string[]
  readonly out: string
}

/** Parse argv; a mistake is one line naming the argument and the fix. */
export const parseArgs = (argv: ReadonlyArray<string>): Args | { error: string } => {
  const dirs: string[] = []
  let out = "docs/replication.md"
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--out") {
      const v = argv[++i]
      if (!v || v.startsWith("--")) return { error: "--out needs a file: --out docs/replication.md" }
      out = v
    } else if (a.startsWith("--out=")) out = a.slice(6)
    else if (a.startsWith("-")) return { error: `unknown option ${a} (the options: --out <file>)` }
    else dirs.push(a)
  }
  if (dirs.length === 0) return { error: `no folder given. ${USAGE}` }
  for (const d of dirs) {
    if (!existsSync(d)) return { error: `folder ${d} does not exist (give results or compact folders)` }
    if (!statSync(d).isDirectory()) return { error: `${d} is not a folder (give results or compact folders)` }
  }
  return { dirs, out }
}

/** The report for the given folders, and the command line it records. */
export const buildReport = (args: Args): Effect.Effect<string> =>
  Effect.gen(function* () {
    const collected = yield* collectInputs(args.dirs, ".")
    // A run id read twice (the same run in two folders) counts once: the first.
    const seen = new Set<string>()
    const runs: RunView[] = []
    const problems = [...collected.problems]
    for (const { run } of collected.runs) {
      if (seen.has(run.config.runId)) {
        problems.push({ path: run.dir, message: `run ${run.config.runId} was read already from another folder: counted once` })
        continue
      }
      seen.add(run.config.runId)
      runs.push(viewOf(run))
    }
    const sources = args.dirs.map((d) => {
      const inDir = runs.filter((v) => normalize(dirname(v.run.dir)) === normalize(d))
      const compact = inDir.filter((v) => "record" in v.run).length
      return { path: d, runFolders: inDir.length - compact, compactRecords: compact }
    })
    const command = ["node_modules/.bin/bun cli.ts leaderboard replicate", ...args.dirs, "--out", args.out].join(" ")
    return renderReport({ command, sources, runs, problems, rows: evaluateClaims(runs) })
  })
