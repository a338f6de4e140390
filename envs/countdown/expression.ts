/**
 * Countdown's expression parser (recursive descent; never `eval`):
 *   expr := term (("+" | "-") term)* ;  term := factor (("*" | "/") factor)* ;
 *   factor := integer | "(" expr ")"
 * Accepted operator spellings: + ; - − – ; * x X × · ; / ÷ . Integers are written as numbers
 * ("25"); two integers side by side ("2 5") are a syntax error, as in RAGEN's reward (Python's
 * eval of the answer). No unary minus.
 * Values are exact rationals; division by zero makes the value undefined (the parse still stands).
 */
import { apply, ofInt, type Op, type Rational } from "./rational.ts"

export type Expr = { readonly kind: "num"; readonly value: number } | { readonly kind: "bin"; readonly op: Op; readonly left: Expr; readonly right: Expr }

/** Longest action text we try to parse (anything longer is invalid without work). */
export const MAX_EXPR_CHARS = 400
const MAX_INT_DIGITS = 9

const OPS: Record<string, Op> = { "+": "+", "-": "-", "−": "-", "–": "-", "*": "*", x: "*", X: "*", "×": "*", "·": "*", "/": "/", "÷": "/" }

type Token = { t: "num"; v: number } | { t: "op"; v: Op } | { t: "(" } | { t: ")" }

const tokenize = (text: string): Token[] | undefined => {
  const out: Token[] = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]!
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i++
      continue
    }
    if (ch >= "0" && ch <= "9") {
      let j = i
      while (j < text.length && text[j]! >= "0" && text[j]! <= "9") j++
      const digits = text.slice(i, j)
      if (digits.length > MAX_INT_DIGITS || out[out.length - 1]?.t === "num") return undefined
      out.push({ t: "num", v: Number(digits) })
      i = j
      continue
    }
    if (ch === "(" || ch === ")") out.push({ t: ch })
    else if (OPS[ch] !== undefined) out.push({ t: "op", v: OPS[ch]! })
    else return undefined
    i++
  }
  return out
}

/** Parse an expression, or `undefined` when the text is not one. */
export const parseExpression = (text: string): Expr | undefined => {
  if (typeof text !== "string" || text.length > MAX_EXPR_CHARS) return undefined
  const toks = tokenize(text)
  if (!toks || toks.length === 0) return undefined
  let pos = 0
  let depth = 0
  const factor = (): Expr | undefined => {
    const tk = toks[pos]
    if (!tk) return undefined
    if (tk.t === "num") {
      pos++
      return { kind: "num", value: tk.v }
    }
    if (tk.t === "(") {
      if (++depth > 50) return undefined
      pos++
      const e = expr()
      if (!e || toks[pos]?.t !== ")") return undefined
      pos++
      depth--
      return e
    }
    return undefined
  }
  const chain = (next: () => Expr | undefined, ops: ReadonlyArray<Op>) => (): Expr | undefined => {
    let left = next()
    while (left) {
      const tk = toks[pos]
      if (!tk || tk.t !== "op" || !ops.includes(tk.v)) return left
      pos++
      const right = next()
      if (!right) return undefined
      left = { kind: "bin", op: tk.v, left, right }
    }
    return undefined
  }
  const term = chain(factor, ["*", "/"])
  const expr: () => Expr | undefined = chain(term, ["+", "-"])
  const e = expr()
  return e && pos === toks.length ? e : undefined
}

/** Exact value; `undefined` on division by zero. */
export const evaluate = (e: Expr): Rational | undefined => {
  if (e.kind === "num") return ofInt(e.value)
  const a = evaluate(e.left)
  if (!a) return undefined
  const b = evaluate(e.right)
  return b ? apply(e.op, a, b) : undefined
}

/** The integers the expression uses, in order of appearance. */
export const leaves = (e: Expr, out: number[] = []): number[] => {
  if (e.kind === "num") out.push(e.value)
  else {
    leaves(e.left, out)
    leaves(e.right, out)
  }
  return out
}

/** Same multiset of integers? */
export const sameMultiset = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): boolean => {
  if (a.length !== b.length) return false
  const x = [...a].sort((p, q) => p - q)
  const y = [...b].sort((p, q) => p - q)
  return x.every((v, i) => v === y[i])
}

/**
 * A number as observations, answers and teachers write it: plain decimal ("25"). (Until the
 * model-agnostic text change numbers were spelled digit by digit for the tiny model; its
 * tokenizer now splits digits itself: plugins/tinylm/tokenizer.ts.)
 */
export const spell = (k: number | bigint | string): string => String(k)

const SYM: Record<Op, string> = { "+": "+", "-": "-", "*": "*", "/": "/" }
const PREC: Record<Op, number> = { "+": 1, "-": 1, "*": 2, "/": 2 }

/** Render with the fewest parentheses that keep the tree (left-assoc): "(3 + 5) * 7". */
export const render = (e: Expr): string => {
  if (e.kind === "num") return spell(e.value)
  const wrap = (c: Expr, right: boolean): string => {
    const s = render(c)
    if (c.kind === "num") return s
    const need = PREC[c.op] < PREC[e.op] || (right && PREC[c.op] === PREC[e.op] && (e.op === "-" || e.op === "/" || c.op === "-" || c.op === "/"))
    return need ? `(${s})` : s
  }
  return `${wrap(e.left, false)} ${SYM[e.op]} ${wrap(e.right, true)}`
}
