/** `ragen-bench leaderboard replicate <dirs...> [--out docs/replication.md]`: write the replication report. */
import { Console, Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import { UsageError } from "../../../core/host.ts"
import { buildReport, parseArgs } from "./report.ts"

export const DEFAULT_REPORT = "docs/replication.md"

export const replicate = (dirs: ReadonlyArray<string>, out: unknown): Effect.Effect<void, UsageError> =>
  Effect.gen(function* () {
    if (out === true || out === "") return yield* new UsageError({ field: "--out", message: `--out needs a file: --out ${DEFAULT_REPORT}` })
    const parsed = parseArgs([...dirs, "--out", out === undefined ? DEFAULT_REPORT : String(out)])
    if ("error" in parsed) return yield* new UsageError({ field: "replicate", message: `leaderboard replicate: ${parsed.error}` })
    const text = yield* buildReport(parsed)
    mkdirSync(dirname(parsed.out), { recursive: true })
    writeFileSync(parsed.out, text)
    yield* Console.log(`wrote ${parsed.out}`)
  })
