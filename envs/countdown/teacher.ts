/**
 * Countdown's teacher and reasoning grader.
 *
 * Teacher reasoning (numbers digit by digit, list items separated by ","):
 *   "numbers 3 , 5 , 7 target 2 2 : 3 * 5 = 1 5 , 1 5 + 7 = 2 2"
 * The equations follow chainPlan (a canonical left-to-right chain, + − preferred) rather than the
 * generator's random solution: the tiny SFT model could neither do the generator's arithmetic nor
 * guess its random combination order (benchmarks/results/countdown-sft.md).
 * Reasoning noise varies the order (target first), the order of the listed numbers, the
 * operand order of + and *, and the connectives ("," / "then" / "so").
 *
 * Grading reads any text: numbers are runs of digits (spaces inside a run join, "2 5" = 25),
 * list separators are "," ";" "and".
 *  - Facts: each number listed after "numbers"/"given" (true iff still unused in the given
 *    multiset), the number after "target" (true iff it is the target), and each equation
 *    "a op b = c" (true iff the arithmetic holds exactly and a and b are available: given
 *    numbers or results of earlier true equations, each used once).
 *    factAccuracy = true facts / stated facts (0 when none is stated).
 *  - Consistency: the value the reasoning reaches is the result of its last equation (or the
 *    stated target when it states no equation); consistency is 1 iff the action parses and its
 *    exact value equals that value, else 0.
 */
