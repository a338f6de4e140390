/**
 * runTraining: one training run in this process, from a RunConfig to a run folder and its
 * RunSummary. The sweep runner calls exactly this in worker processes; it builds its own
 * Registry from the built-in plugins (plus any given), so it is safe in a fresh process.
 * Rejects with a UsageError (or another user error) on bad input, before any work starts.
 */
import { Effect } from "effect"
import { builtinPlugins } from "../builtins.ts"
import type { PluginInput } from "../contracts/index.ts"
import { Registry } from "../registry.ts"
import type { RunConfig } from "../schema/run-config.ts"
import type { RunSummary } from "../schema/results.ts"
import { trainLoop } from "./loop.ts"
import { resolveSetup } from "./setup.ts"

export interface TrainRunOptions {
  readonly outDir: string
  readonly onProgress?: (p: { step: number; steps: number; metrics: Record<string, number | null> }) => void
  readonly signal?: AbortSignal
  readonly resume?: boolean
  /** Without resume: a run folder that already holds this config is an error unless `fresh` (start over). */
  readonly fresh?: boolean
  /** Extra plugins (user filters, test envs/policies) registered after the built-ins. */
  readonly plugins?: ReadonlyArray<PluginInput>
  /** Log lines (SFT, resume); default stderr. */
  readonly onLog?: (line: string) => void
}

/** The Effect version (the CLI uses it with its own Registry). */
export const trainProgram = (config: RunConfig | unknown, opts: TrainRunOptions) =>
  Effect.flatMap(resolveSetup(config), (setup) => trainLoop(setup, opts))

export const runTraining = async (config: RunConfig, opts: TrainRunOptions): Promise<RunSummary> => {
  const builtins = await builtinPlugins()
  return Effect.runPromise(trainProgram(config, opts).pipe(Effect.provide(Registry.layerFrom([...builtins, ...(opts.plugins ?? [])]))))
}
