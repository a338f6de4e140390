/** Shared by `play` and `env`: resolve an env id and build it from --option k=v flags. */
import { Effect } from "effect"
import type { Env, EnvSpec } from "../../core/contracts/index.ts"
import { decodeSync, listFlag, numberFlagOr, parsePairs, Registry, type UnknownIdError, UsageError } from "../../core/host.ts"
import { makeEnv } from "../server/catalog.ts"

/** An integer flag in min..max (default 0..2^32−1), or dflt when not given. */
export const intFlag = (value: unknown, field: string, dflt: number, min = 0, max = 2 ** 32 - 1): Effect.Effect<number, UsageError> => numberFlagOr(value, field, dflt, { integer: true, min, max })

/** A number flag in [min, max], or dflt when not given. */
export const numberFlag = (value: unknown, field: string, dflt: number, min: number, max: number): Effect.Effect<number, UsageError> => numberFlagOr(value, field, dflt, { min, max })

export const buildEnv = (envId: unknown, optionFlags: unknown): Effect.Effect<{ fullId: string; spec: EnvSpec; env: Env; options: unknown }, UsageError | UnknownIdError, Registry> =>
  Effect.gen(function* () {
    if (typeof envId !== "string" || envId === "") return yield* new UsageError({ field: "env", message: "name an env with --env, e.g. --env countdown (see ragen-bench list envs)" })
    const registry = yield* Registry
    const entry = yield* registry.resolve("envs", envId)
    const raw = yield* parsePairs(listFlag(optionFlags), "--option", "maxAttempts=2")
    // Decoded strictly: an option the env does not declare names the nearest one it does.
    const decoded = decodeSync(entry.value.options, raw, { field: "--option" })
    if (!decoded.ok) return yield* new UsageError({ field: "--option", message: `${entry.fullId}: ${decoded.message}` })
    const made = makeEnv(entry.value, raw)
    if (!made.ok) return yield* new UsageError({ field: "--option", message: made.message })
    return { fullId: entry.fullId, spec: entry.value, env: made.env, options: made.options }
  })

/** The env of a command: --env, or the positional name (both: they must agree). */
export const envArg = (positional: unknown, flag: unknown): Effect.Effect<unknown, UsageError> =>
  positional !== undefined && flag !== undefined && String(positional) !== String(flag)
    ? Effect.fail(new UsageError({ field: "--env", message: `two envs given (${String(positional)} and --env ${String(flag)}); give one` }))
    : Effect.succeed(flag ?? positional)

export const fmtInfo = (info: Record<string, unknown>): string => JSON.stringify(info)

/** Reset/step through the async methods when the env has them (remote-backed envs), else sync. */
export const resetEnv = (env: Env, seed: number): Promise<string> => (env.resetAsync ? env.resetAsync(seed) : Promise.resolve(env.reset(seed)))
export const stepEnv = (env: Env, action: string): Promise<import("../../core/contracts/index.ts").StepResult> => (env.stepAsync ? env.stepAsync(action) : Promise.resolve(env.step(action)))
