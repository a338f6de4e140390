/**
 * MetaMathQA (metamathqa-v1): answer a math word problem with its final number.
 *
 * Description: by default a generated grade-school word problem (problems.ts: 8 templates —
 *   shopping, rate, ages, sharing, percent, leftover, change, work — with exact integer
 *   answers); with `dataPath`, a record of the real MetaMathQA JSON/JSONL file (dataset.ts),
 *   picked by seed.
 * Observation: the question as plain text, as RAGEN shows the dataset's `query`
 *   (ragen/env/metamathqa/env.py `reset`).
 * Action: the final answer; graded by normalized exact match (answer.ts: spaces, ",", "$", "%",
 *   trailing units and ".0" dropped; numeric equality for integers, decimals and fractions).
 *   Text that is empty, over 200 characters, non-ASCII or without a digit is invalid
 *   (a letter answer is accepted only for a dataset record whose answer has no digit).
 * Rewards: 1 for a correct answer on the first attempt. With maxAttempts k > 1 (RAGEN's
 *   reference allows retries) a correct answer on attempt j (0-based) earns 1/2^j and a wrong
 *   one lets the agent try again; the action budget is then k (actionBudgetOf; the spec's
 *   actionBudget is the paper default, 1).
 * Episode end: terminated on a correct answer or a wrong final attempt; the harness truncates
 *   at the action budget (core/env/time-limit.ts), e.g. when it is spent on invalid text.
 * Arguments: maxAttempts 1, dataPath "" (generator).
 * Version history: v1 — first version. v2 — the teacher writes each addition, subtraction and
 *   multiplication by one digit column by column (columns.ts), so a model copies a procedure of
 *   one-digit facts instead of recalling whole results; Markov (no instructions in a short
 *   context); completion cap 100 tokens. Problems, answers and grading are v1's.
 */
import { Schema } from "effect"
import type { Env, EnvSpec, ReasoningGrade, StepResult, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import { derive, type Rng, withDefault as dflt } from "../../core/host.ts"
import { DIGITS, vocabularyOf } from "../common/text.ts"
import { spell } from "../countdown/expression.ts"
import { answersMatch, MAX_ANSWER_CHARS, normalizeAnswer } from "./answer.ts"
import { loadMetaMathQA } from "./dataset.ts"
import { generateProblem, TEMPLATE_WORDS, type Problem } from "./problems.ts"
import { gradeMath, teachMath, TEACHER_WORDS, type MetaMathState } from "./teacher.ts"

export const MetaMathQAOptions = Schema.Struct({
  /** Attempts per problem; attempt j (0-based) earns 1/2^j when correct. */
  maxAttempts: dflt(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10 })), 1),
  /** Path of a MetaMathQA .json/.jsonl file; "" uses the built-in generator. */
  dataPath: dflt(
    Schema.String.check(
      Schema.makeFilter((p: string) => {
        if (p === "") return undefined
        try {
          loadMetaMathQA(p)
          return undefined
        } catch (e) {
          return `dataPath: ${(e as Error).message}`
        }
      })
    ),
    ""
  )
})
export type MetaMathQAOptions = typeof MetaMathQAOptions.Type

export const MAX_TURNS = 5
export const ACTION_BUDGET = 1
const INVALID_LINE = "no valid action was taken"

/** An answer must hold a digit (or, for a dataset record whose answer has none, a letter). */
const isValidAnswer = (a: string, reference: string): boolean => {
  if (typeof a !== "string" || a.length === 0 || a.length > MAX_ANSWER_CHARS) return false
  if (!/^[\x20-\x7e]*$/.test(a) || /[<>]/.test(a)) return false
  const n = normalizeAnswer(a)
  return /\d/.test(n) || (!/\d/.test(reference) && /[a-z]/i.test(n))
}

class MetaMathQAEnv implements Env<MetaMathState> {
  private readonly data: ReadonlyArray<Problem> | undefined
  private problem!: Problem
  private attempts = 0
  private terminated = false

