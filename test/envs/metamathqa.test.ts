import { describe, expect, test } from "bun:test"
import { withTimeLimit } from "../../core/env/time-limit.ts"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { answersMatch, normalizeAnswer } from "../../envs/metamathqa/answer.ts"
import { loadMetaMathQA } from "../../envs/metamathqa/dataset.ts"
import { metaMathQASpec } from "../../envs/metamathqa/env.ts"
import { TEMPLATE_NAMES } from "../../envs/metamathqa/problems.ts"
import { gradeMath } from "../../envs/metamathqa/teacher.ts"
import { checkEnv } from "../helpers/check-env.ts"

const FIXTURE = new URL("../fixtures/metamathqa-sample.jsonl", import.meta.url).pathname
const opts = (raw: unknown = {}) => {
  const r = decodeSync(metaMathQASpec.options, raw)
  if (!r.ok) throw new Error(r.message)
  return r.value
}

describe("answer normalization", () => {
  test("spaces, commas, $, %, units and trailing .0", () => {
    expect(normalizeAnswer(" 2 5 ")).toBe("25")
    expect(normalizeAnswer("$1,250.00")).toBe("1250")
    expect(answersMatch("$1,250.00", "1250")).toBe(true)
    expect(answersMatch("12.0", "12")).toBe(true)
    expect(answersMatch("12 dollars", "12")).toBe(true)
    expect(answersMatch("The answer is: 40%", "40")).toBe(true)
    expect(answersMatch("7.5", "\\frac{15}{2}")).toBe(true)
    expect(answersMatch("15/2", "7.5")).toBe(true)
    expect(answersMatch("0.5", "1/2")).toBe(true)
    expect(answersMatch("13", "12")).toBe(false)
    expect(answersMatch("", "12")).toBe(false)
    expect(answersMatch("twelve", "12")).toBe(false)
  })
})

describe("metamathqa-v1 (generator)", () => {
  test("passes checkEnv", () => checkEnv(metaMathQASpec, {}))
  test("covers every template; the teacher solves every problem; answers are exact integers", () => {
    const env = metaMathQASpec.make(opts())
    const seen = new Set<string>()
    for (let s = 0; s < 400; s++) {
      env.reset(s)
      const st = env.state() as { answer: string; question: string }
      expect(st.answer).toMatch(/^\d+$/)
      seen.add(st.question.split(" ").slice(0, 2).join(" "))
      const t = env.teach({ epsilon: 0, reasoningNoise: 0.5 }, new Rng(s))
      expect(env.gradeReasoning(env.state(), t.reasoning, t.action)).toEqual({ factAccuracy: 1, consistency: 1 })
      const r = env.step(t.action)
      expect(r.reward).toBe(1)
      expect(r.info.success).toBe(true)
      expect(r.terminated).toBe(true)
    }
    expect(TEMPLATE_NAMES.length).toBeGreaterThanOrEqual(6)
    expect(seen.size).toBeGreaterThanOrEqual(6)
  })
  test("wrong answer ends a single-attempt episode with reward 0", () => {
    const env = metaMathQASpec.make(opts())
    env.reset(1)
    const r = env.step("9 9 9 9 9")
    expect(r).toMatchObject({ reward: 0, terminated: true, truncated: false, info: { success: false, valid: true } })
  })
  test("retries: reward 1/2^k on attempt k, and the budget is maxAttempts", () => {
    const env = metaMathQASpec.make(opts({ maxAttempts: 3 }))
    env.reset(2)
    const answer = (env.state() as { answer: string }).answer
    expect(env.step("99999").terminated).toBe(false)
    expect(env.step("99998").observation).toContain("try again")
    const r = env.step(answer)
    expect(r.reward).toBe(0.25)
    expect(r.terminated).toBe(true)
    // the budget is the harness's time limit: maxAttempts actions
    const limited = withTimeLimit(metaMathQASpec.make(opts({ maxAttempts: 3 })), 3)
    limited.reset(2)
    for (let k = 0; k < 3; k++) limited.step("<junk>")
    expect(limited.done).toBe(true)
  })
  test("reasoning grading on free text", () => {
    const st = { question: "", answer: "41", quantities: [3, 12, 5] }
    expect(gradeMath(st, "quantities 3, 12, 5: 3 * 12 = 36, 36 + 5 = 41", "41")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeMath(st, "given 3, 12 and 5. 3 x 12 = 36 so 36 + 5 = 41", "41")).toEqual({ factAccuracy: 1, consistency: 1 })
    const bad = gradeMath(st, "quantities 3, 7: 3 * 7 = 22", "41")
    expect(bad.factAccuracy).toBeCloseTo(1 / 3)
    expect(bad.consistency).toBe(0)
    expect(gradeMath(st, "the answer is 41", "41").consistency).toBe(1)
    // what an LLM writes: prose, a one-line expression, MetaMathQA's "The answer is: X"
    const llm = "Lena has 3 boxes with 12 pencils each, so 3 * 12 = 36 pencils. Adding 5 more gives 36 + 5 = 41.\nThe answer is: 41"
    expect(gradeMath(st, llm, "41")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeMath(st, "In total 3 × 12 + 5 = 41 pencils.", "41")).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeMath(st, "3 * 12 = 38, so 38 + 5 = 43. The answer is: 43", "41")).toEqual({ factAccuracy: 0.5, consistency: 0 })
    for (const t of ["", "zz qq 1 2 3", "= + =", "🙂".repeat(300), "9".repeat(30000)]) {
      const g = gradeMath(st, t, "41")
      expect(g.factAccuracy).toBeGreaterThanOrEqual(0)
      expect(g.factAccuracy).toBeLessThanOrEqual(1)
    }
  })
})

describe("metamathqa-v1 (dataset file)", () => {
  test("loads JSONL records with 'The answer is: X' and skips the rest", () => {
    const d = loadMetaMathQA(FIXTURE)
    expect(d.problems.length).toBe(5)
    expect(d.skipped).toBe(1)
    expect(d.problems.map((p) => p.answer)).toEqual(["19", "20", "\\frac{15}{2}", "5,000", "8"])
  })
  test("passes checkEnv on the fixture; the teacher answers every record right", () => {
    checkEnv(metaMathQASpec, { dataPath: FIXTURE }, [0, 1, 2])
    const env = metaMathQASpec.make(opts({ dataPath: FIXTURE }))
    for (let s = 0; s < 30; s++) {
      env.reset(s)
      expect(env.step(env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(s)).action).reward).toBe(1)
    }
    expect(metaMathQASpec.vocabulary(opts({ dataPath: FIXTURE }))).toContain("marbles")
  })
  test("a missing file is an options error naming dataPath", () => {
    const r = decodeSync(metaMathQASpec.options, { dataPath: "/nonexistent/file.jsonl" })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toContain("dataPath")
  })
})
