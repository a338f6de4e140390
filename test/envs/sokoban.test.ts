import { describe, expect, test } from "bun:test"
import { checkEnv } from "../helpers/check-env.ts"
import { generatorOptions, type SokobanEnv, sokobanSpec, solveState, type SokobanOptions, type SokobanState } from "../../envs/sokoban/env.ts"
import { generateLevel, levelFromRows, TARGET } from "../../envs/sokoban/level.ts"
import { solve } from "../../envs/sokoban/solver.ts"
import { splitWords } from "../../envs/common/text.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { derive, Rng } from "../../core/rng.ts"

const opts = (raw: unknown = {}): SokobanOptions => {
  const r = decodeSync(sokobanSpec.options, raw)
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const make = (raw: unknown = {}) => sokobanSpec.make(opts(raw)) as SokobanEnv

// A corridor puzzle: the box must go right twice to reach the target.
const CORRIDOR = ["######", "#____#", "#PX_O#", "#____#", "#____#", "######"]

describe("sokoban-v1", () => {
  test("passes checkEnv: default and two boxes in a 7×7 room", () => {
    checkEnv(sokobanSpec, {})
    checkEnv(sokobanSpec, { dim: 7, numBoxes: 2 }, [0, 5])
  })

  test("options: defaults and errors", () => {
    expect(opts()).toEqual({ dim: 6, numBoxes: 1, searchDepth: 300, maxSolutionSteps: 5, genSteps: 0 })
    expect(generatorOptions(opts()).genSteps).toBe(20)
    expect(decodeSync(sokobanSpec.options, { dim: 3 }).ok).toBe(false)
    expect(decodeSync(sokobanSpec.options, { numBoxes: 0 }).ok).toBe(false)
  })

  test("gym-sokoban rewards: −0.1 per step, +1 onto target, −1 off, +10 solved", () => {
    const env = make()
    env.load(levelFromRows(CORRIDOR))
    const bump = env.step("Left")
    expect(bump.reward).toBeCloseTo(-0.1, 12)
    expect(bump.info.effective).toBe(false)
    const push = env.step("Right")
    expect(push.reward).toBeCloseTo(-0.1, 12)
    expect((env.state() as SokobanState).boxes).toEqual([[2, 3]])
    const done = env.step("Right")
    expect(done.reward).toBeCloseTo(10.9, 12)
    expect(done.terminated).toBe(true)
    expect(done.info.success).toBe(true)
    // RAGEN's grid render: each cell " # " (ragen/env/sokoban/config.py grid_lookup)
    expect(done.observation.split("\n")[2]).toBe(" #  _  _  P  √  # ")
    // Off target: two boxes, one on its target is pushed off.
    env.load(levelFromRows(["######", "#P√_O#", "#_X__#", "#____#", "#____#", "######"]))
    const off = env.step("Right")
    expect(off.reward).toBeCloseTo(-1.1, 12)
    const on = env.step("Right")
    expect(on.reward).toBeCloseTo(0.9, 12) // onto the other target; one box still off
    expect(on.terminated).toBe(false)
    expect(env.step("Down").reward).toBeCloseTo(-0.1, 12)
  })

  test("box into a wall or another box does not move; invalid text is not applied", () => {
    const env = make()
    env.load(levelFromRows(["######", "#_XX_#", "#_P__#", "#_X__#", "#__O_#", "######"]))
    const r = env.step("Up") // box at (1,2) would go into the wall
    expect(r.info.effective).toBe(false)
    expect(r.reward).toBeCloseTo(-0.1, 12)
    const before = JSON.stringify(env.state())
    const bad = env.step("north")
    expect(bad.info.valid).toBe(false)
    expect(bad.reward).toBe(0)
    expect(bad.observation.startsWith("no valid action was taken\n")).toBe(true)
    expect(JSON.stringify(env.state())).toBe(before)
    env.load(levelFromRows(["######", "#_XX_#", "#P___#", "#_X__#", "#__O_#", "######"]))
    env.step("Up")
    expect(env.step("Right").info.effective).toBe(false) // box into box
  })

  test("action forms: names in any case, RAGEN numbers 1..4 (Up Down Left Right)", () => {
    const env = make()
    for (const a of ["Right", "right", "RIGHT", " Right. ", "4", "4 (Right)"]) {
      env.load(levelFromRows(CORRIDOR))
      expect(env.step(a).info.effective).toBe(true)
    }
    for (const a of ["3 (Right)", "R", "Right Right", "0", "push right"]) {
      env.load(levelFromRows(CORRIDOR))
      expect(env.step(a).info.valid).toBe(false)
    }
  })

  test("solver: shortest solution, proof of a dead state", () => {
    const l = levelFromRows(CORRIDOR)
    expect(solve(l.dim, l.tiles, l.boxes, l.player).moves).toEqual([3, 3])
    const detour = levelFromRows(["######", "#____#", "#_X_O#", "#P___#", "#____#", "######"])
    expect(solve(detour.dim, detour.tiles, detour.boxes, detour.player).moves).toEqual([0, 3, 3])
    const dead = levelFromRows(["######", "#X___#", "#_P_O#", "#____#", "#____#", "######"])
    const s = solve(dead.dim, dead.tiles, dead.boxes, dead.player)
    expect(s.moves).toBeNull()
    expect(s.exhausted).toBe(true)
  })

  test("generator: 200 seeds, all solvable within the budget, none solved, deterministic", () => {
    const env = make()
    const seen = new Set<string>()
    for (let seed = 0; seed < 200; seed++) {
      env.reset(10_000 + seed)
      const st = env.state() as SokobanState
      const sol = solveState(st)
      expect(sol.moves).not.toBeNull()
      expect(sol.moves!.length).toBeGreaterThan(0)
      expect(sol.moves!.length).toBeLessThanOrEqual(10)
      seen.add(JSON.stringify(st))
    }
    expect(seen.size).toBeGreaterThan(190)
    expect(make().reset(7)).toBe(make().reset(7))
    // Without the cap, reverse play goes deeper and levels get harder.
    const deep = generatorOptions(opts({ maxSolutionSteps: 0 }))
    let longest = 0
    for (let seed = 0; seed < 40; seed++) longest = Math.max(longest, generateLevel(derive(seed, "x"), deep).depth)
    expect(longest).toBeGreaterThan(10)
  })

  test("teacher at ε=0 solves every level (200 seeds); multi-box too", () => {
    const rng = new Rng(4)
    for (const [raw, n] of [
      [{}, 200],
      [{ dim: 7, numBoxes: 2 }, 20]
    ] as const) {
      const env = make(raw)
      let solved = 0
      for (let seed = 0; seed < n; seed++) {
        env.reset(10_000 + seed)
        let r
        while (!env.done) r = env.step(env.teach({ epsilon: 0, reasoningNoise: 0.3 }, rng).action)
        if (r?.info.success) solved++
      }
      expect(solved).toBe(n)
    }
  })

  test("teacher reasoning: facts, plan, noise; observation short and in the vocabulary", () => {
    const o = opts()
    const env = make()
    env.load(levelFromRows(CORRIDOR))
    const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
    expect(t.reasoning).toBe("player 2 1 box 2 2 target 2 4 plan right right")
    expect(t.facts).toEqual(["player 2 1", "box 2 2", "target 2 4"])
    expect(t.action).toBe("Right")
    const vocab = new Set(sokobanSpec.vocabulary(o))
    const rng = new Rng(1)
    const texts = new Set<string>()
    for (let seed = 0; seed < 40; seed++) {
      const obs = env.reset(seed)
      expect(splitWords(obs).length).toBeLessThanOrEqual(70)
      for (const w of splitWords(obs)) expect(vocab.has(w)).toBe(true)
      const n = env.teach({ epsilon: 0.5, reasoningNoise: 1 }, rng)
      texts.add(n.reasoning.split(" ").slice(0, 3).join(" "))
      for (const w of [...splitWords(n.reasoning), n.action]) expect(vocab.has(w)).toBe(true)
      expect(env.gradeReasoning(env.state(), n.reasoning, n.intendedAction)).toEqual({ factAccuracy: 1, consistency: 1 })
      for (const w of splitWords(env.step("?").observation)) expect(vocab.has(w)).toBe(true)
    }
    for (const w of splitWords(sokobanSpec.instructions(o))) expect(vocab.has(w)).toBe(true)
    expect(texts.size).toBeGreaterThan(10)
  })

  test("gradeReasoning: wrong facts lower, contradiction 0, reordered and garbled text parse", () => {
    const env = make()
    env.load(levelFromRows(CORRIDOR))
    const s = env.state()
    const g = (text: string, action: string) => env.gradeReasoning(s, text, action)
    expect(g("player 2 1 box 2 2 target 2 4 plan right right", "Right")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(g("player 2 1 box 3 3 target 2 4 plan right", "Right").factAccuracy).toBeCloseTo(2 / 3, 12)
    expect(g("player 2 1 box 2 2 target 2 4 plan right right", "Up").consistency).toBe(0)
    expect(g("plan right target 2 4 crate at 2 2 agent 2 1", "right")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(g("Player (2, 1). Box: 2 2 -- moves: Right, Right", "Right")).toEqual({ factAccuracy: 1, consistency: 1 })
    // An illegal plan (walking into the wall) is not consistent even if the action follows it.
    expect(g("player 2 1 plan left", "Left").consistency).toBe(0)
    // Pushing the box three times runs it into the wall: not a valid plan.
    expect(g("plan right right right", "Right").consistency).toBe(0)
    expect(g("zz qq 1 2 3", "Right")).toEqual({ factAccuracy: 0, consistency: 0 })
    const tiles = levelFromRows(CORRIDOR).tiles
    expect(tiles[2 * 6 + 4]).toBe(TARGET)
  })

  test("gradeReasoning reads facts as an LLM writes them freely", () => {
    const env = make()
    env.load(levelFromRows(CORRIDOR))
    const s = env.state()
    const g = (text: string, action: string) => env.gradeReasoning(s, text, action)
    const ok = { factAccuracy: 1, consistency: 1 }
    expect(g("The player is at row 2, column 1 and the box is at row 2, column 2. The target is at (2, 4). I should move Right.", "Right")).toEqual(ok)
    expect(g("I am at (2,1); box at (2, 2); Goal: row 2 col 4. Plan: Right || Right", "Right")).toEqual(ok)
    expect(g("You are at [2, 1]. I will push the box right: move right, then right again.", "Right")).toEqual(ok)
    expect(g("Boxes at (2, 2) and (3, 3); target (2,4). Go right.", "Right")).toEqual({ factAccuracy: 2 / 3, consistency: 1 })
    // a wrong position and a move against the stated plan
    expect(g("The player is at row 3, column 1. Next move: up.", "Right")).toEqual({ factAccuracy: 0, consistency: 0 })
  })
})
