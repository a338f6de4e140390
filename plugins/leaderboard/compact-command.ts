/**
 * `ragen-bench results compact <dirs...> --out <dir>`: complete runs (run folders, folders of
 * them, or compact folders) to one compact record each (core/results/compact.ts), keeping the
 * leaderboard's chart metrics and the diagnostics the replication report reads. The folder is
 * capped (default 10 MB, the size the published reference set may take in the repository).
 */
import { Console, Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import {
  compactRun,
  type CompactRun,
  type CompactWritten,
  DEFAULT_COMPACT_FOLDER_BYTES,
  defineCommand,
  listCompactFiles,
  numberFlagOr,
  readCompact,
  readRun,
  type RunRead,
  scanRunDirs,
  terminalSafe,
  UsageError,
  writeCompactFiles
} from "../../core/host.ts"
import { CHART_METRICS } from "./build.ts"

/** The exact metric names kept besides core's prefixes: the leaderboard's charts, and what the "kept non-zero-spread" column reads. */
export const LEADERBOARD_KEYS: ReadonlyArray<string> = [...CHART_METRICS.map((m) => m.metric), "filter/dropped_nonzero"]

export interface Gathered {
  readonly records: CompactRun[]
  /** Runs not complete (failed, stopped, no summary): left out. */
  readonly incomplete: string[]
  readonly problems: Array<{ path: string; message: string }>
}

/** Complete runs under `dirs` as compact records (a run id seen twice: the first). */
export const gatherCompact = (dirs: ReadonlyArray<string>): Effect.Effect<Gathered> =>
  Effect.gen(function* () {
    const records: CompactRun[] = []
    const incomplete: string[] = []
    const problems: Array<{ path: string; message: string }> = []
    const seen = new Set<string>()
    const add = (run: RunRead): void => {
      const id = run.config.runId
      if (seen.has(id)) return
      seen.add(id)
      if (run.summary?.status !== "complete") incomplete.push(id)
      else records.push(compactRun(run, LEADERBOARD_KEYS))
    }
    for (const dir of dirs) {
      // A folder may be one that was sent: links are reported, never followed (as the leaderboard reads it).
      const scanned = existsSync(join(dir, "config.json")) ? { dirs: [dir], problems: [] } : scanRunDirs(dir, { noFollow: true })
      problems.push(...scanned.problems)
      for (const d of scanned.dirs) {
        const r = yield* Effect.result(readRun(d, { noFollow: true }))
        if (r._tag === "Failure") problems.push({ path: r.failure.path, message: r.failure.message })
        else add(r.success)
      }
      for (const f of listCompactFiles(dir)) {
        const r = yield* Effect.result(readCompact(f, { noFollow: true }))
        if (r._tag === "Failure") {
          if (!problems.some((p) => p.path === f)) problems.push({ path: r.failure.path, message: r.failure.message })
        } else add(r.success)
      }
    }
    records.sort((a, b) => a.run.runId.localeCompare(b.run.runId))
    return { records, incomplete, problems }
  })

export const maxBytesFlag = (v: unknown): Effect.Effect<number, UsageError> =>
  Effect.map(numberFlagOr(v, "--max-mb", DEFAULT_COMPACT_FOLDER_BYTES / 1e6, { positive: true }), (mb) => Math.round(mb * 1e6))

export const fmtWritten = (w: CompactWritten, maxBytes: number): string => `${w.files} run(s), ${w.bytes} bytes written; the folder holds ${w.folderBytes} bytes of ${maxBytes} allowed`

export default defineCommand({
  pattern: "results <action> [...dirs]",
  description: "Work on result files: `results compact <dirs...> --out <dir>` writes one small record per complete run (to commit, to publish, to build a leaderboard from)",
  options: [
    { flags: "--out <dir>", description: "compact: the compact folder to write (one <runId>.json per run)" },
    { flags: "--max-mb <n>", description: "compact: refuse when the folder would exceed this many megabytes (10^6 bytes)", default: DEFAULT_COMPACT_FOLDER_BYTES / 1e6 },
    { flags: "--json", description: "Print the outcome as JSON" }
  ],
  examples: ["ragen-bench results compact results/ --out plugins/leaderboard/reference/standard/", "ragen-bench results compact results/shard-1 results/shard-2 --out compact/ --max-mb 2"],
  run: ([action, dirs], opts) =>
    Effect.gen(function* () {
      if (action !== "compact")
        return yield* new UsageError({ field: "action", message: `results ${terminalSafe(String(action))}: unknown action; the one there is: results compact <dirs...> --out <dir>` })
      const inputs = ((dirs ?? []) as unknown[]).map(String)
      if (inputs.length === 0) return yield* new UsageError({ field: "results-dir", message: "give at least one results or compact folder: ragen-bench results compact results/ --out compact/" })
      const missing = inputs.find((d) => !existsSync(d))
      if (missing !== undefined) return yield* new UsageError({ field: "results-dir", message: `results folder ${missing} does not exist` })
      if (typeof opts.out !== "string" || opts.out === "") return yield* new UsageError({ field: "--out", message: "results compact needs the folder to write: --out compact/" })
      const maxBytes = yield* maxBytesFlag(opts.maxMb)
      const got = yield* gatherCompact(inputs)
      for (const p of got.problems) process.stderr.write(`warning: ${terminalSafe(p.path)}: ${terminalSafe(p.message)}\n`)
      const written = yield* writeCompactFiles(opts.out, got.records, maxBytes)
      if (opts.json) return yield* Console.log(JSON.stringify({ ...written, maxBytes, incomplete: got.incomplete.length, problems: got.problems.length, out: opts.out }, null, 2))
      yield* Console.log(`compacted into ${opts.out}: ${fmtWritten(written, maxBytes)}`)
      if (got.incomplete.length > 0) yield* Console.log(`${got.incomplete.length} run(s) not complete left out (failed, stopped or unfinished)`)
    })
})
