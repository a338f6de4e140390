/**
 * Validation instances are disjoint from training and SFT instances, per env (docs/decisions.md#issue-17): the
 * instances (maps, rooms, problems, instructions: EnvSpec.instanceKey of the first observation,
 * which for the grid envs every later state of the episode shares) that validation meets,
 * against those that five run seeds' training steps and the SFT warm start's teacher episodes
 * meet, through the trainer's own code paths. Without the split, the check finds shared instances
 * on the envs with small instance spaces, so it can fail.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { inSftShare, instanceOf, partOf, splitSeeds } from "../../core/env/instance-split.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { trainSlotSeeds } from "../../core/train/instances.ts"
import { resolveSetup, type TrainSetup } from "../../core/train/setup.ts"
import { collectTeacherTurns } from "../../core/train/teacher-turns.ts"

const ENVS = ["frozenlake", "sokoban", "countdown", "metamathqa-v1", "metamathqa", "searchqa", "webshop"] as const
const RUN_SEEDS = [1, 2, 3, 4, 5]
const STEPS = 40
const SFT_TURNS = 2000

const setupOf = (env: string, seed: number, instanceSplit = true): Promise<TrainSetup> =>
  Effect.runPromise(resolveSetup({ env, seed, P: 8, G: 2, train: { diagEvery: 0, instanceSplit } }).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))

/** The instances (EnvSpec.instanceKey of the first observation) that these seeds reset to. */
const instancesOf = async (s: TrainSetup, seeds: ReadonlyArray<number>): Promise<Set<string>> => {
  const env = s.spec.make(s.envOptions)
  const out = new Set<string>()
  for (const seed of seeds) out.add(instanceOf(s.spec, env.resetAsync ? await env.resetAsync(seed) : env.reset(seed)))
  return out
}

/** The instances validation, training (five run seeds) and SFT meet, as the trainer resolves them. */
const instances = async (env: string, split: boolean) => {
  const s = await setupOf(env, 1, split)
  const valSlots = Array.from({ length: s.opts.valSeeds }, (_, i) => s.opts.valSeedStart + i)
  const val = await instancesOf(s, split ? await splitSeeds(s.spec, s.envOptions, valSlots, "validation") : valSlots)
  const trainSeeds: number[] = []
  for (const seed of RUN_SEEDS) {
    const r = await setupOf(env, seed, split)
    for (let step = 1; step <= STEPS; step++) {
      const slots = trainSlotSeeds(r, step, 0, 1)
      trainSeeds.push(...(split ? await splitSeeds(r.spec, r.envOptions, slots, "train") : slots))
    }
  }
  const train = await instancesOf(s, trainSeeds)
  const sft = new Set<string>()
  await collectTeacherTurns(s.spec, s.envOptions, { turns: SFT_TURNS, epsilon: 0.5, reasoningNoise: 0, seed: 1, instanceSplit: split, onEpisode: (o) => sft.add(instanceOf(s.spec, o)) })
  return { s, val, train, sft }
}

const shared = (a: Set<string>, b: Set<string>): number => [...a].filter((x) => b.has(x)).length

describe("validation instances are disjoint from training and SFT instances", () => {
  for (const env of ENVS) {
    test(`${env}`, async () => {
      const { s, val, train, sft } = await instances(env, true)
      // Enough distinct instances on each side for the check to mean something.
      expect(val.size).toBeGreaterThan(s.opts.valSeeds / 4)
      expect(train.size).toBeGreaterThan(100)
      for (const o of val) expect(partOf(o)).toBe("validation")
      expect(shared(val, train)).toBe(0)
      expect(shared(val, sft)).toBe(0)
      expect(sft.size).toBeGreaterThan(100)
    }, 120_000)
  }

  test("without the split FrozenLake's validation meets training instances (the check can fail)", async () => {
    const { val, train } = await instances("frozenlake", false)
    expect(shared(val, train)).toBeGreaterThan(0)
  }, 120_000)
})

describe("sftInstanceShare keeps part of the training instances from SFT", () => {
  test("MetaMathQA at share 0.5: SFT meets only its half of the training instances, RL draws reach both halves", async () => {
    const s = await setupOf("metamathqa", 1)
    const sft = new Set<string>()
    await collectTeacherTurns(s.spec, s.envOptions, {
      turns: SFT_TURNS,
      epsilon: 0,
      reasoningNoise: 0,
      seed: 1,
      instanceSplit: true,
      sftInstanceShare: 0.5,
      onEpisode: (o) => sft.add(instanceOf(s.spec, o))
    })
    expect(sft.size).toBeGreaterThan(1000)
    for (const o of sft) {
      expect(partOf(o)).toBe("train")
      expect(inSftShare(o, 0.5)).toBe(true)
    }
    const slots = Array.from({ length: 40 }, (_, i) => trainSlotSeeds(s, i + 1, 0, 1)).flat()
    const train = [...(await instancesOf(s, await splitSeeds(s.spec, s.envOptions, slots, "train")))]
    const held = train.filter((o) => !inSftShare(o, 0.5)).length
    // About half of RL's training instances are ones the SFT could not see (binomial, n = 320).
    expect(held / train.length).toBeGreaterThan(0.35)
    expect(held / train.length).toBeLessThan(0.65)
  }, 120_000)

  test("a share without the instance split is a usage error naming the field", async () => {
    const r = await Effect.runPromise(
      resolveSetup({ env: "metamathqa", seed: 1, P: 8, G: 2, train: { instanceSplit: false, sftInstanceShare: 0.5 } }).pipe(Effect.provide(registryLayerFrom(builtinPlugins)), Effect.flip)
    )
    expect(String((r as { field?: string }).field)).toBe("train.sftInstanceShare")
  })
})