import type { ReasoningGrade, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/rng.ts"
import { evaluate, parseExpression, render, spell, type Expr } from "./expression.ts"
import type { Equation, Instance } from "./generator.ts"
import { apply, eq, ofInt, type Op, type Rational } from "./rational.ts"

export interface CountdownState {
  readonly numbers: ReadonlyArray<number>
  readonly target: number
}

export const TEACHER_WORDS = "numbers given target goal : , then so = + - * / ( )"

const SYM: Record<Op, string> = { "+": "+", "-": "-", "*": "*", "/": "/" }

const shuffled = <T>(xs: ReadonlyArray<T>, rng: Rng): T[] => {
  const a = [...xs]
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

const equationText = (e: Equation, swap: boolean): string => {
  const [x, y] = swap && (e.op === "+" || e.op === "*") ? [e.b, e.a] : [e.a, e.b]
  return `${spell(x)} ${SYM[e.op]} ${spell(y)} = ${spell(e.c)}`
}

const OP_TIERS: ReadonlyArray<ReadonlyArray<Op>> = [["+", "-"], ["+", "-", "*"], ["+", "-", "*", "/"]]

/** Index permutations of 0..n−1 in lexicographic order (the identity first). */
const permutations = (n: number): number[][] => {
  const out: number[][] = []
  const rec = (prefix: number[], rest: number[]): void => {
    if (rest.length === 0) out.push(prefix)
    for (let k = 0; k < rest.length; k++) rec([...prefix, rest[k]!], [...rest.slice(0, k), ...rest.slice(k + 1)])
  }
  rec([], Array.from({ length: n }, (_, i) => i))
  return out
}

/**
 * The teacher's plan: a chain ((n1 op n2) op n3) op n4 = target, so every equation combines the
 * running value with one given number and the action is the equations' operands read left to
 * right. Chosen canonically so a small model can imitate it: fewest kinds of operator first
 * (+ − only, then with *, then with /: the model's arithmetic is weakest on * and /), then the
 * given order of the numbers, then + before − before * before /; intermediates stay
 * non-negative integers (the generator's rule). Covers ~99% of instances without reverse
 * operands ("n − R"); the rest keep the generator's own solution.
 */
export const chainPlan = (numbers: ReadonlyArray<number>, target: number): { steps: Equation[]; solution: Expr } | undefined => {
  const perms = permutations(numbers.length)
  for (const ops of OP_TIERS) {
    for (const perm of perms) {
      const ns = perm.map((i) => numbers[i]!)
      const steps: Equation[] = []
      const dfs = (k: number, r: number): boolean => {
        if (k === ns.length) return r === target
        const b = ns[k]!
        for (const op of ops) {
          const c = op === "+" ? r + b : op === "-" ? r - b : op === "*" ? r * b : b !== 0 && r % b === 0 ? r / b : -1
          if (c < 0) continue
          steps.push({ a: r, op, b, c })
          if (dfs(k + 1, c)) return true
          steps.pop()
        }
        return false
      }
      if (dfs(1, ns[0]!)) {
        let e: Expr = { kind: "num", value: ns[0]! }
        for (const s of steps) e = { kind: "bin", op: s.op, left: e, right: { kind: "num", value: s.b } }
        return { steps, solution: e }
      }
    }
  }
  return undefined
}

export const teachCountdown = (inst: Instance, options: TeacherOptions, rng: Rng, randomAction: (rng: Rng) => string): TeacherStep => {
  const plan = chainPlan(inst.numbers, inst.target) ?? inst
  const noisy = () => options.reasoningNoise > 0 && rng.bool(options.reasoningNoise)
  const nums = noisy() ? shuffled(inst.numbers, rng) : [...inst.numbers]
  const numbersPart = `${noisy() ? "given" : "numbers"} ${nums.map((n) => spell(n)).join(" , ")}`
  const targetPart = `${noisy() ? "goal" : "target"} ${spell(inst.target)}`
  const head = noisy() ? `${targetPart} ${numbersPart}` : `${numbersPart} ${targetPart}`
  const eqs = plan.steps.map((s) => equationText(s, noisy()))
  let body = eqs[0] ?? ""
  for (let i = 1; i < eqs.length; i++) body += ` ${noisy() ? (rng.bool() ? "then" : "so") : ","} ${eqs[i]}`
  const reasoning = `${head} : ${body}`
  const intendedAction = render(plan.solution)
  const action = options.epsilon > 0 && rng.bool(options.epsilon) ? randomAction(rng) : intendedAction
  const facts = [
    ...inst.numbers.map((n) => `number ${n}`),
    `target ${inst.target}`,
    ...plan.steps.map((s) => `${s.a} ${SYM[s.op]} ${s.b} = ${s.c}`)
  ]
  return { reasoning, action, facts, intendedAction }
}

// ---- grading -------------------------------------------------------------------------------

const MAX_CHARS = 20_000
const TOKEN = /\d|[+\-−–*×÷\/=(),;:.]|[a-z]+/g
const OPWORD: Record<string, Op> = { "+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", x: "*", times: "*", plus: "+", minus: "-", "/": "/", "÷": "/" }
const LIST_SEP = new Set([",", ";", "and"])

type Item = { k: "num"; v: number } | { k: "w"; v: string }

/** Words and numbers of a text; digit runs (with spaces between digits) join into one number. */
export const readItems = (text: string): Item[] => {
  const raw = String(text).slice(0, MAX_CHARS).toLowerCase().match(TOKEN) ?? []
  const out: Item[] = []
  let prevDigit = false
  for (const w of raw) {
    const digit = w.length === 1 && w >= "0" && w <= "9"
    if (digit && prevDigit) {
      const last = out[out.length - 1] as { k: "num"; v: number }
      if (last.v < 1e12) last.v = last.v * 10 + Number(w)
    } else out.push(digit ? { k: "num", v: Number(w) } : { k: "w", v: w })
    prevDigit = digit
  }
  return out
}

export interface ReadEquation {
  readonly a: number
  readonly op: Op
  readonly b: number
  readonly c: number
}

/** Equations "a op b = c" found anywhere in the items. */
export const readEquations = (items: ReadonlyArray<Item>): Array<{ at: number; eq: ReadEquation }> => {
  const out: Array<{ at: number; eq: ReadEquation }> = []
  for (let i = 0; i + 4 < items.length; i++) {
    const [a, o, b, e, c] = [items[i]!, items[i + 1]!, items[i + 2]!, items[i + 3]!, items[i + 4]!]
    if (a.k === "num" && o.k === "w" && OPWORD[o.v] !== undefined && b.k === "num" && e.k === "w" && e.v === "=" && c.k === "num") {
      out.push({ at: i, eq: { a: a.v, op: OPWORD[o.v]!, b: b.v, c: c.v } })
      i += 3 // resume at c: a chain "a + b = c * d = e" reads as two equations
    }
  }
  return out
}

const takeFrom = (bag: number[], v: number): boolean => {
  const i = bag.indexOf(v)
  if (i < 0) return false
  bag.splice(i, 1)
  return true
}

export const gradeCountdown = (state: CountdownState, reasoning: string, action: string): ReasoningGrade => {
  const items = readItems(reasoning)
  let stated = 0
  let right = 0
  let statedTarget: number | undefined
  const unlisted = [...state.numbers]
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!
    if (it.k !== "w") continue
    if (it.v === "numbers" || it.v === "given") {
      let j = i + 1
      // A list: numbers separated by list separators; stop at anything else or an equation start.
      while (j < items.length) {
        const x = items[j]!
        if (x.k === "num") {
          const nx = items[j + 1]
          if (nx && nx.k === "w" && OPWORD[nx.v] !== undefined) break
          stated++
          if (takeFrom(unlisted, x.v)) right++
        } else if (!LIST_SEP.has(x.v) && x.v !== ":" && x.v !== "are" && x.v !== "is") break
        j++
      }
      i = j - 1
    } else if (it.v === "target" || it.v === "goal") {
      let j = i + 1
      while (j < items.length && items[j]!.k === "w" && ["is", "=", ":"].includes(items[j]!.v as string)) j++
      const x = items[j]
      if (x && x.k === "num") {
        const nx = items[j + 1]
        if (!(nx && nx.k === "w" && OPWORD[nx.v] !== undefined)) {
          stated++
          if (x.v === state.target) right++
          statedTarget = x.v
        }
      }
    }
  }
  const available = [...state.numbers]
  const eqs = readEquations(items)
  for (const { eq: e } of eqs) {
    stated++
    const v = apply(e.op, ofInt(e.a), ofInt(e.b))
    const holds = v !== undefined && eq(v, ofInt(e.c))
    if (!holds) continue
    const bag = [...available]
    if (takeFrom(bag, e.a) && takeFrom(bag, e.b)) {
      right++
      bag.push(e.c)
      available.splice(0, available.length, ...bag)
    }
  }
  const reached = eqs.length > 0 ? eqs[eqs.length - 1]!.eq.c : statedTarget
  let consistency = 0
  if (reached !== undefined) {
    const p = parseExpression(action)
    const v: Rational | undefined = p ? evaluate(p) : undefined
    if (v && eq(v, ofInt(reached))) consistency = 1
  }
  return { factAccuracy: stated === 0 ? 0 : right / stated, consistency }
}
