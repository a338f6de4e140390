import { describe, expect, test } from "bun:test"
import { withTimeLimit } from "../../core/env/time-limit.ts"
import { Tokenizer } from "../../plugins/tinylm/tokenizer.ts"
import { checkEnv } from "../helpers/check-env.ts"
import { frozenLakeSpec, type FrozenLakeOptions, type FrozenLakeState } from "../../envs/frozenlake/env.ts"
import { DOWN, generateMap, GOAL, HOLE, LEFT, parseMap, RIGHT, shortestPath, transitionTable, UP } from "../../envs/frozenlake/map.ts"
import { splitWords } from "../../envs/common/text.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { derive, Rng } from "../../core/rng.ts"

const opts = (raw: unknown = {}): FrozenLakeOptions => {
  const r = decodeSync(frozenLakeSpec.options, raw)
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const CLASSIC = "SFFF,FHFH,FFFH,HFFG"

describe("frozenlake-v1", () => {
  test("passes checkEnv: random maps, slippery, fixed map", () => {
    checkEnv(frozenLakeSpec, {})
    checkEnv(frozenLakeSpec, { successRate: 0.8 })
    checkEnv(frozenLakeSpec, { map: CLASSIC })
    checkEnv(frozenLakeSpec, { size: 6 }, [3, 4])
  })

  test("options: paper defaults and clear errors", () => {
    expect(opts()).toEqual({ size: 4, p: 0.9, successRate: 1, map: "" })
    const bad = decodeSync(frozenLakeSpec.options, { map: "SFF,FHF" })
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.message).toContain("square")
    expect(decodeSync(frozenLakeSpec.options, { successRate: 1.5 }).ok).toBe(false)
    expect(decodeSync(frozenLakeSpec.options, { map: "SFFF,FHFH,FFFH,HFFF" }).ok).toBe(false)
  })

  test("transition table: probabilities sum to 1 and follow the success-rate rule", () => {
    for (const s of [1, 0.8, 1 / 3, 0]) {
      const t = transitionTable(CLASSIC, s)
      for (let i = 0; i < t.n * 4; i++) {
        const sum = t.prob[i * 3]! + t.prob[i * 3 + 1]! + t.prob[i * 3 + 2]!
        expect(Math.abs(sum - 1)).toBeLessThan(1e-12)
      }
      // State 0, Down: intended to 4 w.p. s; perpendicular Left bumps the wall (stays 0), Right goes to 1.
      const b = (0 * 4 + DOWN) * 3
      expect([t.next[b], t.next[b + 1], t.next[b + 2]]).toEqual([4, 0, 1])
      expect(t.prob[b]).toBeCloseTo(s, 12)
      expect(t.prob[b + 1]).toBeCloseTo((1 - s) / 2, 12)
      expect(t.prob[b + 2]).toBeCloseTo((1 - s) / 2, 12)
      // State 14, Right reaches the goal 15: reward 1, terminated.
      const g = (14 * 4 + RIGHT) * 3
      expect(t.next[g]).toBe(15)
      expect(t.reward[g]).toBe(1)
      expect(t.terminated[g]).toBe(1)
      // Holes and the goal are absorbing.
      for (const absorbing of [5, 15]) {
        const a = (absorbing * 4 + UP) * 3
        expect(t.next[a]).toBe(absorbing)
        expect(t.prob[a]).toBe(1)
        expect(t.reward[a]).toBe(0)
      }
    }
  })

  test("slippery steps match the table's frequencies", () => {
    const env = frozenLakeSpec.make(opts({ map: CLASSIC, successRate: 0.6 }))
    const counts = new Map<string, number>()
    const N = 6000
    for (let seed = 0; seed < N; seed++) {
      env.reset(seed)
      env.step("Down")
      const p = (env.state() as FrozenLakeState).player.join(" ")
      counts.set(p, (counts.get(p) ?? 0) + 1)
    }
    expect((counts.get("1 0") ?? 0) / N).toBeCloseTo(0.6, 1)
    expect((counts.get("0 0") ?? 0) / N).toBeCloseTo(0.2, 1)
    expect((counts.get("0 1") ?? 0) / N).toBeCloseTo(0.2, 1)
  })

  test("fixed map: goal gives +1 and success, a hole ends with 0", () => {
    const env = frozenLakeSpec.make(opts({ map: CLASSIC }))
    const first = env.reset(1)
    expect(first.split("\n").slice(0, 4)).toEqual(["P___", "_O_O", "___O", "O__G"]) // RAGEN's render: one character per cell
    let last
    for (const a of ["Down", "Down", "Right", "Down", "Right", "Right"]) last = env.step(a)
    expect(last!.reward).toBe(1)
    expect(last!.terminated).toBe(true)
    expect(last!.info.success).toBe(true)
    expect(last!.observation).toContain("√")
    env.reset(2)
    env.step("Down")
    const r = env.step("Right")
    expect(r.terminated).toBe(true)
    expect(r.reward).toBe(0)
    expect(r.info.success).toBe(false)
    expect(r.observation).toContain("X")
    expect(env.done).toBe(true)
  })

  test("walls keep the player in place; invalid actions are not applied and count against the harness's budget", () => {
    const env = withTimeLimit(frozenLakeSpec.make(opts({ map: CLASSIC })), frozenLakeSpec.actionBudget)
    env.reset(0)
    const w = env.step("Up")
    expect(w.info).toEqual({ success: false, valid: true, effective: false })
    const bad = env.step("jump")
    expect(bad.info.valid).toBe(false)
    expect(bad.reward).toBe(0)
    expect(bad.observation.startsWith("no valid action was taken\n")).toBe(true)
    for (let i = 2; i < 9; i++) expect(env.step("Left").truncated).toBe(false)
    const end = env.step("Left")
    expect(end.truncated).toBe(true)
    expect(end.terminated).toBe(false)
  })

  test("action forms: names in any case, RAGEN numbers, strict otherwise", () => {
    const env = frozenLakeSpec.make(opts({ map: CLASSIC }))
    for (const a of ["Right", "right", " RIGHT ", "Right.", "3", "3 (Right)"]) {
      env.reset(0)
      expect(env.step(a).info.valid).toBe(true)
      expect((env.state() as FrozenLakeState).player).toEqual([0, 1])
    }
    for (const a of ["2 (Right)", "Rightt", "Right Down", "5", "<answer>Right</answer>", "go right"]) {
      env.reset(0)
      expect(env.step(a).info.valid).toBe(false)
    }
  })

  test("generated maps: same seed same map, path always exists, varied starts", () => {
    const seen = new Set<string>()
    for (let seed = 0; seed < 300; seed++) {
      const m = generateMap(derive(seed, "t"), 4, 0.9)
      expect(shortestPath(m, m.start)).not.toBeNull()
      expect(m.start).not.toBe(m.goal)
      expect(m.tiles[m.goal]).toBe(GOAL)
      seen.add(`${m.start}-${m.goal}`)
    }
    expect(seen.size).toBeGreaterThan(100)
    const env = frozenLakeSpec.make(opts())
    const a = env.reset(42)
    expect(frozenLakeSpec.make(opts()).reset(42)).toBe(a)
  })

  test("observation is short and tokenizable with the vocabulary", () => {
    const o = opts()
    const vocab = new Set(frozenLakeSpec.vocabulary(o))
    const tok = Tokenizer.fromVocabulary(frozenLakeSpec.vocabulary(o))
    const env = frozenLakeSpec.make(o)
    const rng = new Rng(3)
    for (let seed = 0; seed < 50; seed++) {
      const obs = env.reset(seed)
      // rows are plain text ("_P_G"); the tiny model's tokenizer reads them cell by cell, the
      // same tokens as the old spaced rows
      const ids = tok.encode(obs)
      expect(ids.length).toBeLessThanOrEqual(60)
      expect(ids).not.toContain(tok.unk)
      const spaced = obs
        .split("\n")
        .map((l) => (/^[P_OGX√]+$/.test(l) ? Array.from(l).join(" ") : l))
        .join("\n")
      expect([...ids]).toEqual([...tok.encode(spaced)])
      const t = env.teach({ epsilon: 0.5, reasoningNoise: 1 }, rng)
      expect(splitWords(t.reasoning).length).toBeLessThanOrEqual(40)
      for (const w of [...splitWords(t.reasoning), t.action]) expect(vocab.has(w)).toBe(true)
      const r = env.step("nonsense")
      expect(tok.encode(r.observation)).not.toContain(tok.unk)
      for (const w of splitWords(frozenLakeSpec.instructions(o))) expect(vocab.has(w)).toBe(true)
    }
  })

  test("teacher at ε=0 solves every deterministic level (200 seeds)", () => {
    const env = frozenLakeSpec.make(opts())
    const rng = new Rng(1)
    let solved = 0
    for (let seed = 0; seed < 200; seed++) {
      env.reset(10_000 + seed)
      let r
      while (!env.done) r = env.step(env.teach({ epsilon: 0, reasoningNoise: 0.5 }, rng).action)
      if (r?.info.success) solved++
    }
    expect(solved).toBe(200)
  })

  test("teacher on slippery ice still reaches the goal most of the time", () => {
    const env = frozenLakeSpec.make(opts({ successRate: 0.8 }))
    const rng = new Rng(2)
    let solved = 0
    for (let seed = 0; seed < 200; seed++) {
      env.reset(seed)
      let r
      while (!env.done) r = env.step(env.teach({ epsilon: 0, reasoningNoise: 0 }, rng).action)
      if (r?.info.success) solved++
    }
    expect(solved / 200).toBeGreaterThan(0.6)
  })

  test("teacher reasoning: the docs/design.md §10 format, facts and noise", () => {
    const env = frozenLakeSpec.make(opts({ map: CLASSIC }))
    env.reset(0)
    env.step("Down")
    const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
    expect(t.reasoning).toBe("player 1 0 goal 3 3 hole 1 1 path down right down right right")
    expect(t.facts).toEqual(["player 1 0", "goal 3 3", "hole 1 1"])
    expect(t.action).toBe("Down")
    const texts = new Set<string>()
    const rng = new Rng(9)
    for (let i = 0; i < 30; i++) texts.add(env.teach({ epsilon: 0, reasoningNoise: 1 }, rng).reasoning)
    expect(texts.size).toBeGreaterThan(5)
    // Action noise replaces the action, never the intended one.
    const acts = new Set<string>()
    for (let i = 0; i < 100; i++) {
      const n = env.teach({ epsilon: 1, reasoningNoise: 0 }, rng)
      acts.add(n.action)
      expect(n.intendedAction).toBe("Down")
    }
    expect(acts.size).toBe(4)
  })

  test("gradeReasoning: true facts, wrong facts, contradicting action, reordered and garbled text", () => {
    const env = frozenLakeSpec.make(opts({ map: CLASSIC }))
    env.reset(0)
    env.step("Down")
    const s = env.state()
    const g = (text: string, action: string) => env.gradeReasoning(s, text, action)
    expect(g("player 1 0 goal 3 3 hole 1 1 path down right", "Down")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(g("player 2 2 goal 3 3 hole 1 1 path down", "Down").factAccuracy).toBeCloseTo(2 / 3, 12)
    expect(g("player 1 0 goal 0 3 hole 2 2 path down", "Down").factAccuracy).toBeCloseTo(1 / 3, 12)
    expect(g("player 1 0 goal 3 3 path down right", "Left").consistency).toBe(0)
    expect(g("hole 1 1 path down right goal 3 3 player 1 0", "Down")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(g("The AGENT is at (1, 0); goal: 3 3 ... route down", "down")).toEqual({ factAccuracy: 1, consistency: 1 })
    // A plan into a hole is not a valid path even when the action follows it.
    expect(g("player 1 0 path right", "Right").consistency).toBe(0)
    expect(g("zz qq 1 2 3", "Down")).toEqual({ factAccuracy: 0, consistency: 0 })
    expect(g("", "")).toEqual({ factAccuracy: 0, consistency: 0 })
    expect(g("player 9 9 hole 0 0", "Down").factAccuracy).toBe(0)
  })

  test("gradeReasoning reads facts as an LLM writes them freely", () => {
    const env = frozenLakeSpec.make(opts({ map: CLASSIC }))
    env.reset(0)
    env.step("Down")
    const s = env.state()
    const g = (text: string, action: string) => env.gradeReasoning(s, text, action)
    const ok = { factAccuracy: 1, consistency: 1 }
    expect(g("The player is at row 1, column 0. The goal is at row 3, column 3. There is a hole at (1, 1), so I should go down then right.", "Down")).toEqual(ok)
    expect(g("I am at (1, 0). Goal: row 3 col 3. Holes at (1,1) and (1,3). Path: Down || Right", "Down")).toEqual(ok)
    // RAGEN's example wording: "To forbid the hole and go to the target, I should go left then go up."
    expect(g("To avoid the hole and go to the target, I should go down then go right.", "Down").consistency).toBe(1)
    expect(g("I am at (2, 2) and the goal is at (0, 3). Move down.", "Down")).toEqual({ factAccuracy: 0, consistency: 1 })
    expect(g("player at (1,0); holes at (1,1) and (2,2). I move right.", "Right")).toEqual({ factAccuracy: 2 / 3, consistency: 0 })
  })

  test("map helpers", () => {
    const m = parseMap(CLASSIC)
    if (typeof m === "string") throw new Error(m)
    expect(m.tiles[5]).toBe(HOLE)
    expect(shortestPath(m, 0)?.length).toBe(6)
    expect(shortestPath(m, 0)![0]).not.toBe(LEFT)
  })
})
