/** A failed run recorded in its folder (unless the trainer already did), so that the leaderboard lists it. */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { openRun, readMetrics, type RunConfig } from "../../core/host.ts"

export const writeFailedSummary = (outDir: string, config: RunConfig, error: string): void => {
  const run = openRun(outDir, config)
  const metricsPath = join(run.dir, "metrics.jsonl")
  const lines = existsSync(metricsPath) ? Effect.runSync(Effect.orElseSucceed(readMetrics(metricsPath), () => ({ lines: [] }))).lines : []
  const last = lines.at(-1)
  run.writeSummary({
    status: "failed",
    stepsDone: last && typeof last.step === "number" ? last.step : 0,
    wallSeconds: 0,
    finalValSuccess: null,
    peakValSuccess: null,
    final: last ?? {},
    error
  })
}
