/**
 * One behaviour for every command that builds the site (`leaderboard`, `sweep`, hence `npm
 * start`): the published reference set (by default the shipped plugins/leaderboard/reference/standard/)
 * joins the user's rows where the configurations agree, `--reference DIR` names another one and
 * `--reference none` joins nothing. The page says it: the reference folder is listed among the
 * sources with how many of its runs joined.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { terminalSafe, UsageError } from "../../core/host.ts"
import { type Collected, type CollectOptions, collectInputs } from "./collect.ts"
import { defaultReference, joinReference } from "./reference.ts"

export const REFERENCE_FLAG = {
  flags: "--reference [dir]",
  description:
    "Compact folder of published runs to set beside yours where the configs agree (seed, filter, kernels aside) — default: the published set named after the sweep (plugins/leaderboard/reference/<sweep>/, e.g. quick) when shipped, else plugins/leaderboard/reference/standard/; `none` for no reference"
} as const

/** The reference folder: the flag's, else the shipped one (the sweep's own when present); none when it is one of the inputs. */
export const referenceDir = (flag: unknown, inputs: ReadonlyArray<string>, sweepName?: string): Effect.Effect<string | undefined, UsageError> => {
  if (flag === "none" || flag === false) return Effect.succeed(undefined)
  // `--reference` alone: the shipped set (what the default does, said explicitly).
  const dir = flag === undefined || flag === true || flag === "" ? defaultReference(sweepName) : String(flag)
  if (dir === undefined) {
    if (flag === true) return Effect.fail(new UsageError({ field: "--reference", message: "no published reference set is shipped here; give a compact folder: --reference DIR" }))
    return Effect.succeed(undefined)
  }
  if (!existsSync(dir))
    return Effect.fail(new UsageError({ field: "--reference", message: `reference folder ${dir} does not exist; give a compact folder (ragen-bench results compact) or --reference none` }))
  return Effect.succeed(inputs.some((d) => resolve(d) === resolve(dir)) ? undefined : dir)
}

/** The user's runs under `dirs` and the reference runs that join them; the join's notes go to stderr. */
export const collectWithReference = (dirs: ReadonlyArray<string>, siteDir: string, refDir: string | undefined, options: CollectOptions = {}): Effect.Effect<Collected> =>
  Effect.gen(function* () {
    const mine = yield* collectInputs(dirs, siteDir, options)
    if (refDir === undefined) return mine
    const ref = yield* collectInputs([refDir], siteDir, options)
    const joined = joinReference(mine.runs, ref.runs, ref.sources[0]!)
    for (const n of joined.notes) process.stderr.write(`${terminalSafe(n)}\n`)
    const source = joined.runs.length > 0 ? [`${ref.sources[0]} (published reference set: ${joined.runs.length} of ${ref.runs.length} runs joined beside yours)`] : []
    return {
      runs: [...mine.runs, ...joined.runs],
      problems: [...mine.problems, ...ref.problems],
      sources: [...mine.sources, ...source],
      reference: joined.runs.map((r) => r.run.config.runId)
    }
  })
