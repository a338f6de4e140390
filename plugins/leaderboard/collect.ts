/**
 * The leaderboard's inputs: results folders (run folders, read by build.ts collectRuns) and
 * compact folders (`<runId>.json` records, core/results/compact.ts), in any mix. A file that
 * does not decode is a problem naming its path; its run is left out, as is a run holding a value
 * outside its metric's range (ranges.ts).
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { listCompactFiles, readCompact, readJsonFile } from "../../core/host.ts"
import { collectRuns, type RunInput } from "./build.ts"
import { runRangeProblem } from "./ranges.ts"
import { type Problem, VerifyFile } from "./schema.ts"

export interface Collected {
  readonly runs: RunInput[]
  readonly problems: Problem[]
  readonly sources: string[]
}

/** Every run under `dirs`: run folders and compact records (a run id seen twice is read once: the first). */
export const collectInputs = (dirs: ReadonlyArray<string>, siteDir: string): Effect.Effect<Collected> =>
  Effect.gen(function* () {
    const base = yield* collectRuns(dirs, siteDir)
    const problems = [...base.problems]
    const rel = (p: string): string => relative(resolve(siteDir), resolve(p)).split("\\").join("/")
    const inRange = (r: RunInput, where: string, metricsName?: string): boolean => {
      const why = runRangeProblem(r.run, metricsName)
      if (why) problems.push({ path: rel(where), message: why })
      return why === undefined
    }
    const runs = base.runs.filter((r) => inRange(r, r.run.dir))
    const seen = new Set(runs.map((r) => r.run.config.runId))
    for (const root of dirs) {
      const files = listCompactFiles(root)
      if (files.length === 0) continue
      // collectRuns already reported a bad verify.json; here its marks are only applied.
      const vPath = join(root, "verify.json")
      const v = existsSync(vPath) ? yield* Effect.result(readJsonFile(VerifyFile, vPath)) : undefined
      const verified = v?._tag === "Success" ? v.success.runs : {}
      for (const f of files) {
        const r = yield* Effect.result(readCompact(f))
        if (r._tag === "Failure") {
          problems.push({ path: rel(f), message: r.failure.message.split(f).join(rel(f)) })
          continue
        }
        const id = r.success.config.runId
        if (seen.has(id)) continue
        seen.add(id)
        if (!inRange({ run: r.success, verified: null }, f, "curves")) continue
        const mark = verified[id]
        runs.push({ run: r.success, verified: mark ? mark.ok : null })
      }
    }
    return { runs, problems, sources: base.sources }
  })
