/**
 * `sweep --compact-to <dir>`: each run is compacted (core/results/compact.ts) as soon as it
 * completes, so a shard's results survive as small committed files when its machine goes away.
 * Runs already complete when the sweep starts (skipped) are compacted at its end.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { compactRun, isComplete, readRun, writeCompactFiles } from "../../core/host.ts"
import { LEADERBOARD_KEYS } from "../leaderboard/index.ts"

export interface Compactor {
  /** Compact the run if its folder holds a complete run; returns a warning when that failed. */
  readonly add: (runId: string) => string | undefined
  readonly compacted: () => number
  readonly folderBytes: () => number
}

export const makeCompactor = (outDir: string, compactDir: string, maxBytes: number): Compactor => {
  const done = new Set<string>()
  let folderBytes = 0
  return {
    add: (runId) => {
      // Not complete here (failed, stopped, or still on a queue's machine): nothing to compact yet.
      if (done.has(runId) || !isComplete(join(outDir, runId))) return undefined
      const read = Effect.runSync(Effect.result(readRun(join(outDir, runId))))
      if (read._tag === "Failure") return `cannot compact ${runId}: ${read.failure.message}`
      const written = Effect.runSync(Effect.result(writeCompactFiles(compactDir, [compactRun(read.success, LEADERBOARD_KEYS)], maxBytes)))
      if (written._tag === "Failure") return `${runId} not compacted: ${written.failure.message}`
      done.add(runId)
      folderBytes = written.success.folderBytes
      return undefined
    },
    compacted: () => done.size,
    folderBytes: () => folderBytes
  }
}
