/**
 * `leaderboard verify <dir...>`: flags to a re-run budget and options, one line per re-run, a
 * count per folder with the reasons runs could not be compared, and the exit code: 1 when a run
 * did not match or when nothing could be compared at all (0 re-runs is not a pass).
 */
import { Console, Effect } from "effect"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { loadTrainer, numberFlagOr, Registry, terminalSafe, UsageError } from "../../core/host.ts"
import { readAgentRuns, verifyNote } from "./agents.ts"
import { DEFAULT_RERUN_BUDGET } from "./rerun-budget.ts"
import { type VerifyResult, verifyRuns } from "./verify.ts"
import { defaultMarksDir, MARKS_FILE, marksInsideInput } from "./verify-marks.ts"

const label = (r: VerifyResult): string => (r.ok ? "verified" : r.checked ? "MISMATCH" : r.refused ? "REFUSED " : "NOT CHECKED")

const asList = (v: unknown): string[] => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map(String))

/** The whole command again for one folder (a hint that re-runs this check). */
const commandFor =
  (opts: Record<string, unknown>, sample: number, seed: number, marks: string | undefined) =>
  (dir: string): string =>
    [
      "ragen-bench leaderboard verify",
      dir,
      `--sample ${sample}`,
      ...(seed !== 1 ? [`--seed ${seed}`] : []),
      ...asList(opts.plugin).map((p) => `--plugin ${p}`),
      ...(opts.config !== undefined ? [`--config ${opts.config}`] : []),
      ...(marks !== undefined ? [`--marks ${marks}`] : [])
    ].join(" ")

export const verifyCommand = (dirs: ReadonlyArray<string>, opts: Record<string, unknown>): Effect.Effect<void, UsageError, Registry> =>
  Effect.gen(function* () {
    if (dirs.length === 0) return yield* new UsageError({ field: "results-dir", message: "give at least one results or compact folder: ragen-bench leaderboard verify my-records/ --sample 1" })
    const missing = dirs.find((d) => !existsSync(d))
    if (missing) return yield* new UsageError({ field: "results-dir", message: `folder ${missing} does not exist` })
    const sample = yield* numberFlagOr(opts.sample, "--sample", 3, { integer: true, min: 0 })
    const seed = yield* numberFlagOr(opts.seed, "--seed", 1, { integer: true, min: 0 })
    const budget = {
      steps: yield* numberFlagOr(opts.maxSteps, "--max-steps", DEFAULT_RERUN_BUDGET.steps, { integer: true, min: 0 }),
      pg: yield* numberFlagOr(opts.maxPg, "--max-pg", DEFAULT_RERUN_BUDGET.pg, { integer: true, min: 1 }),
      tokens: yield* numberFlagOr(opts.maxTokens, "--max-tokens", DEFAULT_RERUN_BUDGET.tokens, { min: 0 }),
      episodes: yield* numberFlagOr(opts.maxEpisodes, "--max-episodes", DEFAULT_RERUN_BUDGET.episodes, { min: 0 })
    }
    const marksDir = typeof opts.marks === "string" && opts.marks !== "" ? opts.marks : defaultMarksDir()
    const inside = marksInsideInput(marksDir, dirs)
    if (inside) {
      return yield* new UsageError({
        field: "--marks",
        message: `--marks ${marksDir} is inside ${inside}, a folder being verified: marks are the builder's own and never go into what was submitted; pass a folder of yours`
      })
    }
    const train = yield* Effect.tryPromise({
      try: loadTrainer,
      catch: (e) => new UsageError({ field: "trainer", message: `cannot load the trainer to re-run runs: ${(e as Error).message}` })
    })
    const registry = yield* Registry
    const command = commandFor(opts, sample, seed, typeof opts.marks === "string" ? opts.marks : undefined)
    let mismatched = 0
    let checked = 0
    for (const dir of dirs) {
      const results = yield* verifyRuns(dir, sample, seed, train, registry.data.plugins, { allowExternal: opts.allowExternal === true, budget, registry: registry.data, marksDir, command })
      for (const r of results) {
        if (r.checked) checked++
        if (r.checked && !r.ok) mismatched++
        yield* Console.log(terminalSafe(`${label(r)}  ${r.runId}: ${r.detail}`))
      }
      // Agent evaluations of remote models cannot be re-run bit for bit: say so instead of re-running them.
      for (const e of (yield* readAgentRuns(dir)).entries) {
        const note = verifyNote(e.config)
        if (note) yield* Console.log(terminalSafe(`skipped   ${e.summary.runId}: ${note}`))
      }
      const matched = results.filter((r) => r.ok).length
      const notChecked = results.filter((r) => !r.checked)
      const reasons = [...new Set(notChecked.map((r) => r.reason ?? "failed"))]
      const line = `${dir}: ${matched}/${results.length} re-run(s) matched${notChecked.length ? `; ${notChecked.length} not checked (${reasons.join(", ")})` : ""}${results.length === 0 ? " (no complete run folder or compact record found)" : ""}`
      yield* Console.log(terminalSafe(line))
    }
    yield* Console.log(terminalSafe(`marks: ${resolve(marksDir, MARKS_FILE)}`))
    if (mismatched > 0 || checked === 0) {
      if (checked === 0) yield* Console.log("nothing could be checked: exit 1")
      process.exitCode = 1
    }
  })
