import { describe, expect, test } from "bun:test"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { countdownSpec, scoreAnswer } from "../../envs/countdown/env.ts"
import { evaluate, leaves, parseExpression, render } from "../../envs/countdown/expression.ts"
import { show } from "../../envs/countdown/rational.ts"
import { ALIGN, chainPlan, gradeCountdown, signTrace } from "../../envs/countdown/teacher.ts"
import { buildPrompt, formatCompletion } from "../../core/prompt.ts"
import { Tokenizer } from "../../plugins/tinylm/tokenizer.ts"
import { withTimeLimit } from "../../core/env/time-limit.ts"
import { checkEnv } from "../helpers/check-env.ts"

const options = () => {
  const r = decodeSync(countdownSpec.options, {})
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const value = (s: string) => {
  const e = parseExpression(s)
  return e ? (evaluate(e) ? show(evaluate(e)!) : "undef") : "parse-error"
}

describe("countdown expression parser", () => {
  test("precedence, associativity, parentheses and operator spellings", () => {
    expect(value("3 + 5 * 7")).toBe("38")
    expect(value("(3 + 5) * 7")).toBe("56")
    expect(value("10 - 4 - 3")).toBe("3")
    expect(value("100 / 10 / 5")).toBe("2")
    expect(value("3 × 4 ÷ 6")).toBe("2")
    expect(value("3 x 4 − 2")).toBe("10")
    expect(value("7 / 2")).toBe("7/2")
    expect(value("((2))")).toBe("2")
  })
  test("numbers are written as numbers; two numbers side by side are a syntax error", () => {
    expect(value("25 + 1")).toBe("26")
    expect(leaves(parseExpression("(16 + 65) / 2")!)).toEqual([16, 65, 2])
    expect(leaves(parseExpression("( 16 + 65 ) / 2")!)).toEqual([16, 65, 2])
    expect(parseExpression("2 5 + 1")).toBeUndefined()
  })
  test("division is exact in rationals; division by zero has no value", () => {
    expect(value("1 / 3 * 3")).toBe("1")
    expect(value("5 / (3 - 3)")).toBe("undef")
  })
  test("rejects non-expressions without throwing", () => {
    for (const bad of ["", "3 +", "(3 + 4", "3 + 4)", "-3 + 4", "3 ** 4", "eval(1)", "1e3", "3.5 + 1", "()", "x".repeat(1 << 20), "(".repeat(500) + "1" + ")".repeat(500)]) {
      expect(parseExpression(bad)).toBeUndefined()
    }
  })
  test("render round-trips the tree's value with minimal parentheses", () => {
    const rng = new Rng(3)
    const env = countdownSpec.make(options())
    for (let s = 0; s < 200; s++) {
      env.reset(s)
      const a = env.randomAction(rng)
      const e = parseExpression(a)!
      expect(e).toBeDefined()
      expect(render(e)).toBe(a)
    }
    expect(render(parseExpression("10 - (4 - 3)")!)).toBe("10 - (4 - 3)")
    expect(render(parseExpression("(2 * 3) + 4")!)).toBe("2 * 3 + 4")
  })
})

describe("countdown-v1", () => {
  test("passes checkEnv", () => checkEnv(countdownSpec, {}))
  test("reward rule: 1 exact, 0.1 right numbers wrong value, 0 wrong numbers", () => {
    const st = { numbers: [3, 5, 7], target: 22 }
    expect(scoreAnswer(st, "3 * 5 + 7").reward).toBe(1)
    expect(scoreAnswer(st, "7 + 5 × 3").reward).toBe(1)
    expect(scoreAnswer(st, "3 + 5 + 7").reward).toBe(0.1)
    expect(scoreAnswer(st, "7 / (5 - 5) + 3").reward).toBe(0) // numbers wrong (5 twice)
    expect(scoreAnswer({ numbers: [3, 3, 7], target: 1 }, "7 / (3 - 3)").reward).toBe(0.1) // division by zero: right numbers, no value
    expect(scoreAnswer({ numbers: [3, 3, 7], target: 1 }, "7 / (3 - 3) * 3").reward).toBe(0) // one 3 too many
    expect(scoreAnswer(st, "3 * 5 + 7 + 0").reward).toBe(0)
    expect(scoreAnswer(st, "22").reward).toBe(0)
    expect(scoreAnswer(st, "hello").valid).toBe(false)
  })
  test("every generated instance is solvable by its teacher, with 3–4 numbers within range", () => {
    const env = countdownSpec.make(options())
    let solved = 0
    const n = 500
    for (let s = 0; s < n; s++) {
      env.reset(s)
      const st = env.state() as { numbers: number[]; target: number }
      expect(st.numbers.length).toBeGreaterThanOrEqual(3)
      expect(st.numbers.length).toBeLessThanOrEqual(4)
      expect(st.target).toBeGreaterThanOrEqual(1)
      expect(st.target).toBeLessThanOrEqual(100)
      const t = env.teach({ epsilon: 0, reasoningNoise: 0.5 }, new Rng(s))
      const g = env.gradeReasoning(st, t.reasoning, t.action)
      expect(g).toEqual({ factAccuracy: 1, consistency: 1 })
      if (env.step(t.action).info.success) solved++
    }
    expect(solved).toBe(n)
  })
  test("teacher scratchpad: sum, S − T, halve, look up; the action adds all but the neg list", () => {
    const trace = (numbers: number[], target: number) => {
      const t = signTrace({ numbers, target, steps: [], solution: { kind: "num", value: 0 } })
      return { eqs: t.equations.map((e) => `${e.a} ${e.op} ${e.b} = ${e.c}`), neg: t.neg, action: render(t.solution) }
    }
    // seed 123's numbers: h = 101 is no number, q = 156 = 59 + 97 (the first sum) ⇒ subtract the other pair
    expect(trace([59, 97, 33, 68], 55)).toEqual({
      eqs: ["59 + 97 = 156", "156 + 33 = 189", "189 + 68 = 257", "257 - 55 = 202", "202 / 2 = 101", "101 + 55 = 156"],
      neg: [33, 68],
      action: "59 + 97 - 33 - 68"
    })
    expect(trace([3, 5, 7], 5)).toEqual({ eqs: ["3 + 5 = 8", "8 + 7 = 15", "15 - 5 = 10", "10 / 2 = 5"], neg: [5], action: "3 + 7 - 5" }) // h is a number
    expect(trace([2, 3, 9], 4)).toEqual({ eqs: ["2 + 3 = 5", "5 + 9 = 14", "14 - 4 = 10", "10 / 2 = 5", "5 + 4 = 9"], neg: [2, 3], action: "9 - 2 - 3" }) // q is the one added
    expect(trace([3, 5, 7], 15).neg).toEqual([]) // h = 0: all added
    // h = 50, q = 55 = 10 + 45 (the third pair holding the first number): subtract the other pair
    expect(trace([10, 20, 30, 45], 5)).toEqual({
      eqs: ["10 + 20 = 30", "30 + 30 = 60", "60 + 45 = 105", "105 - 5 = 100", "100 / 2 = 50", "50 + 5 = 55", "10 + 30 = 40", "10 + 45 = 55"],
      neg: [20, 30],
      action: "10 + 45 - 20 - 30"
    })
    // S − T odd: no ± sum; the chain with * follows the failed check
    const f = trace([3, 5, 7], 56)
    expect(f.neg).toBeUndefined()
    expect(f.eqs).toEqual(["3 + 5 = 8", "8 + 7 = 15", "3 + 5 = 8", "8 * 7 = 56"])
    expect(f.action).toBe("(3 + 5) * 7")
  })
  test("teacher scratchpad text: digits reversed, S − T at the same absolute position in every instance", () => {
    const env = countdownSpec.make(options())
    const tok = Tokenizer.fromVocabulary(countdownSpec.vocabulary(options()))
    expect(env.reset(123)).toBe("numbers 59, 97, 33, 68 target 55")
    const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
    expect(t.reasoning).toBe("rev . . 9 5 0 + 7 9 0 = 6 5 1 + 3 3 0 = 9 8 1 + 8 6 0 = 7 5 2 - 5 5 0 = 2 ' 0 ' 2 / 2 = 1 0 1 + 5 5 0 = 6 5 1 neg 33, 68")
    for (let s = 0; s < 200; s++) {
      const obs = env.reset(s)
      const c = formatCompletion(env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(s)).reasoning, "1")
      const prompt = tok.encode(buildPrompt({ observation: obs }))
      const ids = [...prompt, ...tok.encode(c)]
      expect(ids).not.toContain(tok.unk)
      // 3 numbers: one chained sum ("+ d d d = e e e", 8 tokens) fewer, so they start 8 later
      const k = (env.state() as { numbers: number[] }).numbers.length
      expect(ids.findIndex((id, i) => i >= prompt.length && /^[0-9]$/.test(tok.words[id]!))).toBe(ALIGN + 8 * (4 - k))
    }
  })
  test("chainPlan (the fallback): a canonical chain whose action reads the equations' operands left to right", () => {
    // + − only, given order first: 5 9 + 9 7 − 3 3 − 6 8 = 5 5 (seed 123's numbers).
    const p = chainPlan([59, 97, 33, 68], 55)!
    expect(p.steps.map((s) => `${s.a} ${s.op} ${s.b} = ${s.c}`)).toEqual(["59 + 97 = 156", "156 - 33 = 123", "123 - 68 = 55"])
    expect(render(p.solution)).toBe("59 + 97 - 33 - 68")
    // * only when + − cannot: (3 + 5) * 7 is not reachable with + − alone.
    expect(render(chainPlan([3, 5, 7], 56)!.solution)).toBe("(3 + 5) * 7")
    const env = countdownSpec.make(options())
    let chained = 0
    for (let s = 0; s < 300; s++) {
      env.reset(s)
      const st = env.state() as { numbers: number[]; target: number }
      const q = chainPlan(st.numbers, st.target)
      if (!q) continue
      chained++
      expect(leaves(q.solution)).toEqual([q.steps[0]!.a, ...q.steps.map((x) => x.b)])
      expect(show(evaluate(q.solution)!)).toBe(String(st.target))
    }
    expect(chained).toBeGreaterThan(285) // ~99% have a chain without reverse operands
  })
  test("invalid action: flagged, not applied; the harness's budget of 1 ⇒ truncated", () => {
    const env = withTimeLimit(countdownSpec.make(options()), countdownSpec.actionBudget)
    env.reset(4)
    const r = env.step("I think the answer is 12")
    expect(r.info.valid).toBe(false)
    expect(r.reward).toBe(0)
    expect(r.terminated).toBe(false)
    expect(r.truncated).toBe(true)
    expect(r.observation).toContain("no valid action was taken")
  })
  test("action noise replaces the action but keeps the reasoning", () => {
    const env = countdownSpec.make(options())
    env.reset(9)
    const clean = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(1))
    let replaced = 0
    for (let k = 0; k < 50; k++) {
      const t = env.teach({ epsilon: 1, reasoningNoise: 0 }, new Rng(k))
      expect(t.reasoning).toBe(clean.reasoning)
      expect(t.intendedAction).toBe(clean.action)
      if (t.action !== clean.action) replaced++
    }
    expect(replaced).toBeGreaterThan(40)
  })
  test("reasoning noise varies the wording", () => {
    const env = countdownSpec.make(options())
    env.reset(11)
    const texts = new Set<string>()
    for (let k = 0; k < 30; k++) texts.add(env.teach({ epsilon: 0, reasoningNoise: 1 }, new Rng(k)).reasoning)
    expect(texts.size).toBeGreaterThan(3)
  })
})

