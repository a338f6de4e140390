/**
 * MetaMathQA's teacher and reasoning grader.
 *
 * Teacher reasoning: "quantities 3, 12, 5: 3 * 12 = 36, 36 + 5 = 41"; for a loaded dataset
 * record (no worked steps): "quantities …: the answer is 41".
 * Reasoning noise shuffles the listed quantities and varies the words ("given", "then", "so").
 *
 * Grading reads any text, the teacher's and an LLM's ("We have 3 boxes of 12 pencils: 3 * 12 = 36;
 * adding 5 gives 36 + 5 = 41. The answer is: 41") with Countdown's reader (numbers as numbers,
 * "1,000" too; equations "<expression> = c"):
 *  - Facts: each number listed after "quantities"/"given"/"numbers" (true iff the question states
 *    it, each occurrence once) and each equation (true iff its arithmetic holds exactly).
 *    factAccuracy = true / stated (0 when nothing is stated).
 *  - Consistency: 1 iff the action's answer equals the last value the reasoning computes: the
 *    result of its last equation, or the number after "answer" when that comes later / alone.
 */
import type { ReasoningGrade, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { spell } from "../countdown/expression.ts"
import { writeStep } from "./columns.ts"
import { eq, ofInt } from "../countdown/rational.ts"
import { evaluate } from "../countdown/expression.ts"
import { readExprEquations, readItems } from "../countdown/teacher.ts"
import { answersMatch, normalizeAnswer } from "./answer.ts"
import type { Problem } from "./problems.ts"

export interface MetaMathState {
  readonly question: string
  readonly answer: string
  readonly quantities: ReadonlyArray<number>
}

export const TEACHER_WORDS = "quantities given : , then so = + - * / the answer is"

/** The normalized form where the answer is a number ("5,000" → "5000", "15/2" stays), else as given. */
const spellAnswer = (a: string): string => {
  const n = normalizeAnswer(a)
  return /^-?\d+(?:[./]\d+)?$/.test(n) ? n : a
}

/** columns: write each step column by column (metamathqa-v2, columns.ts). */
export const teachMath = (p: Problem, options: TeacherOptions, rng: Rng, randomAction: (rng: Rng) => string, columns = false): TeacherStep => {
  const noisy = () => options.reasoningNoise > 0 && rng.bool(options.reasoningNoise)
  const qs = (noisy() ? rng.shuffle([...p.quantities]) : [...p.quantities]).slice(0, 12)
  const head = `${noisy() ? "given" : "quantities"} ${qs.map(spell).join(", ")}`
  let body: string
  if (p.steps.length === 0) body = `the answer is ${spellAnswer(p.answer)}`
  else {
    const eqs = p.steps.map((s) => (columns ? writeStep(s, spell) : `${spell(s.a)} ${s.op} ${spell(s.b)} = ${spell(s.c)}`))
    body = eqs[0]!
    for (let i = 1; i < eqs.length; i++) body += `${noisy() ? (rng.bool() ? " then" : " so") : ","} ${eqs[i]}`
  }
  const intendedAction = spellAnswer(p.answer)
  const action = options.epsilon > 0 && rng.bool(options.epsilon) ? randomAction(rng) : intendedAction
  const facts = [...p.quantities.map((q) => `quantity ${q}`), ...p.steps.map((s) => `${s.a} ${s.op} ${s.b} = ${s.c}`)]
  return { reasoning: `${head}: ${body}`, action, facts, intendedAction }
}

const LIST_WORDS = new Set(["quantities", "given", "numbers"])
const LIST_SEP = new Set([",", ";", "and", ":", "are"])
const OPS = new Set(["+", "-", "−", "–", "*", "×", "x", "/", "÷", "=", "times", "plus", "minus"])

export const gradeMath = (state: MetaMathState, reasoning: string, action: string): ReasoningGrade => {
  const items = readItems(reasoning)
  let stated = 0
  let right = 0
  const bag = [...state.quantities]
  let answerAt = -1
  let answerValue: string | undefined
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!
    if (it.k !== "w") continue
    if (LIST_WORDS.has(it.v)) {
      let j = i + 1
      while (j < items.length) {
        const x = items[j]!
        if (x.k === "num") {
          const nx = items[j + 1]
          if (nx && nx.k === "w" && OPS.has(nx.v)) break
          stated++
          const k = bag.indexOf(x.v)
          if (k >= 0) {
            bag.splice(k, 1)
            right++
          }
        } else if (!LIST_SEP.has(x.v)) break
        j++
      }
      i = j - 1
    } else if (it.v === "answer") {
      let j = i + 1
      while (j < items.length && items[j]!.k === "w" && ["is", ":", "="].includes(items[j]!.v as string)) j++
      const x = items[j]
      if (x && x.k === "num") {
        answerAt = i
        // "1 5 / 2" and "7 . 5" are one answer (a fraction, a decimal).
        const sep = items[j + 1]
        const y = items[j + 2]
        answerValue = sep && sep.k === "w" && (sep.v === "/" || sep.v === ".") && y && y.k === "num" ? `${x.v}${sep.v}${y.v}` : String(x.v)
      }
    }
  }
  const eqs = readExprEquations(items)
  for (const e of eqs) {
    stated++
    const v = evaluate(e.lhs)
    if (v !== undefined && eq(v, ofInt(e.c))) right++
  }
  const lastEq = eqs[eqs.length - 1]
  const reached = answerValue !== undefined && (!lastEq || answerAt > lastEq.at) ? answerValue : lastEq?.c
  const consistency = reached !== undefined && answersMatch(action, String(reached)) ? 1 : 0
  return { factAccuracy: stated === 0 ? 0 : right / stated, consistency }
}
