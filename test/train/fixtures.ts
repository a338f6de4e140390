/** A test plugin: the bandit env and the tabular fake policy, plus a RunConfig builder. */
import { Schema } from "effect"
import { definePlugin, type PolicySpec } from "../../core/contracts/index.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { banditSpec } from "../helpers/bandit.ts"
import { FakePolicy } from "../helpers/fake-policy.ts"

export const candidates = [
  { text: "lamp red go left </think> <answer> left </answer>", length: 3 },
  { text: "lamp green go right </think> <answer> right </answer>", length: 2 },
  { text: "lamp red go right </think> <answer> right </answer>", length: 2 },
  { text: "no tags at all", length: 1 }
]

const fakeSpec: PolicySpec<{ k: number }> = {
  id: "fake",
  description: "tabular fake policy (tests)",
  options: Schema.Struct({ k: Schema.optional(Schema.Number) }) as any,
  trainable: true,
  make: async (o) => new FakePolicy(candidates, undefined, `fake-${o.k ?? 4}`)
}

export const testPlugin = definePlugin({ name: "test", version: "0.0.0", envs: [banditSpec()], policies: [fakeSpec] })

export const cfg = (over: Record<string, unknown> = {}, train: Record<string, unknown> = {}): RunConfig => {
  const r = decodeSync(RunConfig, {
    env: "test/bandit-v1",
    policy: "test/fake",
    algo: "grpo",
    P: 4,
    G: 8,
    steps: 20,
    lr: 0.1,
    ...over,
    // The bandit has two instances (a red and a green lamp): nothing to hold out for validation.
    train: { valSeeds: 32, evalEvery: 10, diagEvery: 5, checkpointEvery: 5, minibatches: 2, instanceSplit: false, ...train }
  })
  if (!r.ok) throw new Error(r.message)
  return r.value
}
