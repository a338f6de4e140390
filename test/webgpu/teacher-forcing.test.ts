/**
 * `train.teacherForcing: scorer` (docs/decisions.md#issue-29): the update's teacher-forced passes (recomputed old
 * log-probs, PPO's old values, the reference KL's log-probs) go to the scorer's `forward` when
 * it has one for the policy, and to the policy's own forward otherwise. The routing on the bandit
 * with the tabular fake policy and a marking scorer (no GPU); the WebGPU forward's numbers
 * against the CPU are test/webgpu/parity.test.ts (in process) and scorer.test.ts (Deno child).
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import type { CrossScorer, Policy, TokenForward, TrainItem } from "../../core/contracts/index.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { derive } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import type { TrainContext } from "../../core/train/context.ts"
import { rollout } from "../../core/train/rollout.ts"
import { resolveSetup } from "../../core/train/setup.ts"
import { type KeptTrajectory, prepare } from "../../core/train/update.ts"
import { FakePolicy } from "../helpers/fake-policy.ts"
import { candidates, testPlugin } from "../train/fixtures.ts"

const setupOf = (train: Record<string, unknown>) => {
  const r = decodeSync(RunConfig, {
    env: "test/bandit-v1",
    policy: "test/fake",
    algo: "ppo",
    P: 2,
    G: 4,
    steps: 2,
    train: { valSeeds: 8, diagEvery: 0, checkpointEvery: 0, instanceSplit: false, klCoef: 0.1, recomputeOldLogprobs: true, ...train }
  })
  if (!r.ok) throw new Error(r.message)
  return Effect.runPromise(resolveSetup(r.value).pipe(Effect.provide(registryLayerFrom([...builtinPlugins, testPlugin]))))
}

/** A scorer whose forward marks its outputs (log-prob −7, entropy 0.5, value 3) for the policies it accepts. */
const marking = (accepts: (p: Policy) => boolean, calls: Policy[]): CrossScorer => ({
  id: "marking",
  score: async () => ({ tokenMean: new Float64Array(0), sum: new Float64Array(0), rows: 0, cols: 0 }),
  forward: async (p: Policy, items: ReadonlyArray<TrainItem>): Promise<TokenForward[] | undefined> => {
    calls.push(p)
    if (!accepts(p)) return undefined
    return items.map((it) => ({ logprobs: new Float32Array(it.tokens.length).fill(-7), entropy: new Float32Array(it.tokens.length).fill(0.5), values: new Float32Array(it.tokens.length).fill(3) }))
  }
})

const run = async (train: Record<string, unknown>, accepts: (p: Policy) => boolean) => {
  const s = await setupOf(train)
  const policy = new FakePolicy(candidates)
  const ref = await policy.snapshot()
  const calls: Policy[] = []
  const c: TrainContext = { s, policy, ref, scorer: marking(accepts, calls), miEma: {}, resolveFilter: () => ({ ok: false, message: "none" }) }
  const b = await rollout(policy, s.rollout, [10_000, 10_001], 4, derive(s.config.seed, "rollout", 1, 0))
  const kept: KeptTrajectory[] = b.trajectories.map((t, i) => ({ ...t, groupId: Math.floor(i / 4) }))
  const p = await prepare(c, kept)
  return { p, calls, policy, ref }
}

const all = (xs: ReadonlyArray<Float32Array | undefined>, v: number) => xs.every((x) => x !== undefined && x.length > 0 && x.every((y) => y === v))

describe("train.teacherForcing", () => {
  test("scorer: old log-probs, old values and the reference's log-probs come from the scorer's forward", async () => {
    const { p, calls, policy, ref } = await run({ teacherForcing: "scorer" }, () => true)
    expect(calls).toEqual([policy, ref])
    expect(
      all(
        p.obj.map((o) => o.oldLogprobs),
        -7
      )
    ).toBe(true)
    expect(
      all(
        p.obj.map((o) => o.oldValues),
        3
      )
    ).toBe(true)
    expect(
      all(
        p.obj.map((o) => o.refLogprobs),
        -7
      )
    ).toBe(true)
  })

  test("unset: the policy's own forward, the scorer is not asked", async () => {
    const { p, calls } = await run({}, () => true)
    expect(calls.length).toBe(0)
    expect(
      all(
        p.obj.map((o) => o.oldLogprobs),
        -7
      )
    ).toBe(false)
    expect(p.obj.every((o) => o.refLogprobs!.every((x) => x <= 0 && x !== -7))).toBe(true)
  })

  test("a scorer that cannot run a policy (forward: undefined) leaves it to the policy", async () => {
    const a = await run({ teacherForcing: "scorer" }, () => false)
    const b = await run({}, () => true)
    expect(a.calls.length).toBe(2)
    expect(a.p.obj.map((o) => Array.from(o.oldLogprobs))).toEqual(b.p.obj.map((o) => Array.from(o.oldLogprobs)))
    expect(a.p.obj.map((o) => Array.from(o.refLogprobs!))).toEqual(b.p.obj.map((o) => Array.from(o.refLogprobs!)))
  })

  test("unset leaves the run config (and so the run id) as before", async () => {
    const s = await setupOf({})
    expect("teacherForcing" in (s.config.train as Record<string, unknown>)).toBe(false)
    const t = await setupOf({ teacherForcing: "scorer" })
    expect((t.config.train as Record<string, unknown>).teacherForcing).toBe("scorer")
  })
})
