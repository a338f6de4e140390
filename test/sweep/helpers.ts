/** Shared by the sweep and leaderboard tests: temp folders, a small spec, the CLI with the fake trainer. */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { fakeTrainEnv } from "../helpers/fake-train.ts"
import { BUILTINS_ENV } from "../../core/config.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"
import fixture from "../fixtures/plugins/sweep-policy.ts"
import { root } from "../helpers/cli.ts"

export const fixturePlugin = join(root, "test", "fixtures", "plugins", "sweep-policy.ts")

export const tempDir = (label: string): string => mkdtempSync(join(tmpdir(), `ragen-${label}-`))

export const smallSpec = (over: Record<string, unknown> = {}) => ({
  name: "small",
  axes: {
    env: ["frozenlake", { id: "sokoban" }],
    filter: ["none", { id: "top-p", options: { p: 0.9 } }, { id: "random", options: { like: "top-p", p: 0.9 } }],
    seeds: [1, 2]
  },
  fixed: { policy: "fake-policy", P: 4, G: 4 },
  budget: { steps: 12, evalEvery: 4 },
  ...over
})

export const writeSpec = (dir: string, spec: unknown, name = "spec.json"): string => {
  const p = join(dir, name)
  writeFileSync(p, JSON.stringify(spec, null, 2))
  return p
}

/** The fake trainer, and the built-ins' module that cli.ts names for its workers (runSweep in this process needs it too). */
export const fakeEnv = (stepMs = 1): Record<string, string> => ({ ...fakeTrainEnv(stepMs), [BUILTINS_ENV]: join(import.meta.dir, "..", "..", "builtins.ts") })

/** A spec's runs, resolved against the built-ins and the sweep fixture plugin (as `sweep --plugin` does). */
export const grid = (input: unknown) => Effect.runSync(Effect.flatMap(decodeSpec(input, "t"), expandGrid).pipe(Effect.provide(registryLayerFrom([...builtinPlugins, fixture]))))

/** The same, as an Exit (for specs that must fail). */
export const gridExit = (input: unknown) => Effect.runSyncExit(Effect.flatMap(decodeSpec(input, "t"), expandGrid).pipe(Effect.provide(registryLayerFrom([...builtinPlugins, fixture]))))
