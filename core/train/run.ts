/**
 * runTraining: one training run in this process, from a RunConfig to a run folder and its
 * RunSummary. The sweep workers call exactly this; it builds its own Registry from the plugins
 * it is given (the caller passes the built-ins too: the core knows none), so it is safe in a
 * fresh process. Rejects with a UsageError (or another user error) on bad input, before any work starts.
 */
import { Effect } from "effect"
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
  /** Every plugin to register: the built-ins (builtins.ts at the project root) and any user ones. */
  readonly plugins?: ReadonlyArray<PluginInput>
  /** Log lines (SFT, resume); default stderr. */
  readonly onLog?: (line: string) => void
}

/** The Effect version (the CLI uses it with its own Registry). */
export const trainProgram = (config: RunConfig | unknown, opts: TrainRunOptions) =>
  Effect.flatMap(resolveSetup(config), (setup) => trainLoop(setup, opts))

export const runTraining = (config: RunConfig, opts: TrainRunOptions): Promise<RunSummary> =>
  Effect.runPromise(trainProgram(config, opts).pipe(Effect.provide(Registry.layerFrom(opts.plugins ?? []))))
