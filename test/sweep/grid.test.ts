import { describe, expect, test } from "bun:test"
import { Effect, Exit, Layer } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { runIdOf } from "../../core/results/store.ts"
import { checkGrid } from "../../core/sweep/check.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"
import { estimateGridSeconds, estimateRunSeconds, estimateSweepSeconds, sftSeconds } from "../../core/sweep/estimate.ts"
import { Registry } from "../../core/registry.ts"
import fixture from "../fixtures/plugins/sweep-policy.ts"
import { smallSpec } from "./helpers.ts"

const grid = (input: unknown) => Effect.runSync(Effect.flatMap(decodeSpec(input, "t"), expandGrid))

describe("grid expansion", () => {
  test("Cartesian product, ids are content hashes of the resolved config", () => {
    const runs = grid(smallSpec())
    expect(runs.length).toBe(2 * 3 * 2)
    expect(new Set(runs.map((r) => r.runId)).size).toBe(runs.length)
    for (const r of runs) {
      expect(runIdOf(r.config).runId).toBe(r.runId)
      expect(r.config.steps).toBe(12)
      expect(r.config.train.evalEvery).toBe(4)
      expect(r.config.P).toBe(4)
      // Decoded: defaults of RunConfig filled in.
      expect(r.config.algo).toBe("grpo")
      expect(r.config.lr).toBe(1e-4)
    }
    // Seeds outermost, filters innermost.
    expect(runs.slice(0, 3).map((r) => r.config.filter)).toEqual(["none", "top-p", "random"])
    expect(runs.slice(0, 6).every((r) => r.config.seed === 1)).toBe(true)
    expect(runs[1]!.config.filterOptions).toEqual({ p: 0.9 })
  })

  test("every axis reaches the config; the same spec gives the same ids", () => {
    const spec = smallSpec({
      axes: {
        env: [{ id: "frozenlake", options: { successRate: 0.8 } }],
        algo: ["grpo", { id: "ppo", options: { clip: 0.2 } }],
        filter: ["none"],
        seeds: [3],
        PG: [{ P: 8, G: 16 }, { P: 32, G: 4 }],
        lr: [1e-4, 1e-3],
        model: ["tiny"],
        train: [{ label: "kl=0", set: { klCoef: 0 } }, { label: "kl=0.1", set: { klCoef: 0.1 } }]
      },
      fixed: { policy: "fake-policy", train: { sftSteps: 7 } }
    })
    const runs = grid(spec)
    expect(runs.length).toBe(2 * 2 * 2 * 2)
    const r = runs.find((x) => x.config.algo === "ppo" && x.config.P === 32 && x.config.lr === 1e-3 && x.config.train.klCoef === 0.1)!
    expect(r.config.envOptions).toEqual({ successRate: 0.8 })
    expect(r.config.algoOptions).toEqual({ clip: 0.2 })
    expect(r.config.G).toBe(4)
    expect(r.config.seed).toBe(3)
    expect(r.config.policyOptions).toEqual({ preset: "tiny" })
    expect(r.config.train).toEqual({ sftSteps: 7, evalEvery: 4, klCoef: 0.1 })
    expect(r.label).toContain("32x4")
    expect(r.label).toContain("kl=0.1")
    expect(grid(spec).map((x) => x.runId)).toEqual(runs.map((x) => x.runId))
  })

  test("duplicate combinations collapse to one run", () => {
    expect(grid(smallSpec({ axes: { env: ["frozenlake", "frozenlake"], seeds: [1, 1] } })).length).toBe(1)
  })

  test("checkGrid resolves ids and options against the registry", async () => {
    const layer = Registry.layerFrom([...builtinPlugins, fixture])
    const check = (input: unknown) => Effect.runSyncExit(checkGrid(grid(input)).pipe(Effect.provide(layer)))
    expect(Exit.isSuccess(check(smallSpec()))).toBe(true)
    const badFilter = check(smallSpec({ axes: { env: ["frozenlake"], filter: ["top-q"] } }))
    expect(Exit.isFailure(badFilter) && JSON.stringify(badFilter.cause)).toContain('unknown filter \\"top-q\\"')
    const badOpt = check(smallSpec({ axes: { env: [{ id: "frozenlake", options: { successRate: 3 } }] } }))
    expect(Exit.isFailure(badOpt) && JSON.stringify(badOpt.cause)).toContain("envOptions")
  })

  test("estimates scale with steps and spread over workers", () => {
    const [a] = grid(smallSpec())
    const t1 = estimateRunSeconds(a!.config)
    expect(estimateRunSeconds({ ...a!.config, steps: 24 })).toBeGreaterThan(t1)
    const withSft = { ...a!.config, train: { ...(a!.config.train as object), sftSteps: 100 } }
    const [first, second] = estimateGridSeconds([withSft, { ...withSft, filter: "top-p" }])
    // the SFT warm start is charged once per cache key
    expect(first! - second!).toBeCloseTo(sftSeconds(withSft))
    expect(sftSeconds(withSft)).toBeGreaterThan(0)
    expect(estimateGridSeconds([withSft, { ...withSft, seed: 99 }])[1]).toBeCloseTo(first!)
    expect(estimateSweepSeconds([10, 10, 10, 10], 2)).toBe(20)
    expect(estimateSweepSeconds([30, 10, 10, 10], 2)).toBe(30)
  })
})
