/**
 * The rollout manager on a scripted policy (docs/decisions.md#issue-5): format and invalid-action penalties, the env
 * not stepped on a bad format, the note in the next prompt, turn and action budgets, and what each
 * turn's training sequence holds (prompt and completion tokens kept apart: the loss sees only the
 * completion).
 */
import { describe, expect, test } from "bun:test"
import type { Completion, Policy } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { FORMAT_NOTE, rollout, type RolloutSettings } from "../../core/train/rollout.ts"
import { banditSpec } from "../helpers/bandit.ts"

/** Turn t's response is script[t](prompt); every completion has the tokens [10 + t, 20 + t]. */
const scripted = (script: ReadonlyArray<(prompt: string) => string>): Policy & { prompts: string[][] } => {
  let turn = 0
  const prompts: string[][] = []
  return {
    id: "scripted",
    prompts,
    sample: async (ps): Promise<Completion[]> => {
      const t = turn++
      prompts.push([...ps])
      return ps.map((p) => ({ text: script[t]!(p), tokens: Int32Array.of(10 + t, 20 + t), logprobs: new Float32Array(2), rawLogprobs: new Float32Array(2), finishReason: "stop" }))
    },
    score: async () => []
  }
}

const settings = (over: Partial<RolloutSettings> = {}): RolloutSettings => ({
  spec: banditSpec({ length: 2, actionBudget: 4, maxTurns: 4 }),
  envOptions: {},
  maxTurns: 4,
  context: "markov",
  historyTurns: 0,
  instructions: undefined,
  maxTokens: 8,
  temperature: 1,
  topP: 1,
  minP: 0,
  formatPenalty: -0.1,
  ...over
})

const right = (prompt: string) => (prompt.includes("lamp red") ? "left" : "right")
const answer = (a: string) => `go ${a} </think> <answer> ${a} </answer>`
const script = [() => "no tags at all", () => answer("jump"), (p: string) => answer(right(p)), (p: string) => answer(right(p))]

describe("rollout manager", () => {
  test("bad format and a rejected action each cost the penalty once; the env steps only on a parsed response", async () => {
    const policy = scripted(script)
    const b = await rollout(policy, settings(), [7], 1, new Rng(1))
    const t = b.trajectories[0]!
    expect(t.turns.map((u) => u.formatValid)).toEqual([false, true, true, true])
    expect(t.turns.map((u) => u.actionValid)).toEqual([false, false, true, true])
    expect(t.turns.map((u) => u.reward)).toEqual([-0.1, -0.1, 0, 1])
    expect(t.ret).toBeCloseTo(0.8, 12)
    expect(t.success).toBe(true)
    expect(t.terminated).toBe(true)
    // turn 2 repeats the observation with the format note in front; no note once the format is right
    expect(policy.prompts[1]![0]!.startsWith(FORMAT_NOTE)).toBe(true)
    expect(policy.prompts[1]![0]!.replace(`${FORMAT_NOTE}\n`, "")).toBe(policy.prompts[0]![0]!)
    expect(policy.prompts[2]![0]!).toContain("no valid action was taken")
    expect(policy.prompts[2]![0]!.includes(FORMAT_NOTE)).toBe(false)
    // graded only where the format parsed
    expect(t.turns[0]!.grade).toBeUndefined()
    expect(t.turns[3]!.grade?.consistency).toBe(1)
  })

  test("each turn's sequence is its prompt plus the completion tokens; the prompt never holds the completion (markov)", async () => {
    const b = await rollout(scripted(script), settings(), [7], 1, new Rng(1))
    b.trajectories[0]!.turns.forEach((u, i) => {
      expect([...u.completion.tokens]).toEqual([10 + i, 20 + i])
      for (const said of ["no tags at all", "jump", "go left", "go right"]) expect(u.prompt.includes(said)).toBe(false)
      expect(u.prompt.endsWith("<think>")).toBe(true)
    })
  })

  test("full context shows the earlier turns' responses in the prompt", async () => {
    const policy = scripted(script)
    await rollout(policy, settings({ context: "full" }), [7], 1, new Rng(1))
    const last = policy.prompts[3]![0]!
    expect(last).toContain("<think> no tags at all")
    expect(last).toContain("<answer> jump </answer>")
    expect(last).toMatch(/go (left|right) <\/think> <answer> (left|right) <\/answer>/)
    expect(last.endsWith("<think>")).toBe(true)
  })

  test("the turn budget and the env's action budget end a trajectory", async () => {
    const two = await rollout(scripted(script), settings({ maxTurns: 2 }), [7], 1, new Rng(1))
    expect(two.trajectories[0]!.turns.length).toBe(2)
    expect(two.trajectories[0]!.success).toBe(false)
    // actionBudget 2: the rejected action uses one of the two env steps, so one pull is left and the episode truncates
    const short = await rollout(scripted(script), settings({ spec: banditSpec({ length: 2, actionBudget: 2, maxTurns: 4 }) }), [7], 1, new Rng(1))
    const t = short.trajectories[0]!
    expect(t.turns.length).toBe(3)
    expect(t.truncated).toBe(true)
    expect(t.success).toBe(false)
  })

  test("the action budget is the harness's time limit: an env that never truncates itself is cut at the spec's budget, or the settings' override", async () => {
    const endless = { ...banditSpec({ length: 2, actionBudget: 100, maxTurns: 4 }), actionBudget: 2 }
    const cut = (await rollout(scripted(script), settings({ spec: endless }), [7], 1, new Rng(1))).trajectories[0]!
    expect(cut.turns.length).toBe(3) // a bad format does not step the env; the next two steps spend the budget
    expect(cut.truncated).toBe(true)
    const longer = (await rollout(scripted(script), settings({ spec: endless, actionBudget: 3 }), [7], 1, new Rng(1))).trajectories[0]!
    expect(longer.turns.length).toBe(4)
  })

  test("G copies of each seed: groups share the seed and start from the same observation", async () => {
    const policy = scripted(script)
    const b = await rollout(policy, settings(), [7, 8], 3, new Rng(1))
    expect(b.trajectories.map((t) => [t.group, t.index, t.seed])).toEqual([
      [0, 0, 7],
      [0, 1, 7],
      [0, 2, 7],
      [1, 0, 8],
      [1, 1, 8],
      [1, 2, 8]
    ])
    expect(new Set(policy.prompts[0]!.slice(0, 3)).size).toBe(1)
    expect(new Set(policy.prompts[0]!.slice(3)).size).toBe(1)
  })
})
