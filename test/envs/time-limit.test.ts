import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { assertEnv, checkEnv } from "../../core/check-env.ts"
import type { Env, EnvSpec, StepResult, TeacherOptions } from "../../core/contracts/index.ts"
import { withTimeLimit } from "../../core/env/time-limit.ts"
import { Rng } from "../../core/rng.ts"
import { frozenLakeSpec } from "../../envs/frozenlake/env.ts"
import { sokobanSpec } from "../../envs/sokoban/env.ts"

let resets = 0
/** A counter env: "inc" adds 1, "stop" terminates (success at 3); anything else is invalid. A flaky one starts differently on every reset. */
class Counter implements Env<{ n: number }> {
  readonly id = "counter-v1"
  n = 0
  ended = false
  lastTeach: TeacherOptions | undefined
  constructor(private readonly flaky = false) {}
  get done() {
    return this.ended
  }
  reset(seed: number) {
    this.n = this.flaky ? resets++ : seed % 3
    this.ended = false
    return `n ${this.n}`
  }
  step(action: string): StepResult {
    if (typeof action === "string" && action.length > 1000) throw new Error("too long")
    const valid = action === "inc" || action === "stop"
    if (action === "inc") this.n++
    if (action === "stop") this.ended = true
    return { observation: `n ${this.n}`, reward: 0, terminated: this.ended, truncated: false, info: { success: this.ended && this.n === 3, valid, effective: valid } }
  }
  state() {
    return { n: this.n }
  }
  teach(o: TeacherOptions) {
    this.lastTeach = o
    return { reasoning: "n", action: "inc", facts: [], intendedAction: "inc" }
  }
  gradeReasoning() {
    return { factAccuracy: 1, consistency: 1 }
  }
  randomAction(rng: Rng) {
    return rng.pick(["inc", "inc", "stop"])
  }
}

describe("withTimeLimit (Gymnasium's TimeLimit)", () => {
  test("truncates at the budget, counting every step; the inner env keeps no count", () => {
    const inner = new Counter()
    const env = withTimeLimit(inner, 3)
    env.reset(0)
    expect(env.step("inc").truncated).toBe(false)
    expect(env.step("junk").truncated).toBe(false) // an invalid step counts too
    const r = env.step("inc")
    expect(r).toMatchObject({ truncated: true, terminated: false })
    expect(env.done).toBe(true)
    expect(inner.done).toBe(false)
    // after the end nothing reaches the inner env
    expect(env.step("inc")).toMatchObject({ reward: 0, truncated: true, info: { valid: false } })
    expect(inner.n).toBe(2)
    // reset starts a new count
    env.reset(0)
    expect(env.elapsedSteps).toBe(0)
    expect(env.done).toBe(false)
  })
  test("a terminating step is not also truncated; the teacher is told the steps left", () => {
    const inner = new Counter()
    const env = withTimeLimit(inner, 2)
    env.reset(0)
    env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(1))
    expect(inner.lastTeach?.stepsLeft).toBe(2)
    env.step("inc")
    env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(1))
    expect(inner.lastTeach?.stepsLeft).toBe(1)
    expect(env.step("stop")).toMatchObject({ terminated: true, truncated: false })
    expect(env.done).toBe(true)
  })
  test("async twins are wrapped only when the env has them", async () => {
    expect(withTimeLimit(new Counter(), 2).stepAsync).toBeUndefined()
    const inner = new Counter() as Counter & { stepAsync?: (a: string) => Promise<StepResult>; resetAsync?: (s: number) => Promise<string> }
    inner.stepAsync = async (a) => inner.step(a)
    inner.resetAsync = async (s) => inner.reset(s)
    const env = withTimeLimit(inner, 1)
    await env.resetAsync!(0)
    expect((await env.stepAsync!("inc")).truncated).toBe(true)
    expect(env.done).toBe(true)
  })
  test("envs no longer truncate themselves: the grid envs run past the budget unwrapped", () => {
    const env = sokobanSpec.make({ dim: 6, numBoxes: 1, searchDepth: 300, maxSolutionSteps: 5, genSteps: 0 })
    env.reset(3)
    for (let i = 0; i < 12; i++) expect(env.step("nonsense").truncated).toBe(false)
    const limited = withTimeLimit(sokobanSpec.make({ dim: 6, numBoxes: 1, searchDepth: 300, maxSolutionSteps: 5, genSteps: 0 }), sokobanSpec.actionBudget)
    limited.reset(3)
    let k = 0
    while (!limited.done) {
      limited.step("nonsense")
      k++
    }
    expect(k).toBe(sokobanSpec.actionBudget)
  })
})

describe("checkEnv (public, runner-agnostic)", () => {
  const spec = (flaky: boolean): EnvSpec => ({
    id: "counter-v1",
    description: "counter",
    options: sokobanSpec.options,
    maxTurns: 5,
    actionBudget: 4,
    markov: true,
    make: () => new Counter(flaky),
    vocabulary: () => ["n", "inc", "stop"],
    instructions: () => "count"
  })
  test("returns problems instead of asserting, and assertEnv throws them in one Error", () => {
    const problems = checkEnv(spec(true), {}, { seeds: [0] })
    expect(problems.some((p) => p.includes("different episodes"))).toBe(true)
    expect(problems.some((p) => p.includes("threw: too long"))).toBe(true)
    expect(() => assertEnv(spec(true), {}, { seeds: [0] })).toThrow(/env check failed/)
    expect(checkEnv(spec(false), {}, { seeds: [0] }).filter((p) => !p.includes("threw"))).toEqual([])
  })
  test("the shipped grid envs pass; options that do not decode are one problem", () => {
    expect(checkEnv(frozenLakeSpec, {})).toEqual([])
    expect(checkEnv(sokobanSpec, { dim: 99 })).toHaveLength(1)
  })
  test("core/check-env.ts does not depend on a test runner", () => {
    const src = readFileSync(new URL("../../core/check-env.ts", import.meta.url), "utf8")
    expect(src).not.toMatch(/bun:test|vitest|jest/)
  })
})
