/** Which instances a run trains on and its sampling streams (core/train/instances.ts, docs/decisions.md#issue-17). */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { derive } from "../../core/rng.ts"
import { REDRAW_SEED_BASE, samplingRng, trainSlotSeeds } from "../../core/train/instances.ts"
import { resolveSetup, type TrainSetup } from "../../core/train/setup.ts"

const setupOf = (seed: number, train: Record<string, unknown> = {}): Promise<TrainSetup> =>
  Effect.runPromise(resolveSetup({ env: "frozenlake", seed, P: 4, G: 2, train: { diagEvery: 0, ...train } }).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))

describe("training instances", () => {
  test("per-seed (default): the run seed chooses the seeds; the same seed gives the same ones", async () => {
    const [a, a2, b] = await Promise.all([setupOf(1), setupOf(1), setupOf(2)])
    expect(a.opts.trainInstances).toBe("per-seed")
    expect(trainSlotSeeds(a, 3, 0, 1)).toEqual(trainSlotSeeds(a2, 3, 0, 1))
    const other = new Set(trainSlotSeeds(b, 3, 0, 1))
    expect(trainSlotSeeds(a, 3, 0, 1).some((x) => other.has(x))).toBe(false)
    // Steps and draws differ too; every seed is at or above trainSeedStart.
    expect(trainSlotSeeds(a, 4, 0, 1)).not.toEqual(trainSlotSeeds(a, 3, 0, 1))
    expect(trainSlotSeeds(a, 3, 1, 3)).not.toEqual(trainSlotSeeds(a, 3, 0, 3))
    for (const x of trainSlotSeeds(a, 3, 0, 1)) expect(x).toBeGreaterThanOrEqual(a.opts.trainSeedStart)
  })

  test("shared: every run seed trains on trainSeedStart + (step−1)·P + i, redraws beyond REDRAW_SEED_BASE", async () => {
    const [a, b] = await Promise.all([setupOf(1, { trainInstances: "shared" }), setupOf(7, { trainInstances: "shared" })])
    expect(trainSlotSeeds(a, 3, 0, 1)).toEqual([10008, 10009, 10010, 10011])
    expect(trainSlotSeeds(b, 3, 0, 1)).toEqual([10008, 10009, 10010, 10011])
    // step 3, draw 1 of 3: base + ((3−1)·3 + 1)·P + i
    expect(trainSlotSeeds(a, 3, 1, 3)).toEqual([0, 1, 2, 3].map((i) => REDRAW_SEED_BASE + 7 * 4 + i))
  })

  test("samplingStream 0 is the run seed's stream; another stream differs and is reproducible", async () => {
    const [a, n1, n1b] = await Promise.all([setupOf(1), setupOf(1, { samplingStream: 1 }), setupOf(1, { samplingStream: 1 })])
    expect(samplingRng(a, "rollout", 2, 0).nextU32()).toBe(derive(1, "rollout", 2, 0).nextU32())
    expect(samplingRng(n1, "rollout", 2, 0).nextU32()).not.toBe(derive(1, "rollout", 2, 0).nextU32())
    expect(samplingRng(n1, "val", 0, 0.5).nextU32()).toBe(samplingRng(n1b, "val", 0, 0.5).nextU32())
    // Everything else equal: the same training seeds.
    expect(trainSlotSeeds(n1, 5, 0, 1)).toEqual(trainSlotSeeds(a, 5, 0, 1))
  })
})
