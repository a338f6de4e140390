/**
 * The local executor: the sweep's runs on N worker processes of this machine (runner.ts).
 * Another executor (a distributed queue) implements the same contract (core/contracts/executor.ts).
 */
import { Effect, Schema } from "effect"
import type { ExecutorSpec } from "../../core/contracts/index.ts"
import { defaultWorkers, runSweep } from "./runner.ts"

export const LocalOptions = Schema.Struct({
  /** Worker processes (default: the number of cores). */
  workers: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.withDecodingDefault(Effect.sync(defaultWorkers)))
})

export const localExecutor: ExecutorSpec<typeof LocalOptions.Type> = {
  id: "local",
  description: "Worker processes on this machine, one run at a time each",
  options: LocalOptions,
  make: async ({ workers }) => ({
    id: "local",
    run: (req) => runSweep(req.runs, { ...req, workers })
  })
}
