/**
 * Countdown's teacher and reasoning grader.
 *
 * Teacher reasoning: a scratchpad (signTrace) marked "rev", whose equations write numbers least
 * significant digit first, zero-padded to 3 digits ("9 5 0" is 59), so each result digit is a
 * local computation for a 2-layer model (most significant first, the first digit already needs
 * every carry); "." fillers put its first equation at the same absolute position in every
 * instance (ALIGN). For 59 97 33 68 → 55:
 *   "rev . . 9 5 0 + 7 9 0 = 6 5 1 + 3 3 0 = 9 8 1 + 8 6 0 = 7 5 2 - 5 5 0 = 2 ' 0 ' 2 / 2 = 1 0 1
 *    + 5 5 0 = 6 5 1 neg 3 3 , 6 8"   →   action "5 9 + 9 7 - 3 3 - 6 8"
 * (S − T's digits carry borrow marks: withBorrows).
 * (the earlier formats and their figures: experiments/arithmetic-sft/countdown-sft.md).
 * Reasoning noise sums the numbers in a shuffled order and varies the connectives
 * ("," / "then" / "so") between equations that are not chained.
 *
 * Grading reads any text, the teacher's scratchpad and what an LLM writes freely ("To get 22
 * from [64, 76, 62, 72]: 76 - 64 = 12, 12 + 72 = 84, 84 - 62 = 22", "So 76 - 64 + 72 - 62 = 22"):
 * numbers are written as numbers ("1,000" too); list separators are "," ";" "and". A reasoning
 * that starts with "rev" is the teacher's scratchpad: there digits written apart join ("4 6 0")
 * and the numbers of its equations read reversed; "'" and "^" (borrow marks) are not read.
 *  - Facts: each number listed after "numbers"/"nums"/"given"/"using" (true iff still unused in
 *    the given multiset), the number after "target"/"goal"/"reach" (true iff it is the target),
 *    each number after "neg" (true iff a given number, each once), and each equation
 *    "<expression> = c" (true iff the arithmetic holds exactly and its operands are grounded;
 *    see gradeCountdown).
 *    factAccuracy = true facts / stated facts (0 when none is stated).
 *  - Consistency: the value the reasoning reaches is Σ numbers − 2·Σ neg when it states a "neg"
 *    list, else the result of its last equation (or the stated target when it states no
 *    equation); consistency is 1 iff the action parses and its exact value equals that value.
 */
