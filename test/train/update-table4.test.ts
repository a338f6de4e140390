/**
 * The table4 preset runs the reference script's four algorithm rows (mll-lab-nu/RAGEN
 * scripts/runs/run_main_table_diff_algo.sh): its "DAPO" is PPO with clip-higher, token-mean and
 * no KL, which on the reference's base config is PPO's own setting, so the two rows are one
 * configuration and the grid runs it once.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import table4, { TABLE4_ALGOS } from "../../plugins/sweep/presets/table4.ts"
import { builtinPlugins } from "../../builtins.ts"
import { type Registry, registryLayerFrom } from "../../core/registry.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"
import { resolveSetup } from "../../core/train/setup.ts"

const withRegistry = <A, E>(e: Effect.Effect<A, E, Registry>) => Effect.runPromise(e.pipe(Effect.provide(registryLayerFrom(builtinPlugins))))
const resolvedAlgo = (a: (typeof TABLE4_ALGOS)[number]) =>
  withRegistry(resolveSetup({ env: "frozenlake", algo: a.id, algoOptions: a.options, steps: 1, train: { klCoef: 0 } })).then((s) => ({
    algo: s.config.algo,
    algoOptions: s.config.algoOptions,
    klCoef: s.opts.klCoef
  }))

describe("table4 preset: the script's algorithm rows", () => {
  test("its DAPO row resolves to exactly the PPO row's configuration (replicates of one configuration)", async () => {
    const [ppoRow, dapoRow, grpoRow, drRow] = await Promise.all(TABLE4_ALGOS.map(resolvedAlgo))
    expect(dapoRow).toEqual(ppoRow!)
    expect(ppoRow!.algo).toBe("algorithms/ppo")
    expect(ppoRow!.algoOptions).toMatchObject({ clipLow: 0.2, clipHigh: 0.28, lossAgg: "token-mean", rewardPlacement: "final-token" })
    expect(ppoRow!.klCoef).toBe(0)
    expect(grpoRow!.algoOptions).toMatchObject({ variant: "grpo" })
    expect(drRow!.algoOptions).toMatchObject({ variant: "dr-grpo" })
  })
  test("the grid runs three distinct algorithm configurations: 4 envs × 3 × 2 filters × 2 lr × 2 seeds = 96 runs", async () => {
    const runs = await withRegistry(Effect.flatMap(decodeSpec(table4, "table4"), expandGrid))
    expect(runs.length).toBe(96)
    const algos = new Set(runs.map((r) => `${r.config.algo} ${JSON.stringify(r.config.algoOptions)}`))
    expect(algos.size).toBe(3)
    expect(runs.some((r) => r.config.algo === "algorithms/dapo")).toBe(false)
    expect(new Set(runs.map((r) => r.config.train.klCoef))).toEqual(new Set([0]))
  })
})
