/**
 * The filter-to-update path (docs/decisions.md#issue-14): what the update does with the trajectories a filter
 * keeps. The trainer's own pieces are used as the loop uses them (rollout → filterStep →
 * update) on the bandit env with the tabular fake policy, so every figure is exact.
 */
import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { builtinPlugins } from "../../builtins.ts"
import { definePlugin, type Filter, type FilterResult, type Group } from "../../core/contracts/index.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { derive } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import type { TrainContext } from "../../core/train/context.ts"
import { filterStep } from "../../core/train/filtering.ts"
import { trainSlotSeeds } from "../../core/train/instances.ts"
import { rollout, type RolloutBatch } from "../../core/train/rollout.ts"
import { runTraining } from "../../core/train/run.ts"
import { resolveSetup, type TrainSetup } from "../../core/train/setup.ts"
import { update } from "../../core/train/update.ts"
import { FakePolicy } from "../helpers/fake-policy.ts"
import { candidates, testPlugin } from "./fixtures.ts"

/** A trajectory-level filter for these tests: trajectory 0 of every group (an unbiased one-trajectory sample). */
const firstOfGroup: Filter<{}> = {
  name: "first-of-group",
  description: "keep trajectory 0 of each group (tests)",
  options: Schema.Struct({}),
  select: (groups) => ({ keep: groups.map((g) => ({ group: g.index, trajectories: [0] })) })
}
const onePlugin = definePlugin({ name: "one", version: "0.0.0", filters: [firstOfGroup] })
const plugins = [...builtinPlugins, testPlugin, onePlugin]