  constructor(
    readonly id: string,
    private readonly options: MetaMathQAOptions,
    private readonly columns: boolean
  ) {
    this.data = options.dataPath === "" ? undefined : loadMetaMathQA(options.dataPath).problems
    this.reset(0)
  }

  get done(): boolean {
    return this.terminated
  }

  reset(seed: number): string {
    const rng = derive(seed, "metamathqa")
    this.problem = this.data ? this.data[rng.int(this.data.length)]! : generateProblem(rng)
    this.attempts = 0
    this.terminated = false
    return this.problem.question
  }

  step(action: string): StepResult {
    const valid = isValidAnswer(action, this.problem.answer)
    if (this.done) return { observation: this.problem.question, reward: 0, terminated: true, truncated: false, info: { success: false, valid, effective: false } }
    let reward = 0
    let success = false
    let observation: string
    if (valid) {
      const attempt = this.attempts++
      success = answersMatch(action, this.problem.answer)
      if (success) reward = 1 / 2 ** attempt
      if (success || this.attempts >= this.options.maxAttempts) {
        this.terminated = true
        observation = `${this.problem.question}\nanswer ${success ? "correct" : "wrong"}`
      } else observation = `wrong answer, try again\n${this.problem.question}`
    } else observation = `${INVALID_LINE}\n${this.problem.question}`
    return { observation, reward, terminated: this.terminated, truncated: false, info: { success, valid, effective: valid, attempt: this.attempts } }
  }

  state(): MetaMathState {
    return { question: this.problem.question, answer: this.problem.answer, quantities: [...this.problem.quantities] }
  }

  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    return teachMath(this.problem, options, rng, (r) => this.randomAction(r), this.columns)
  }

  gradeReasoning(state: MetaMathState, reasoning: string, action: string): ReasoningGrade {
    return gradeMath(state, reasoning, action)
  }

  /** A random non-negative integer answer in 0..200 (valid; rarely right). */
  randomAction(rng: Rng): string {
    return spell(rng.int(201))
  }
}

const instructions = (o: MetaMathQAOptions): string =>
  [
    "Solve the math word problem.",
    "Answer with the final number only. Reward 1 for the exact answer, else 0.",
    ...(o.maxAttempts > 1 ? ["A wrong answer may be retried; each retry halves the reward."] : [])
  ].join("\n")

const metaMathQAVersion = (id: string, columns: boolean): EnvSpec<MetaMathQAOptions> => ({
  id,
  externalOptions: [{ path: ["dataPath"], kind: "file" }],
  description: `MetaMathQA: grade-school math word problems (8 generated templates, or the real MetaMathQA file via dataPath); normalized exact match${columns ? "; the teacher works each sum, difference and product column by column" : ""}`,
  options: MetaMathQAOptions,
  maxTurns: MAX_TURNS,
  actionBudget: ACTION_BUDGET,
  // Each retry is an action: k attempts need a budget of k.
  actionBudgetOf: (o) => o.maxAttempts,
  // v2: the question is the whole state (short-context policies drop the instructions); its
  // column-by-column traces run to about 90 tokens.
  markov: columns,
  ...(columns ? { maxTokens: 100 } : {}),
  make: (options) => new MetaMathQAEnv(id, options, columns),
  vocabulary: (o) => {
    const extra = o.dataPath === "" ? [] : loadMetaMathQA(o.dataPath).problems.flatMap((p) => [p.question, p.answer])
    return vocabularyOf(instructions(o), instructions({ ...o, maxAttempts: 2 }), INVALID_LINE, "answer correct wrong answer , try again", TEMPLATE_WORDS, TEACHER_WORDS, DIGITS, ...extra)
  },
  instructions
})

export const metaMathQASpec = metaMathQAVersion("metamathqa-v1", false)
export const metaMathQAV2Spec = metaMathQAVersion("metamathqa-v2", true)
