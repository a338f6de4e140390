/**
 * Scorer options are set from a run config like every other kind's (docs/decisions.md#issue-24): `scorerOptions`
 * is decoded strictly by the scorer's schema and handed to it; left out, it is absent from the
 * resolved config, so the run ids of configs that never set it did not change.
 */
import { describe, expect, test } from "bun:test"
import { Cause, Effect, Exit } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { configFromFlags } from "../../core/cli/commands/train.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { runIdOf } from "../../core/results/store.ts"
import { resolveSetup } from "../../core/train/setup.ts"

const resolve = (raw: unknown) => Effect.runSyncExit(resolveSetup(raw).pipe(Effect.provide(registryLayerFrom([...builtinPlugins]))))
const resolved = (raw: unknown) => {
  const exit = resolve(raw)
  if (Exit.isFailure(exit)) throw new Error(String((Cause.squash(exit.cause) as Error).message))
  return exit.value
}
const errorOf = (raw: unknown): { field?: string; message: string } => {
  const exit = resolve(raw)
  if (Exit.isSuccess(exit)) return { message: "(no error)" }
  const e = Cause.squash(exit.cause) as { field?: string; message: string }
  return { field: e.field, message: e.message }
}

const base = { env: "frozenlake", algo: "grpo", steps: 1 }

describe("scorer options from the run config", () => {
  test("left out, they are not in the resolved config; the scorer gets its defaults", () => {
    const s = resolved(base)
    expect("scorerOptions" in s.config).toBe(false)
    expect(s.config.train.scorer).toBe("scorers/cpu")
    expect(s.scorerOptions).toEqual({ batchSize: 64 })
  })

  test("set, they reach the scorer and the resolved config records them with defaults filled in, changing the run id", () => {
    const s = resolved({ ...base, scorerOptions: { batchSize: 8 } })
    expect(s.scorerOptions).toEqual({ batchSize: 8 })
    expect(s.config.scorerOptions).toEqual({ batchSize: 8 })
    expect(runIdOf(s.config).hash).not.toBe(runIdOf(resolved(base).config).hash)
    // Resolving the resolved config again gives the same config (what `train --from config.json` does).
    expect(resolved(s.config).config).toEqual(s.config)
  })

  test("a misspelt option or a scorer that does not run is an error naming scorerOptions", () => {
    const typo = errorOf({ ...base, scorerOptions: { batchSise: 8 } })
    expect(typo.field).toBe("scorerOptions")
    expect(typo.message).toContain("batchSise")
    const unused = errorOf({ ...base, scorerOptions: { batchSize: 8 }, train: { diagEvery: 0 } })
    expect(unused.field).toBe("scorerOptions")
    expect(unused.message).toContain("diagEvery")
  })

  test("`train --set scorerOptions.batchSize=16` sets them", () => {
    const cfg = Effect.runSync(configFromFlags({ env: "frozenlake", set: ["scorerOptions.batchSize=16"] }, () => undefined))
    expect(cfg.scorerOptions).toEqual({ batchSize: 16 })
  })
})