import type { ReasoningGrade, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { evaluate, leaves, parseExpression, render, spell, type Expr } from "./expression.ts"
import type { Equation, Instance } from "./generator.ts"
import { apply, eq, ofInt, type Op, type Rational } from "./rational.ts"

export interface CountdownState {
  readonly numbers: ReadonlyArray<number>
  readonly target: number
}

export const TEACHER_WORDS = "numbers given target goal rev neg : , . ' ^ then so = + - * / ( )"

const SYM: Record<Op, string> = { "+": "+", "-": "-", "*": "*", "/": "/" }

const OP_TIERS: ReadonlyArray<ReadonlyArray<Op>> = [
  ["+", "-"],
  ["+", "-", "*"],
  ["+", "-", "*", "/"]
]

/** Index permutations of 0..n−1 in lexicographic order (the identity first). */
const permutations = (n: number): number[][] => {
  const out: number[][] = []
  const rec = (prefix: number[], rest: number[]): void => {
    if (rest.length === 0) out.push(prefix)
    for (let k = 0; k < rest.length; k++) rec([...prefix, rest[k]!], [...rest.slice(0, k), ...rest.slice(k + 1)])
  }
  rec(
    [],
    Array.from({ length: n }, (_, i) => i)
  )
  return out
}

/**
 * A chain ((n1 op n2) op n3) op n4 = target (the teacher's plan before signTrace; now its
 * fallback when no ± sum reaches the target), so every equation combines the running value with
 * one given number and the action is the equations' operands read left to right. Canonical: fewest kinds of operator first
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

/** Least-significant digit first, zero-padded to 3 digits: 59 → "9 5 0", 1234 → "4 3 2 1". */
export const revSpell = (n: number, width = 3): string => String(n).padStart(width, "0").split("").reverse().join(" ")

/** The scratchpad's content: its equations in order, the "neg" list (or the fallback) and the action's expression. */
export interface SignTrace {
  readonly equations: Equation[]
  /** Given numbers to subtract (all others are added); undefined when the fallback plan is used. */
  readonly neg: number[] | undefined
  readonly solution: Expr
  /** Index of the first fallback equation (written unpadded: the trace stays short). */
  readonly fallbackAt: number
}

const without = (xs: ReadonlyArray<number>, drop: ReadonlyArray<number>): number[] => {
  const out = [...xs]
  for (const d of drop) out.splice(out.indexOf(d), 1)
  return out
}

/** Positives in given order, then the negatives: 5 9 + 9 7 - 3 3 - 6 8. */
const signedExpr = (numbers: ReadonlyArray<number>, neg: ReadonlyArray<number>): Expr => {
  const pos = without(numbers, neg)
  let e: Expr = { kind: "num", value: pos[0]! }
  for (const n of pos.slice(1)) e = { kind: "bin", op: "+", left: e, right: { kind: "num", value: n } }
  for (const n of neg) e = { kind: "bin", op: "-", left: e, right: { kind: "num", value: n } }
  return e
}

/**
 * The teacher's search, written out so each step is one short computation (the sum/difference
 * trick for ± sums): with S the sum of the numbers and N the subtracted ones, T = S − 2·ΣN, so
 * ΣN = h = (S − T)/2 and the added ones sum to q = h + T. The trace adds the numbers up, then
 * S − T = D, D / 2 = h; a given number equal to h is the one to subtract; else h + T = q, and a
 * given number equal to q is the only one added; with 4 numbers, else the pairs holding the first
 * number (n1 + n2 is already the first sum; then n1 + n3, n1 + n4) are compared with h and q.
 * Each check is a lookup of a written value. An odd or negative D, or no match, means no ± sum
 * reaches the target (~17% of instances): the trace goes on with chainPlan (with * or /) or the
 * generator's own solution.
 */
export const signTrace = (inst: Pick<Instance, "numbers" | "target" | "steps" | "solution">): SignTrace => {
  const ns = inst.numbers,
    T = inst.target
  const eqs: Equation[] = []
  const done = (neg: number[]): SignTrace => ({ equations: eqs, neg, solution: signedExpr(ns, neg), fallbackAt: eqs.length })
  let S = ns[0]!
  for (const n of ns.slice(1)) {
    eqs.push({ a: S, op: "+", b: n, c: S + n })
    S += n
  }
  const D = S - T
  if (D >= 0) eqs.push({ a: S, op: "-", b: T, c: D })
  if (D >= 0 && D % 2 === 0) {
    const h = D / 2
    eqs.push({ a: D, op: "/", b: 2, c: h })
    if (h === 0) return done([])
    if (ns.includes(h)) return done([h])
    const q = h + T
    eqs.push({ a: h, op: "+", b: T, c: q })
    if (ns.includes(q)) return done(without(ns, [q]))
    if (ns.length === 4) {
      const [a, b, c, d] = ns as [number, number, number, number]
      const pairs: Array<[number, number[]]> = [
        [b, [c, d]],
        [c, [b, d]],
        [d, [b, c]]
      ]
      for (const [k, [x, rest]] of pairs.entries()) {
        if (k > 0) eqs.push({ a, op: "+", b: x, c: a + x }) // n1 + n2 is the first sum already
        if (a + x === h) return done([a, x])
        if (a + x === q) return done(rest)
      }
    }
  }
  const plan = chainPlan(ns, T) ?? inst
  const fallbackAt = eqs.length
  eqs.push(...plan.steps)
  return { equations: eqs, neg: undefined, solution: plan.solution, fallbackAt }
}

/**
 * a − b (a ≥ b, 3 digits) least significant digit first with a borrow mark after each digit but
 * the last: "^" when the next column borrows, "'" when not (257 − 55 = 202: "2 ' 0 ' 2"). The
 * grader reads through both marks. Without them the tiny model got the tens digit of S − T right
 * with p 0.15–0.37 (it needs [s0 < t0] from two earlier digits); with them each digit depends on
 * the column's two digits and the mark just written.
 */
const withBorrows = (a: number, b: number): string => {
  const x = String(a).padStart(3, "0").split("").reverse().map(Number)
  const y = String(b).padStart(3, "0").split("").reverse().map(Number)
  const out: string[] = []
  let borrow = 0
  for (let i = 0; i < x.length; i++) {
    const d = x[i]! - borrow - (y[i] ?? 0)
    borrow = d < 0 ? 1 : 0
    out.push(String(d + 10 * borrow))
    if (i < x.length - 1) out.push(borrow ? "^" : "'")
  }
  return out.join(" ")
}

/** Equations chained when the left operand is the previous result, else separated by `sep()`. */
const renderEquations = (eqs: ReadonlyArray<Equation>, fallbackAt: number, sep: () => string): string => {
  let out = ""
  eqs.forEach((e, i) => {
    const w = i < fallbackAt ? 3 : 1
    // The halving's divisor stays a bare "2" (a constant, not a value of the state).
    const b = e.op === "/" && e.b === 2 ? "2" : revSpell(e.b, w)
    const c = e.op === "-" && i < fallbackAt ? withBorrows(e.a, e.b) : revSpell(e.c, w)
    if (i > 0 && e.a === eqs[i - 1]!.c) out += ` ${SYM[e.op]} ${b} = ${c}`
    else out += `${i > 0 ? ` ${sep()} ` : ""}${revSpell(e.a, w)} ${SYM[e.op]} ${b} = ${c}`
  })
  return out
}

/**
 * Where the scratchpad's equations start: "rev" and "." fillers put the first equation of a
 * 4-number instance at absolute position ALIGN of the SFT sequence (prompt = observation, newline,
 * <think>), and that of a 3-number one a chained sum later, so from S − T on every instance has
 * each equation at the same positions. The tiny model has learned absolute position embeddings
 * only: with the equations at fixed positions, "the digit 8 tokens back" is a fixed position
 * rather than a relative offset it would have to learn at every position (chained sums were near
 * chance without it: experiments/arithmetic-sft/countdown-sft.md).
 */
export const ALIGN = 20
/** Tokens of a chained sum "+ d d d = e e e". */
const CHAINED = 8
const filler = (inst: Pick<Instance, "numbers" | "target">): string => {
  // observation words (numbers digit by digit, commas, "target") + newline + <think> + "rev"
  const promptTokens = 1 + inst.numbers.reduce((a, n) => a + String(n).length, 0) + (inst.numbers.length - 1) + 1 + String(inst.target).length + 2
  const start = ALIGN + CHAINED * Math.max(0, 4 - inst.numbers.length)
  return ". ".repeat(Math.max(0, start - promptTokens - 1))
}

export const teachCountdown = (inst: Instance, options: TeacherOptions, rng: Rng, randomAction: (rng: Rng) => string): TeacherStep => {
  const noisy = () => options.reasoningNoise > 0 && rng.bool(options.reasoningNoise)
  const tr = signTrace(noisy() ? { ...inst, numbers: rng.shuffle([...inst.numbers]) } : inst)
  const body = renderEquations(tr.equations, tr.fallbackAt, () => (noisy() ? (rng.bool() ? "then" : "so") : ","))
  const negPart = tr.neg === undefined ? "" : ` neg${tr.neg.length > 0 ? " " : ""}${tr.neg.map((n) => spell(n)).join(", ")}`
  const reasoning = `rev ${filler(inst)}${body}${negPart}`
  const intendedAction = render(tr.solution)
  const action = options.epsilon > 0 && rng.bool(options.epsilon) ? randomAction(rng) : intendedAction
  const facts = [...tr.equations.map((e) => `${e.a} ${SYM[e.op]} ${e.b} = ${e.c}`), ...(tr.neg ?? []).map((n) => `neg ${n}`)]
  return { reasoning, action, facts, intendedAction }
}

// ---- grading -------------------------------------------------------------------------------

const MAX_CHARS = 20_000
const MAX_DIGITS = 13
// Numbers: a thousands-grouped number ("1,000") or a digit run; brackets are not read, so "[3, 5, 2]" is a plain list.
const TOKEN = /\d{1,3}(?:,\d{3})+(?![\d,])|\d+|[+\-−–*×÷/=(),;:.]|[a-z]+/g
const OPWORD: Record<string, Op> = { "+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", x: "*", times: "*", plus: "+", minus: "-", "/": "/", "÷": "/" }
const LIST_SEP = new Set([",", ";", "and"])
const LIST_WORDS = new Set(["numbers", "nums", "given", "using"])
const TARGET_WORDS = new Set(["target", "goal", "reach"])

/** A number keeps its digits as written (`s`) so a scratchpad can read them reversed. */
type Item = { k: "num"; v: number; s: string } | { k: "w"; v: string }

/**
 * Words and numbers of a text. In a "rev" scratchpad (the teacher's format, digits written one
 * by one) digit runs separated by spaces join into one number; elsewhere "2 5" is two numbers.
 */
export const readItems = (text: string): Item[] => {
  const raw = String(text).slice(0, MAX_CHARS).toLowerCase().match(TOKEN) ?? []
  const scratch = raw[0] === "rev"
  const out: Item[] = []
  let prevNum = false
  for (const w0 of raw) {
    const isNum = /^\d/.test(w0)
    const w = isNum ? w0.replaceAll(",", "").slice(0, MAX_DIGITS) : w0
    if (isNum && prevNum && scratch) {
      const last = out[out.length - 1] as { k: "num"; v: number; s: string }
      if (last.s.length < MAX_DIGITS) {
        last.s = (last.s + w).slice(0, MAX_DIGITS)
        last.v = Number(last.s)
      }
    } else out.push(isNum ? { k: "num", v: Number(w), s: w } : { k: "w", v: w })
    prevNum = isNum
  }
  return out
}

/** An equation whose left side is any expression: "76 - 64 + 72 - 62 = 22". */
export interface ExprEquation {
  /** Index of the expression's first item. */
  readonly at: number
  readonly lhs: Expr
  readonly c: number
}

const EXPR_SYM: Record<string, string> = { "(": "(", ")": ")" }
for (const [w, op] of Object.entries({ "+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", x: "*", times: "*", plus: "+", minus: "-", "/": "/", "÷": "/" })) EXPR_SYM[w] = op

/**
 * Equations "<expression> = c" anywhere in the items: from each "=" followed by a number, the
 * left side is the longest run of numbers, operators and parentheses before it that parses
 * (so "so the answer is 2 + 5 - 3 = 4" reads 2 + 5 - 3, and a chain "a + b = c * d = e" two
 * equations). A lone number before "=" is no equation.
 */
export const readExprEquations = (items: ReadonlyArray<Item>): ExprEquation[] => {
  const out: ExprEquation[] = []
  for (let i = 1; i + 1 < items.length; i++) {
    const e = items[i]!
    const c = items[i + 1]!
    if (!(e.k === "w" && e.v === "=" && c.k === "num")) continue
    let j = i - 1
    while (j >= 0) {
      const x = items[j]!
      if (x.k === "num" || EXPR_SYM[x.v] !== undefined) j--
      else break
    }
    for (let from = j + 1; from < i; from++) {
      const text = items
        .slice(from, i)
        .map((x) => (x.k === "num" ? String(x.v) : EXPR_SYM[x.v]))
        .join(" ")
      const lhs = parseExpression(text)
      if (lhs) {
        if (lhs.kind === "bin") out.push({ at: from, lhs, c: c.v })
        break
      }
    }
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

/** A list after a list word: the indices of its numbers (numbers separated by separators; stops at an equation start or any other word). */
const listAt = (items: ReadonlyArray<Item>, i: number): { nums: number[]; end: number } => {
  const nums: number[] = []
  let j = i + 1
  while (j < items.length) {
    const x = items[j]!
    if (x.k === "num") {
      const nx = items[j + 1]
      if (nx && nx.k === "w" && OPWORD[nx.v] !== undefined) break
      nums.push(j)
    } else if (!LIST_SEP.has(x.v) && x.v !== ":" && x.v !== "are" && x.v !== "is") break
    j++
  }
  return { nums, end: j }
}

/**
 * The reasoning's lists and equations. A reasoning that starts with "rev" is a scratchpad: numbers
 * inside equations are written least significant digit first ("9 5 0" is 59, so each result digit
 * is a local computation), numbers in lists ("numbers", "target", "neg") as in the prompt.
 */
export const readReasoning = (
  text: string
): {
  scratch: boolean
  listed: number[]
  target: number | undefined
  neg: number[] | undefined
  /** Binary equations "a op b = c" (scratchpad numbers reversed). */
  equations: ReadEquation[]
  /** Equations with any expression on the left (free text; empty for a scratchpad). */
  exprEquations: ExprEquation[]
} => {
  const items = readItems(text)
  const scratch = items[0]?.k === "w" && items[0].v === "rev"
  const listed: number[] = []
  let target: number | undefined
  let neg: number[] | undefined
  const inList = new Set<number>()
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!
    if (it.k !== "w") continue
    if (LIST_WORDS.has(it.v) || it.v === "neg") {
      const l = listAt(items, i)
      const vs = l.nums.map((j) => (items[j] as { v: number }).v)
      if (it.v === "neg") neg = [...(neg ?? []), ...vs]
      else listed.push(...vs)
      for (const j of l.nums) inList.add(j)
      i = l.end - 1
    } else if (TARGET_WORDS.has(it.v)) {
      let j = i + 1
      while (j < items.length && items[j]!.k === "w" && ["is", "=", ":"].includes(items[j]!.v as string)) j++
      const x = items[j]
      if (x && x.k === "num") {
        const nx = items[j + 1]
        if (!(nx && nx.k === "w" && OPWORD[nx.v] !== undefined)) {
          target = x.v
          inList.add(j)
        }
      }
    }
  }
  const eqItems = scratch ? items.map((it, j) => (it.k === "num" && !inList.has(j) ? { ...it, v: Number(it.s.split("").reverse().join("")) } : it)) : items
  return { scratch, listed, target, neg, equations: readEquations(eqItems).map((e) => e.eq), exprEquations: scratch ? [] : readExprEquations(items) }
}

/**
 * Facts: each listed number (true iff still unused in the given multiset), the target, each "neg"
 * number (true iff a given number, each once), each equation. An equation is true iff its
 * arithmetic holds exactly and its operands are grounded: in free text, given numbers or results
 * of earlier true equations (any expression on the left); in a "rev" scratchpad, given numbers,
 * the target, results of earlier true equations, or the divisor 2 (halving).
 * Consistency: the reasoning reaches Σ numbers − 2·Σ neg when it states a "neg" list (the given
 * numbers with those subtracted), else the result of its last equation, else the stated target.
 */
export const gradeCountdown = (state: CountdownState, reasoning: string, action: string): ReasoningGrade => {
  const r = readReasoning(reasoning)
  let stated = 0
  let right = 0
  const unlisted = [...state.numbers]
  for (const v of r.listed) {
    stated++
    if (takeFrom(unlisted, v)) right++
  }
  if (r.target !== undefined) {
    stated++
    if (r.target === state.target) right++
  }
  const negBag = [...state.numbers]
  for (const v of r.neg ?? []) {
    stated++
    if (takeFrom(negBag, v)) right++
  }
  const grounded = new Set([...state.numbers, state.target])
  if (r.scratch) {
    for (const e of r.equations) {
      stated++
      const v = apply(e.op, ofInt(e.a), ofInt(e.b))
      if (v !== undefined && eq(v, ofInt(e.c)) && grounded.has(e.a) && (grounded.has(e.b) || (e.op === "/" && e.b === 2))) {
        right++
        grounded.add(e.c)
      }
    }
  }
  // Free text: an equation is a fact of this state when its arithmetic holds and each operand is a
  // given number or the result of an earlier true equation (an LLM explores, backtracks and
  // restates "so 2 + 5 - 3 = 4", so operands are not used up).
  const known = new Set(state.numbers)
  for (const e of r.exprEquations) {
    stated++
    const v = evaluate(e.lhs)
    if (v !== undefined && eq(v, ofInt(e.c)) && leaves(e.lhs).every((x) => known.has(x))) {
      right++
      known.add(e.c)
    }
  }
  const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0)
  const lastC = r.scratch ? r.equations[r.equations.length - 1]?.c : r.exprEquations[r.exprEquations.length - 1]?.c
  const reached = r.neg !== undefined ? sum(state.numbers) - 2 * sum(r.neg) : lastC !== undefined ? lastC : r.target
  let consistency = 0
  if (reached !== undefined) {
    const p = parseExpression(action)
    const v: Rational | undefined = p ? evaluate(p) : undefined
    if (v && eq(v, ofInt(reached))) consistency = 1
  }
  return { factAccuracy: stated === 0 ? 0 : right / stated, consistency }
}
