/**
 * runTraining: one training run in this process, from a RunConfig to a run folder and its
 * RunSummary. The sweep workers call exactly this; it builds its own Registry from the plugins
 * it is given (the caller passes the built-ins too: the core knows none), so it is safe in a
 * fresh process. Rejects with a UsageError (or another user error) on bad input, before any work starts.
 */
import { Effect, Layer } from "effect"
import type { PluginInput } from "../contracts/index.ts"
import { filterResolver } from "../filters/run.ts"
import { Registry, registryLayerFrom } from "../registry.ts"
import { ResultsStore, Scorer } from "../services.ts"
import type { RunConfig } from "../contracts/run-config.ts"
import type { RunSummary } from "../contracts/results.ts"
import { trainLoop, type RunOptions } from "./loop.ts"
import { resolveSetup } from "./setup.ts"

export interface TrainRunOptions extends Omit<RunOptions, "resolveFilter"> {
  /** Every plugin to register: the built-ins (builtins.ts at the project root) and any user ones. */
  readonly plugins?: ReadonlyArray<PluginInput>
}

/** The Effect version (the CLI uses it with its own Registry). */
export const trainProgram = (config: RunConfig | unknown, opts: TrainRunOptions) =>
  Effect.gen(function* () {
    const setup = yield* resolveSetup(config)
    const registry = yield* Registry
    const resolveFilter = filterResolver(registry.data)
    const services = Layer.mergeAll(ResultsStore.layer(opts.outDir), Scorer.layerOf(setup.scorerSpec, setup.scorerOptions, registry.data))
    return yield* trainLoop(setup, { ...opts, resolveFilter }).pipe(Effect.provide(services))
  })

export const runTraining = (config: RunConfig, opts: TrainRunOptions): Promise<RunSummary> => Effect.runPromise(trainProgram(config, opts).pipe(Effect.provide(registryLayerFrom(opts.plugins ?? []))))
