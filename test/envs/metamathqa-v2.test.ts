/**
 * metamathqa-v2 (docs/decisions.md#issue-26): the teacher works sums, differences and products by one digit column
 * by column; every column line is true arithmetic, the traces fit the completion cap, the grader
 * gives the teacher full marks, and v1's traces are unchanged.
 */
import { describe, expect, test } from "bun:test"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { columnLines, writeStep } from "../../envs/metamathqa/columns.ts"
import { metaMathQASpec, metaMathQAV2Spec } from "../../envs/metamathqa/env.ts"
import type { Step } from "../../envs/metamathqa/problems.ts"
import { Tokenizer } from "../../plugins/tinylm/tokenizer.ts"
import { checkEnv } from "../helpers/check-env.ts"

const step = (a: number, op: Step["op"], b: number): Step => ({ a, op, b, c: op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b })
const lhsValue = (lhs: string): number => {
  const t = lhs.trim().split(" ")
  let v = Number(t[0])
  for (let i = 1; i < t.length; i += 2) {
    const x = Number(t[i + 1])
    v = t[i] === "+" ? v + x : t[i] === "-" ? v - x : v * x
  }
  return v
}

describe("metamathqa-v2 column arithmetic", () => {
  test("worked examples", () => {
    expect(writeStep(step(36, "+", 5), String)).toBe("6 + 5 = 11 , 3 + 1 = 4 , 36 + 5 = 41")
    expect(writeStep(step(52, "-", 17), String)).toBe("12 - 7 = 5 , 5 - 1 - 1 = 3 , 52 - 17 = 35")
    expect(writeStep(step(36, "*", 7), String)).toBe("6 * 7 = 42 , 3 * 7 + 4 = 25 , 36 * 7 = 252")
    expect(writeStep(step(140, "*", 35), String)).toBe("140 * 35 = 4900")
    expect(writeStep(step(60, "/", 5), String)).toBe("60 / 5 = 12")
  })

  test("every column line is a true equation of one-digit terms (plus a carry or borrow), and the whole equation closes the step", () => {
    const rng = new Rng(11)
    for (let k = 0; k < 3000; k++) {
      const op = rng.pick(["+", "-", "*"] as const)
      const a = rng.range(0, 999)
      const b = op === "*" ? rng.range(0, 9) : rng.range(0, op === "-" ? a : 999)
      const s = step(a, op, b)
      for (const l of columnLines(s)) {
        const [lhs, rhs] = l.split(" = ")
        expect(lhsValue(lhs!)).toBe(Number(rhs))
        // Operands: one digit, a borrowed 10 + digit, or a carry below 10.
        for (const t of lhs!.split(" ").filter((_, i) => i % 2 === 0)) expect(Number(t)).toBeLessThan(op === "-" ? 20 : 10)
      }
      expect(writeStep(s, String).endsWith(`${a} ${op} ${b} = ${s.c}`)).toBe(true)
    }
  })
})

describe("metamathqa-v2 env", () => {
  const o = decodeSync(metaMathQAV2Spec.options, {})
  if (!o.ok) throw new Error(o.message)
  test("passes checkEnv; Markov, a 100-token completion cap", () => {
    checkEnv(metaMathQAV2Spec, {})
    expect(metaMathQAV2Spec.markov).toBe(true)
    expect(metaMathQAV2Spec.maxTokens).toBe(100)
  })

  test("teacher traces grade 1 / 1, fit the cap and need no unknown token", () => {
    const env = metaMathQAV2Spec.make(o.value)
    const tok = Tokenizer.fromVocabulary(metaMathQAV2Spec.vocabulary(o.value))
    const rng = new Rng(2)
    for (let s = 0; s < 300; s++) {
      env.reset(s)
      const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, rng)
      expect(env.gradeReasoning(env.state(), t.reasoning, t.action)).toEqual({ factAccuracy: 1, consistency: 1 })
      const ids = tok.encode(`${t.reasoning} </think> <answer> ${t.action} </answer>`)
      expect(ids.length).toBeLessThanOrEqual(100)
      expect([...ids].includes(tok.unk)).toBe(false)
      expect(env.step(t.action).info.success).toBe(true)
    }
  })

  test("v1's traces are unchanged (whole equations)", () => {
    const v1 = decodeSync(metaMathQASpec.options, {})
    if (!v1.ok) throw new Error(v1.message)
    const env = metaMathQASpec.make(v1.value)
    env.reset(1)
    expect(env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0)).reasoning).toMatch(/^quantities [\d, ]+: \d+ [-+*/] \d+ = \d+(, \d+ [-+*/] \d+ = \d+)*$/)
  })
})
