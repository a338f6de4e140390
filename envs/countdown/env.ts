/**
 * Countdown (countdown-v1): reach the target with an arithmetic expression over the given numbers.
 *
 * Description: 3–4 numbers and a target (TinyZero/RAGEN's "Countdown-Tasks-3to4" shape: numbers
 *   1..99, targets up to 100); every instance is generated with a solution (generator.ts).
 * Observation: "numbers 64, 76, 62, 72 target 22" — plain numbers. RAGEN's text is
 *   "Target: 22, nums: [64, 76, 62, 72]" (ragen/env/countdown/env.py `reset`); we keep the
 *   numbers first and one word per list so that the teacher's scratchpad keeps the fixed token
 *   positions the tiny model relies on (teacher.ts ALIGN).
 * Action: an expression over + - * / (also x × ÷ −) and parentheses, e.g. "76 - 64 + 72 - 62";
 *   parsed by our recursive-descent parser (expression.ts), never `eval`.
 * Rewards (docs/design.md §7, RAGEN's countdown reward): 1 if the expression uses exactly the given
 *   numbers (as a multiset) and equals the target exactly (rational arithmetic); 0.1 if the numbers
 *   are right but the value is not (division by zero included); 0 otherwise.
 * Episode end: single action (budget 1). A parsed expression terminates the episode (success iff
 *   reward 1); text that does not parse is invalid (not applied); the harness truncates at the
 *   budget (core/env/time-limit.ts).
 * Arguments: minCount 3, maxCount 4, maxNumber 99, maxTarget 100.
 * Version history: v1 — first version.
 */
import { Schema } from "effect"
import type { Env, EnvSpec, ReasoningGrade, StepResult, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import { derive, type Rng, withDefault as dflt } from "../../core/host.ts"
import { DIGITS, vocabularyOf } from "../common/text.ts"
import { evaluate, leaves, parseExpression, render, sameMultiset, spell, type Expr } from "./expression.ts"
import { generate, type Instance } from "./generator.ts"
import { eq, ofInt } from "./rational.ts"
import { gradeCountdown, teachCountdown, TEACHER_WORDS, type CountdownState } from "./teacher.ts"

const int = (lo: number, hi: number) => Schema.Int.check(Schema.isBetween({ minimum: lo, maximum: hi }))

export const CountdownOptions = Schema.Struct({
  /** Fewest numbers per instance. */
  minCount: dflt(int(2, 6), 3),
  /** Most numbers per instance (RAGEN's dataset: 3 to 4). */
  maxCount: dflt(int(2, 6), 4),
  /** Numbers are drawn uniformly from 1..maxNumber. */
  maxNumber: dflt(int(1, 999), 99),
  /** Targets lie in 1..maxTarget. */
  maxTarget: dflt(int(1, 100_000), 100)
}).check(Schema.makeFilter((o: { minCount: number; maxCount: number }) => (o.minCount <= o.maxCount ? undefined : "minCount must be ≤ maxCount")))
export type CountdownOptions = typeof CountdownOptions.Type

export const MAX_TURNS = 5
export const ACTION_BUDGET = 1
const INVALID_LINE = "no valid action was taken"

const problemText = (i: Instance) => `numbers ${i.numbers.map(spell).join(", ")} target ${spell(i.target)}`

export interface Scored {
  readonly valid: boolean
  readonly reward: number
  readonly numbersRight: boolean
  readonly value: string | null
}

/** RAGEN's countdown score: 1 exact, 0.1 right numbers with the wrong value, 0 otherwise. */
export const scoreAnswer = (state: CountdownState, action: string): Scored => {
  const e = parseExpression(action)
  if (!e) return { valid: false, reward: 0, numbersRight: false, value: null }
  const v = evaluate(e)
  const numbersRight = sameMultiset(leaves(e), state.numbers)
  const hit = v !== undefined && eq(v, ofInt(state.target))
  return { valid: true, reward: numbersRight ? (hit ? 1 : 0.1) : 0, numbersRight, value: v ? (v.d === 1n ? v.n.toString() : `${v.n}/${v.d}`) : null }
}

const randomExpr = (numbers: ReadonlyArray<number>, rng: Rng): Expr => {
  const pool: Expr[] = numbers.map((value) => ({ kind: "num", value }))
  while (pool.length > 1) {
    const i = rng.int(pool.length)
    const [a] = pool.splice(i, 1)
    const j = rng.int(pool.length)
    const [b] = pool.splice(j, 1)
    pool.push({ kind: "bin", op: (["+", "-", "*", "/"] as const)[rng.int(4)]!, left: a!, right: b! })
  }
  return pool[0]!
}

class CountdownEnv implements Env<CountdownState> {
  readonly id = "countdown-v1"
  private inst!: Instance
  private terminated = false

  constructor(private readonly options: CountdownOptions) {
    this.reset(0)
  }

  get done(): boolean {
    return this.terminated
  }

  reset(seed: number): string {
    this.inst = generate(derive(seed, "countdown"), this.options)
    this.terminated = false
    return problemText(this.inst)
  }

  step(action: string): StepResult {
    const s = scoreAnswer(this.inst, typeof action === "string" ? action : "")
    if (this.done) return { observation: problemText(this.inst), reward: 0, terminated: true, truncated: false, info: { success: false, valid: s.valid, effective: false } }
    let observation: string
    if (s.valid) {
      this.terminated = true
      const verdict = s.reward === 1 ? "correct" : s.numbersRight ? "wrong value" : "wrong numbers"
      observation = `${problemText(this.inst)}\nanswer ${verdict}`
    } else {
      observation = `${INVALID_LINE}\n${problemText(this.inst)}`
    }
    return {
      observation,
      reward: s.reward,
      terminated: this.terminated,
      truncated: false,
      info: { success: s.reward === 1, valid: s.valid, effective: s.valid, numbersRight: s.numbersRight, value: s.value }
    }
  }

  state(): CountdownState {
    return { numbers: [...this.inst.numbers], target: this.inst.target }
  }

  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    return teachCountdown(this.inst, options, rng, (r) => this.randomAction(r))
  }

  gradeReasoning(state: CountdownState, reasoning: string, action: string): ReasoningGrade {
    return gradeCountdown(state, reasoning, action)
  }

  /** A random expression over exactly the given numbers (valid; rarely right). */
  randomAction(rng: Rng): string {
    return render(randomExpr(this.inst.numbers, rng))
  }
}

const instructions = (_o: CountdownOptions): string =>
  [
    "Countdown: use each given number exactly once with + - * / and ( ) to reach the target.",
    "Answer with the expression only, for example (3 + 5) * 7.",
    "Reward 1 if it equals the target, 0.1 if the numbers are right but the value is wrong, else 0."
  ].join("\n")

export const countdownSpec: EnvSpec<CountdownOptions> = {
  id: "countdown-v1",
  description: "Countdown: combine 3–4 numbers with + - * / to hit the target (exact rational parser; reward 1 / 0.1 / 0)",
  options: CountdownOptions,
  maxTurns: MAX_TURNS,
  actionBudget: ACTION_BUDGET,
  // single turn: the observation is the whole state, so the prompt is it alone (no instructions),
  // as in the sft command; the scratchpad traces run to a median of 64 and a p90 of 97 tokens
  // (experiments/arithmetic-sft/countdown-sft.md), so the trainer's cap is what the tiny context leaves
  markov: true,
  maxTokens: 108,
  make: (options) => new CountdownEnv(options),
  vocabulary: (o) => vocabularyOf(instructions(o), INVALID_LINE, "numbers target answer correct wrong value numbers", TEACHER_WORDS, DIGITS),
  instructions
}
