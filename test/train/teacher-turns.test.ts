/** SFT teacher episodes use seeds disjoint from RL training and validation (docs/design.md §3, docs/decisions.md#issue-14). */
import { describe, expect, test } from "bun:test"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { TrainOptions } from "../../core/train/options.ts"
import { collectTeacherTurns, SFT_SEED_START } from "../../core/train/teacher-turns.ts"
import { buildPrompt } from "../../core/prompt.ts"
import { frozenLakeSpec } from "../../envs/frozenlake/env.ts"

describe("SFT teacher seeds", () => {
  test("start at 1,000,000: above every training seed of a default-sized run and every validation seed", () => {
    const run = decodeSync(RunConfig, { env: "x" })
    const train = decodeSync(TrainOptions, {})
    if (!run.ok || !train.ok) throw new Error("defaults")
    const lastTrainSeed = train.value.trainSeedStart + run.value.steps * run.value.P * 64 // 64× the default budget
    expect(SFT_SEED_START).toBe(1_000_000)
    expect(SFT_SEED_START).toBeGreaterThan(lastTrainSeed)
    expect(SFT_SEED_START).toBeGreaterThan(train.value.valSeedStart + train.value.valSeeds)
  })

  test("the first turn is the first SFT seed's observation", async () => {
    const opts = decodeSync(frozenLakeSpec.options, {})
    if (!opts.ok) throw new Error(opts.message)
    const [first] = await collectTeacherTurns(frozenLakeSpec, opts.value, { turns: 1, epsilon: 0, reasoningNoise: 0, seed: 0 })
    const env = frozenLakeSpec.make(opts.value)
    expect(first!.prompt).toBe(buildPrompt({ instructions: undefined, observation: env.reset(SFT_SEED_START) }))
    expect(first!.prompt).not.toBe(buildPrompt({ instructions: undefined, observation: env.reset(10000) }))
  })
})
