/** Shared by `play` and `env`: resolve an env id and build it from --option k=v flags. */
import { Effect } from "effect"
import type { Env, EnvSpec } from "../../core/contracts/index.ts"
import { UsageError } from "../../core/errors.ts"
import { Registry } from "../../core/registry.ts"
import { makeEnv, parseOptionPairs } from "../server/catalog.ts"
import { listFlag, numberFlagOr } from "../../core/cli/flags.ts"

/** An integer flag in min..max (default 0..2^32−1), or dflt when not given. */
export const intFlag = (value: unknown, field: string, dflt: number, min = 0, max = 2 ** 32 - 1): Effect.Effect<number, UsageError> =>
  numberFlagOr(value, field, dflt, { integer: true, min, max })

/** A number flag in [min, max], or dflt when not given. */
export const numberFlag = (value: unknown, field: string, dflt: number, min: number, max: number): Effect.Effect<number, UsageError> =>
  numberFlagOr(value, field, dflt, { min, max })

export const buildEnv = (envId: unknown, optionFlags: unknown): Effect.Effect<{ fullId: string; spec: EnvSpec; env: Env; options: unknown }, UsageError | import("../../core/errors.ts").UnknownIdError, Registry> =>
  Effect.gen(function*() {
    if (typeof envId !== "string" || envId === "") return yield* new UsageError({ field: "env", message: "name an env, e.g. countdown-v1 (see ragen-bench list envs)" })
    const registry = yield* Registry
    const entry = yield* registry.resolve("envs", envId)
    const pairs = parseOptionPairs(listFlag(optionFlags))
    if (!pairs.ok) return yield* new UsageError({ field: "--option", message: pairs.message })
    // An option the env does not declare would be dropped by the decoder without a word: refuse it.
    const fields = (entry.value.options as { fields?: Record<string, unknown> }).fields
    if (fields) {
      const unknown = Object.keys(pairs.value).filter((k) => !(k in fields))
      if (unknown.length > 0) {
        return yield* new UsageError({ field: "--option", message: `${entry.fullId} has no option ${unknown.map((k) => `"${k}"`).join(", ")}; its options are: ${Object.keys(fields).join(", ") || "(none)"}` })
      }
    }
    const made = makeEnv(entry.value, pairs.value)
    if (!made.ok) return yield* new UsageError({ field: "--option", message: made.message })
    return { fullId: entry.fullId, spec: entry.value, env: made.env, options: made.options }
  })

export const fmtInfo = (info: Record<string, unknown>): string => JSON.stringify(info)

/** Reset/step through the async methods when the env has them (remote-backed envs), else sync. */
export const resetEnv = (env: Env, seed: number): Promise<string> => (env.resetAsync ? env.resetAsync(seed) : Promise.resolve(env.reset(seed)))
export const stepEnv = (env: Env, action: string): Promise<import("../../core/contracts/index.ts").StepResult> =>
  env.stepAsync ? env.stepAsync(action) : Promise.resolve(env.step(action))
