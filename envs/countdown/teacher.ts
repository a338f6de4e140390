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
 * (the earlier formats and their figures: benchmarks/results/countdown-sft.md).
 * Reasoning noise sums the numbers in a shuffled order and varies the connectives
 * ("," / "then" / "so") between equations that are not chained.
 *
 * Grading reads any text: numbers are runs of digits (spaces inside a run join, "2 5" = 25),
 * list separators are "," ";" "and"; "'" and "^" (borrow marks) are not read, so digits around
 * them join; a reasoning that starts with "rev" reads the numbers of its equations reversed
 * (readReasoning).
 *  - Facts: each number listed after "numbers"/"given" (true iff still unused in the given
 *    multiset), the number after "target" (true iff it is the target), each number after "neg"
 *    (true iff a given number, each once), and each equation "a op b = c" (true iff the
 *    arithmetic holds exactly and its operands are available; see gradeCountdown).
 *    factAccuracy = true facts / stated facts (0 when none is stated).
 *  - Consistency: the value the reasoning reaches is Σ numbers − 2·Σ neg when it states a "neg"
 *    list, else the result of its last equation (or the stated target when it states no
 *    equation); consistency is 1 iff the action parses and its exact value equals that value.
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

export const TEACHER_WORDS = "numbers given target goal rev neg : , . ' ^ then so = + - * / ( )"

const SYM: Record<Op, string> = { "+": "+", "-": "-", "*": "*", "/": "/" }

const shuffled = <T>(xs: ReadonlyArray<T>, rng: Rng): T[] => {
  const a = [...xs]
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
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
  const ns = inst.numbers, T = inst.target
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
      const pairs: Array<[number, number[]]> = [[b, [c, d]], [c, [b, d]], [d, [b, c]]]
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
 * chance without it: benchmarks/results/countdown-sft.md).
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
  const tr = signTrace(noisy() ? { ...inst, numbers: shuffled(inst.numbers, rng) } : inst)
  const body = renderEquations(tr.equations, tr.fallbackAt, () => (noisy() ? (rng.bool() ? "then" : "so") : ","))
  const negPart = tr.neg === undefined ? "" : ` neg${tr.neg.length > 0 ? " " : ""}${tr.neg.map((n) => spell(n)).join(" , ")}`
  const reasoning = `rev ${filler(inst)}${body}${negPart}`
  const intendedAction = render(tr.solution)
  const action = options.epsilon > 0 && rng.bool(options.epsilon) ? randomAction(rng) : intendedAction
  const facts = [...tr.equations.map((e) => `${e.a} ${SYM[e.op]} ${e.b} = ${e.c}`), ...(tr.neg ?? []).map((n) => `neg ${n}`)]
  return { reasoning, action, facts, intendedAction }
}

// ---- grading -------------------------------------------------------------------------------

const MAX_CHARS = 20_000
const MAX_DIGITS = 13
const TOKEN = /\d|[+\-−–*×÷\/=(),;:.]|[a-z]+/g
const OPWORD: Record<string, Op> = { "+": "+", "-": "-", "−": "-", "–": "-", "*": "*", "×": "*", x: "*", times: "*", plus: "+", minus: "-", "/": "/", "÷": "/" }
const LIST_SEP = new Set([",", ";", "and"])

/** A number keeps its digits as written (`s`) so a scratchpad can read them reversed. */
type Item = { k: "num"; v: number; s: string } | { k: "w"; v: string }

/** Words and numbers of a text; digit runs (with spaces between digits) join into one number. */
export const readItems = (text: string): Item[] => {
  const raw = String(text).slice(0, MAX_CHARS).toLowerCase().match(TOKEN) ?? []
  const out: Item[] = []
  let prevDigit = false
  for (const w of raw) {
    const digit = w.length === 1 && w >= "0" && w <= "9"
    if (digit && prevDigit) {
      const last = out[out.length - 1] as { k: "num"; v: number; s: string }
      if (last.s.length < MAX_DIGITS) {
        last.s += w
        last.v = last.v * 10 + Number(w)
      }
    } else out.push(digit ? { k: "num", v: Number(w), s: w } : { k: "w", v: w })
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
export const readReasoning = (text: string): {
  scratch: boolean
  listed: number[]
  target: number | undefined
  neg: number[] | undefined
  equations: ReadEquation[]
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
    if (it.v === "numbers" || it.v === "given" || it.v === "neg") {
      const l = listAt(items, i)
      const vs = l.nums.map((j) => (items[j] as { v: number }).v)
      if (it.v === "neg") neg = [...(neg ?? []), ...vs]
      else listed.push(...vs)
      for (const j of l.nums) inList.add(j)
      i = l.end - 1
    } else if (it.v === "target" || it.v === "goal") {
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
  const eqItems = scratch
    ? items.map((it, j) => (it.k === "num" && !inList.has(j) ? { ...it, v: Number(it.s.split("").reverse().join("")) } : it))
    : items
  return { scratch, listed, target, neg, equations: readEquations(eqItems).map((e) => e.eq) }
}

/**
 * Facts: each listed number (true iff still unused in the given multiset), the target, each "neg"
 * number (true iff a given number, each once), each equation. An equation is true iff its
 * arithmetic holds exactly and its operands are available: in a plain reasoning, given numbers or
 * results of earlier true equations, each used once (combination steps); in a "rev" scratchpad,
 * given numbers, the target, results of earlier true equations, or the divisor 2 (halving), reused
 * freely (scratch computations).
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
  const available = [...state.numbers]
  const grounded = new Set([...state.numbers, state.target])
  for (const e of r.equations) {
    stated++
    const v = apply(e.op, ofInt(e.a), ofInt(e.b))
    const holds = v !== undefined && eq(v, ofInt(e.c))
    if (!holds) continue
    if (r.scratch) {
      if (grounded.has(e.a) && (grounded.has(e.b) || (e.op === "/" && e.b === 2))) {
        right++
        grounded.add(e.c)
      }
      continue
    }
    const bag = [...available]
    if (takeFrom(bag, e.a) && takeFrom(bag, e.b)) {
      right++
      bag.push(e.c)
      available.splice(0, available.length, ...bag)
    }
  }
  const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0)
  const reached = r.neg !== undefined ? sum(state.numbers) - 2 * sum(r.neg) : r.equations.length > 0 ? r.equations[r.equations.length - 1]!.c : r.target
  let consistency = 0
  if (reached !== undefined) {
    const p = parseExpression(action)
    const v: Rational | undefined = p ? evaluate(p) : undefined
    if (v && eq(v, ofInt(reached))) consistency = 1
  }
  return { factAccuracy: stated === 0 ? 0 : right / stated, consistency }
}