describe("countdown gradeReasoning on free text", () => {
  const st = { numbers: [3, 5, 7], target: 22 }
  test("teacher-style text grades as faithful; compact digits also read", () => {
    expect(gradeCountdown(st, "numbers 3, 5, 7 target 22: 3 * 5 = 15, 15 + 7 = 22", "3 * 5 + 7")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeCountdown(st, "target 22 ; given 7, 5 and 3. 3x5=15 then 15+7=22", "(3*5)+7")).toEqual({ factAccuracy: 1, consistency: 1 })
  })
  test("a rev scratchpad reads its equations least significant digit first; neg lists as written", () => {
    const s4 = { numbers: [59, 97, 33, 68], target: 55 }
    const teacher = "rev . . 9 5 0 + 7 9 0 = 6 5 1 + 3 3 0 = 9 8 1 + 8 6 0 = 7 5 2 - 5 5 0 = 2 0 2 / 2 = 1 0 1 + 5 5 0 = 6 5 1 neg 3 3 , 6 8"
    expect(gradeCountdown(s4, teacher, "59 + 97 - 33 - 68")).toEqual({ factAccuracy: 1, consistency: 1 })
    // borrow marks ("^" borrow, "'" none) between a difference's digits are read through
    expect(gradeCountdown(s4, teacher.replace("2 0 2 /", "2 ' 0 ' 2 /"), "59 + 97 - 33 - 68")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeCountdown({ numbers: [9, 9, 8], target: 6 }, "rev 9 0 0 + 9 0 0 = 8 1 0 + 8 0 0 = 6 2 0 - 6 0 0 = 0 ' 2 ' 0 / 2 = 0 1 0", "9 + 9 - 8").factAccuracy).toBe(1)
    expect(gradeCountdown({ numbers: [20, 3], target: 5 }, "rev 0 2 0 + 3 0 0 = 3 2 0 - 5 0 0 = 8 ^ 1 ' 0", "20 - 3").factAccuracy).toBe(1)
    // consistency: Σ numbers − 2·Σ neg = 257 − 202 = 55; another order with that value is consistent too
    expect(gradeCountdown(s4, teacher, "97 - 68 + 59 - 33").consistency).toBe(1)
    expect(gradeCountdown(s4, teacher, "59 + 97 + 33 - 68").consistency).toBe(0)
    // 59 + 97 written most significant digit first reads as 95 + 79 = 651: false
    expect(gradeCountdown(s4, "rev 5 9 + 9 7 = 1 5 6", "59 + 97 - 33 - 68").factAccuracy).toBe(0)
    // a wrong halving (202 / 2 = 102); 102 + 55 = 157 holds but 102 is not grounded: 6 of 8 facts
    const wrong = "rev 9 5 0 + 7 9 0 = 6 5 1 + 3 3 0 = 9 8 1 + 8 6 0 = 7 5 2 - 5 5 0 = 2 0 2 / 2 = 2 0 1 + 5 5 0 = 7 5 1 neg 3 3 , 6 8"
    expect(gradeCountdown(s4, wrong, "59 + 97 - 33 - 68")).toEqual({ factAccuracy: 6 / 8, consistency: 1 })
    // a neg number that is not given: 2 of 3 facts; 257 − 2·45 = 167 is not the action's 55
    expect(gradeCountdown(s4, "rev 9 5 0 + 7 9 0 = 6 5 1 neg 3 3 , 1 2", "59 + 97 - 33 - 68")).toEqual({ factAccuracy: 2 / 3, consistency: 0 })
    // the teacher's neg list is written as numbers now; digit-spaced lists still read inside a scratchpad
    expect(gradeCountdown(s4, teacher.replace("neg 3 3 , 6 8", "neg 33, 68"), "59 + 97 - 33 - 68")).toEqual({ factAccuracy: 1, consistency: 1 })
    // without "rev" the same digits read as written
    expect(gradeCountdown(s4, "9 5 0 + 7 9 0 = 6 5 1", "59").factAccuracy).toBe(0)
  })
  test("false facts count against accuracy", () => {
    // numbers 3 5 8: 8 wrong; target 21 wrong; 3*5=15 true; 15+7=21 false.
    const g = gradeCountdown(st, "numbers 3, 5, 8 target 21: 3 * 5 = 15, 15 + 7 = 21", "3 * 5 + 7")
    expect(g.factAccuracy).toBeCloseTo(3 / 6)
    expect(g.consistency).toBe(0) // the derivation reaches 21, the action is 22
  })
  test("free LLM text: RAGEN's example wording, lists in brackets, a restated solution, chains", () => {
    const ragen = "To find an equation using [3, 5, 7] to get 22. Let's check 3 * 5 = 15, 15 + 7 = 22. So the answer is 3 * 5 + 7 = 22."
    expect(gradeCountdown(st, ragen, "3 * 5 + 7")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeCountdown(st, "Target: 22, nums: [3, 5, 7]. (7 + 5) * 3 = 36, too big; 5 x 3 = 15 and 15 + 7 = 22", "5*3+7")).toEqual({ factAccuracy: 1, consistency: 1 })
    // a false step (3 * 5 = 16) and an action that does not follow from the last result
    const g = gradeCountdown(st, "nums: 3, 5, 7. 3 * 5 = 16, then 16 + 7 = 23", "3 * 5 + 7")
    expect(g.factAccuracy).toBeCloseTo(3 / 5)
    expect(g.consistency).toBe(0)
    // 1,000-style numbers read as one number
    expect(gradeCountdown({ numbers: [1000, 24], target: 976 }, "1,000 - 24 = 976", "1000 - 24")).toEqual({ factAccuracy: 1, consistency: 1 })
  })
  test("an equation on unavailable values is not a fact of this state", () => {
    const g = gradeCountdown(st, "2 * 4 = 8", "3 + 5 + 7")
    expect(g.factAccuracy).toBe(0)
  })
  test("garbled, empty and hostile text never throws and grades low", () => {
    for (const t of ["", "zz qq 1 2 3", "= = + 3", "numbers", "target", "🙂".repeat(500), "\u0000\u00ff", "1".repeat(50000)]) {
      const g = gradeCountdown(st, t, "3 * 5 + 7")
      expect(g.factAccuracy).toBeGreaterThanOrEqual(0)
      expect(g.factAccuracy).toBeLessThanOrEqual(1)
      expect([0, 1]).toContain(g.consistency)
    }
    expect(gradeCountdown(st, "zz qq", "3 * 5 + 7")).toEqual({ factAccuracy: 0, consistency: 0 })
    expect(gradeCountdown(st, "numbers 3, 5, 7 target 22", "garbage").consistency).toBe(0)
    expect(gradeCountdown(st, "numbers 3, 5, 7 target 22", "3 * 5 + 7").consistency).toBe(1)
  })
})