/** A run config on the bandit with the trainer's default minibatching (32 whole trajectories). */
const config = (over: Record<string, unknown> = {}, train: Record<string, unknown> = {}): RunConfig => {
  const r = decodeSync(RunConfig, {
    env: "test/bandit-v1",
    policy: "test/fake",
    algo: "grpo",
    P: 4,
    G: 8,
    steps: 20,
    lr: 0.1,
    ...over,
    train: { valSeeds: 32, evalEvery: 10, diagEvery: 0, checkpointEvery: 0, instanceSplit: false, ...train }
  })
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const setupOf = (over: Record<string, unknown> = {}, train: Record<string, unknown> = {}): Promise<TrainSetup> =>
  Effect.runPromise(resolveSetup(config(over, train)).pipe(Effect.provide(registryLayerFrom(plugins))))
const contextOf = (s: TrainSetup, initLogits?: number[]): TrainContext => ({
  s,
  policy: new FakePolicy(candidates, initLogits),
  ref: undefined,
  scorer: undefined,
  miEma: {},
  resolveFilter: () => ({ ok: false, message: "no registry in this test" })
})
const seedsOf = (P: number, step = 1) => Array.from({ length: P }, (_, i) => 10_000 + (step - 1) * P + i)
const batchOf = (c: TrainContext, P: number, G: number, step = 1) => rollout(c.policy, c.s.rollout, seedsOf(P, step), G, derive(c.s.config.seed, "rollout", step, 0))
const turnsOf = (b: RolloutBatch) => b.trajectories.reduce((a, t) => a + t.turns.length, 0)
/** The fake policy's parameters (logits and value per prompt) and Adam's step count. */
const params = (c: TrainContext) => JSON.parse((c.policy as any).dump()) as { t: number; rows: Record<string, { l: number[]; v: number }> }
const keepGroups =
  (ids: ReadonlyArray<number>) =>
  async (groups: ReadonlyArray<Group>): Promise<FilterResult> => ({
    keep: groups.filter((g) => ids.includes(g.index)).map((g) => ({ group: g.index, trajectories: g.returns.map((_, i) => i) }))
  })
const spread = (r: ReadonlyArray<number>) => Math.max(...r) - Math.min(...r)

describe("the update of a filtered batch", () => {
  for (const algo of ["grpo", "ppo", "dapo"]) {
    test(`${algo}: the update from a filtered batch equals the update from the kept groups alone`, async () => {
      const s = await setupOf({ algo, algoOptions: algo === "dapo" ? { dynamicSampling: false } : {} }, { minibatchTrajectories: 16 })
      // Filtered: 4 groups rolled out, groups 0 and 2 kept.
      const a = contextOf(s)
      const batch = await batchOf(a, 4, 8)
      const fa = await filterStep(a, batch, 1, keepGroups([0, 2]))
      expect(fa.kept.length).toBe(16)
      const ma = await update(a, fa.kept, 1, turnsOf(batch))
      // Kept only: a batch holding just those two groups (renumbered 0 and 1), no filter.
      const b = contextOf(s)
      const only: RolloutBatch = {
        ...batch,
        seeds: [batch.seeds[0]!, batch.seeds[2]!],
        trajectories: batch.trajectories.filter((t) => t.group === 0 || t.group === 2).map((t) => ({ ...t, group: t.group === 0 ? 0 : 1 }))
      }
      // The kept-only batch must be rolled out by the same policy state: the fake policy's rows are made on first use.
      await batchOf(b, 4, 8)
      const fb = await filterStep(b, only, 1, keepGroups([0, 1]))
      const mb = await update(b, fb.kept, 1, turnsOf(only))
      expect(ma["train/optimizer_steps"]).toBe(1)
      expect(mb["train/optimizer_steps"]).toBe(1)
      expect(ma["train/grad_norm"]).toBeCloseTo(mb["train/grad_norm"]!, 12)
      const pa = params(a),
        pb = params(b)
      expect(Object.keys(pa.rows).sort()).toEqual(Object.keys(pb.rows).sort())
      for (const k of Object.keys(pa.rows)) {
        pa.rows[k]!.l.forEach((x, j) => expect(x).toBeCloseTo(pb.rows[k]!.l[j]!, 12))
        expect(pa.rows[k]!.v).toBeCloseTo(pb.rows[k]!.v, 12)
      }
      // The dropped groups would have changed it: the update from all four groups differs.
      const c = contextOf(s)
      await batchOf(c, 4, 8)
      const fc = await filterStep(c, batch, 1, keepGroups([0, 1, 2, 3]))
      const mc = await update(c, fc.kept, 1, turnsOf(batch))
      expect(Math.abs(mc["train/grad_norm"]! - ma["train/grad_norm"]!)).toBeGreaterThan(1e-6)
    })
  }

  test("an empty selection takes no optimizer step and leaves the policy as it was", async () => {
    const s = await setupOf()
    const c = contextOf(s)
    const batch = await batchOf(c, 4, 8)
    const before = params(c)
    const f = await filterStep(c, batch, 1, keepGroups([]))
    expect(f.kept.length).toBe(0)
    expect(f.metrics["train/kept_groups"]).toBe(0)
    const m = await update(c, f.kept, 1, turnsOf(batch))
    expect(m["train/optimizer_steps"]).toBe(0)
    expect(m["train/skipped_update"]).toBe(1)
    expect(m["train/kept_items"]).toBe(0)
    expect(params(c)).toEqual(before)
  })

  test("the optimizer-step count follows the kept count: 32 trajectories per minibatch, padded by copies", async () => {
    const s = await setupOf({ P: 8, G: 16 })
    expect(s.opts.minibatchTrajectories).toBe(32)
    const steps = async (groups: number[], setup = s) => {
      const c = contextOf(setup)
      const batch = await batchOf(c, 8, 16)
      const f = await filterStep(c, batch, 1, keepGroups(groups))
      const m = await update(c, f.kept, 1, turnsOf(batch))
      return { kept: f.kept.length, steps: m["train/optimizer_steps"], turns: m["train/minibatch_turns"], adam: params(c).t }
    }
    // One turn per trajectory in the bandit, so a minibatch holds 32 turns.
    expect(await steps([0, 1, 2, 3, 4, 5, 6, 7])).toEqual({ kept: 128, steps: 4, turns: 32, adam: 4 })
    expect(await steps([0, 1, 2, 3, 4])).toEqual({ kept: 80, steps: 3, turns: 32, adam: 3 })
    expect(await steps([5])).toEqual({ kept: 16, steps: 1, turns: 32, adam: 1 })
    // The older fixed count stays an option: 4 minibatches whatever is kept.
    const fixed = await setupOf({ P: 8, G: 16 }, { minibatches: 4 })
    expect((await steps([0, 1, 2, 3, 4], fixed)).steps).toBe(4)
  })
})

describe("DAPO's dynamic sampling: redraw and refill", () => {
  test("all-equal groups are dropped and refilled from a redraw, in draw order, up to P groups", async () => {
    const s = await setupOf({ algo: "dapo" })
    expect(s.algo.dynamicSampling!(s.algoOptions).maxDraws).toBe(3)
    const c = contextOf(s)
    const batch = await batchOf(c, 4, 8)
    // Groups 1 and 3 of the first draw made all-equal (every trajectory returns 1).
    for (const t of batch.trajectories) if (t.group === 1 || t.group === 3) t.ret = 1
    const firstSpread = [0, 2].map((g) => spread(batch.trajectories.filter((t) => t.group === g).map((t) => t.ret)))
    expect(firstSpread.every((x) => x > 0)).toBe(true)
    const seen: Group[][] = []
    const none = s.filter
    const f = await filterStep(c, batch, 1, async (groups, draw) => {
      seen.push([...groups])
      return none.select(groups, { options: s.filterOptions, rng: derive(1, "filter", 1, draw), step: 1 })
    })
    // The second draw, rolled out again here from its seeds (step 1, draw 1) and rng: its non-equal groups in order.
    const redraw = await rollout(contextOf(s).policy, s.rollout, trainSlotSeeds(s, 1, 1, 3), 8, derive(s.config.seed, "rollout", 1, 1))
    const nonEqual = [0, 1, 2, 3].filter((g) => spread(redraw.trajectories.filter((t) => t.group === g).map((t) => t.ret)) > 1e-9).map((g) => 4 + g)
    expect(f.metrics["train/draws"]).toBe(2)
    expect(f.metrics["train/kept_groups"]).toBe(4)
    expect(seen[0]!.map((g) => g.index)).toEqual([0, 2])
    expect([...new Set(f.kept.map((t) => t.groupId))]).toEqual([0, 2, ...nonEqual.slice(0, 2)])
    expect(f.kept.length).toBe(32)
    // The update sees the refilled batch: 32 trajectories, one minibatch.
    const m = await update(c, f.kept, 1, turnsOf(batch))
    expect(m["train/optimizer_steps"]).toBe(1)
  })

  test("when every draw is all-equal, it stops after maxDraws with nothing kept and no optimizer step", async () => {
    const s = await setupOf({ algo: "dapo" })
    // Always "left": red lamps succeed (1), green ones fail (0), so every group is all-equal.
    const c = contextOf(s, [0, -60, -60, -60])
    const batch = await batchOf(c, 4, 8)
    const f = await filterStep(c, batch, 1, async (groups) => s.filter.select(groups, { options: s.filterOptions, rng: derive(1, "f"), step: 1 }))
    expect(f.metrics["train/draws"]).toBe(3)
    expect(f.metrics["train/kept_groups"]).toBe(0)
    const m = await update(c, f.kept, 1, turnsOf(batch))
    expect(m["train/optimizer_steps"]).toBe(0)
  })

  test("with a filter as well, the filter chooses among each draw's non-equal groups and at most P groups reach the update", async () => {
    const s = await setupOf({ algo: "dapo", filter: "top-p", filterOptions: { p: 0.5 } })
    const c = contextOf(s)
    const batch = await batchOf(c, 4, 8)
    const seen: Group[][] = []
    const f = await filterStep(c, batch, 1, async (groups, draw) => {
      seen.push([...groups])
      return s.filter.select(groups, { options: s.filterOptions, rng: derive(1, "filter", 1, draw), step: 1 })
    })
    for (const draw of seen) for (const g of draw) expect(spread(g.returns)).toBeGreaterThan(1e-9)
    expect(seen.length).toBe(f.metrics["train/draws"]!)
    expect(f.metrics["train/kept_groups"]!).toBeLessThanOrEqual(4)
    expect(f.kept.length).toBe(8 * f.metrics["train/kept_groups"]!)
  })
})

describe("a one-trajectory group learns (advantage R, as the reference)", () => {
  test("GRPO with a filter that keeps one trajectory per group raises success", async () => {
    const out = mkdtempSync(join(tmpdir(), "ragen-update-"))
    const s = await runTraining(config({ filter: "one/first-of-group", steps: 30 }), { outDir: out, plugins, onLog: () => {} })
    expect(s.status).toBe("complete")
    const lines = readFileSync(join(out, s.runId, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    const v0 = lines[0]["val/success@0.5"] as number
    // 4 groups × 1 trajectory: one minibatch of 4 copied to 32 each step.
    expect(lines[1]["train/kept_items"]).toBe(4)
    expect(lines[1]["train/optimizer_steps"]).toBe(1)
    console.log(`one trajectory per group: val success@0.5 ${v0} → ${s.finalValSuccess}`)
    expect(s.finalValSuccess!).toBeGreaterThan(v0 + 0.3)
  })
})
