/**
 * The core's services (Effect layers): the results store, the cross-scorer and the sweep
 * executor, next to the Registry (core/registry.ts). A command or test picks an implementation
 * by providing a layer: the file-system store, the scorer a run's config names, the local worker
 * pool or a distributed queue — the code that uses them does not change.
 */
import { Cause, Context, Effect, Exit, Layer } from "effect"
import type { CrossScorer, Policy, ScorerContext, ScorerSpec, SweepExecutor } from "./contracts/index.ts"
import { attemptPromise, isUserError, UsageError, type UserError } from "./errors.ts"
import { Registry, type RegistryData, resolveEntry } from "./registry.ts"
import { isComplete, listRunDirs, openRun, readRun } from "./results/store.ts"
import { decodeInput } from "./schema/decode.ts"

/** Run folders under one results root (docs/design.md §9); the default layer is the file system. */
export class ResultsStore extends Context.Service<
  ResultsStore,
  {
    readonly root: string
    readonly open: (config: Parameters<typeof openRun>[1], options?: Parameters<typeof openRun>[2]) => ReturnType<typeof openRun>
    readonly read: typeof readRun
    readonly list: () => string[]
    readonly isComplete: (dir: string) => boolean
  }
>()("ragen-bench/core/ResultsStore") {
  static readonly layer = (root: string) => Layer.succeed(ResultsStore, ResultsStore.of({ root, open: (c, o) => openRun(root, c, o), read: readRun, list: () => listRunDirs(root), isComplete }))
}

/** A scorer's context: any registered scorer, made for the same policy (an unknown id or bad options: the UserError). */
export const scorerContext = (data: RegistryData, policy: Policy): ScorerContext => ({
  scorer: async (id, options) => {
    const exit = Effect.runSyncExit(Effect.flatMap(resolveEntry(data, "scorers", id), (e) => Effect.map(decodeInput(e.value.options, options ?? {}, "scorerOptions"), (o) => ({ spec: e.value, o }))))
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
    return exit.value.spec.make(exit.value.o, policy, scorerContext(data, policy))
  }
})

/** Makes the cross-scorer of a run's MI diagnostics for a policy (its spec and options are the config's). */
export class Scorer extends Context.Service<
  Scorer,
  {
    readonly id: string | undefined
    readonly make: (policy: Policy) => Effect.Effect<CrossScorer | undefined, UserError>
  }
>()("ragen-bench/core/Scorer") {
  static readonly layerOf = (spec: ScorerSpec | undefined, options: unknown, data: RegistryData) =>
    Layer.succeed(
      Scorer,
      Scorer.of({
        id: spec?.id,
        make: (policy) => (spec ? attemptPromise(() => spec.make(options, policy, scorerContext(data, policy))) : Effect.succeed(undefined))
      })
    )
}

/** Runs a sweep's grid: the local worker pool (plugins/sweep) or a distributed queue (plugins/bullmq). */
export class Executor extends Context.Service<Executor, SweepExecutor>()("ragen-bench/core/Executor") {
  /** The executor a plugin registered under `id`, with decoded options; closed when the scope ends. */
  static readonly layerFromRegistry = (id: string, options: unknown, field = "--executor") =>
    Layer.effect(
      Executor,
      Effect.gen(function* () {
        const entry = yield* (yield* Registry).resolve("executors", id)
        const decoded = yield* decodeInput(entry.value.options, options, field)
        return yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: () => entry.value.make(decoded),
            catch: (e) => (isUserError(e) ? e : new UsageError({ field, message: String((e as Error)?.message ?? e) }))
          }),
          (exec) => Effect.promise(() => exec.close?.() ?? Promise.resolve())
        )
      })
    )
}
