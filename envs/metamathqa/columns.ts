/**
 * metamathqa-v2's worked steps written as a procedure: each addition, subtraction and
 * multiplication by one digit goes column by column from the units, so that every result a
 * model writes is a one-digit fact plus a carry, then the step's whole equation. Example:
 *   36 + 5   → "6 + 5 = 11 , 3 + 1 = 4 , 36 + 5 = 41"
 *   52 - 17  → "12 - 7 = 5 , 5 - 1 - 1 = 3 , 52 - 17 = 35"   (a borrow: 10 added, 1 taken next)
 *   36 * 7   → "6 * 7 = 42 , 3 * 7 + 4 = 25 , 36 * 7 = 252"
 * A one-column step, a division, and a product of two numbers of two or more digits are written
 * whole (one equation), as v1 writes every step. Every column line is a true equation, so the
 * v1 grader reads them as facts.
 */
import type { Step } from "./problems.ts"

const digits = (n: number): number[] => [...String(n)].reverse().map(Number)

const addColumns = (a: number, b: number): string[] => {
  const [da, db] = [digits(a), digits(b)]
  const out: string[] = []
  let carry = 0
  for (let i = 0; i < Math.max(da.length, db.length); i++) {
    const terms = [da[i], db[i], carry > 0 ? carry : undefined].filter((x): x is number => x !== undefined)
    // One term left: the rest of the number is copied.
    if (terms.length === 1) break
    const s = terms.reduce((x, y) => x + y, 0)
    out.push(`${terms.join(" + ")} = ${s}`)
    carry = s >= 10 ? 1 : 0
  }
  return out
}

const subColumns = (a: number, b: number): string[] => {
  const [da, db] = [digits(a), digits(b)]
  const out: string[] = []
  let borrow = 0
  for (let i = 0; i < da.length; i++) {
    const top = da[i]!
    const sub = db[i] ?? 0
    // Past b's digits with no borrow: the rest of a is copied.
    if (i >= db.length && borrow === 0) break
    const need = top - borrow < sub
    const lhs = [need ? top + 10 : top, ...(db[i] !== undefined ? [sub] : []), ...(borrow > 0 ? [1] : [])]
    out.push(`${lhs.join(" - ")} = ${lhs[0]! - lhs.slice(1).reduce((x, y) => x + y, 0)}`)
    borrow = need ? 1 : 0
  }
  return out
}

const mulColumns = (x: number, m: number): string[] => {
  const out: string[] = []
  let carry = 0
  for (const d of digits(x)) {
    const v = d * m + carry
    out.push(`${d} * ${m}${carry > 0 ? ` + ${carry}` : ""} = ${v}`)
    carry = Math.floor(v / 10)
  }
  return out
}

/** The column lines of one step (empty when it is written whole). */
export const columnLines = (s: Step): string[] => {
  const wide = (n: number) => n >= 10
  let lines: string[] = []
  if (s.op === "+") lines = addColumns(s.a, s.b)
  else if (s.op === "-" && s.a >= s.b) lines = subColumns(s.a, s.b)
  else if (s.op === "*" && !(wide(s.a) && wide(s.b))) lines = wide(s.a) ? mulColumns(s.a, s.b) : mulColumns(s.b, s.a)
  return lines.length > 1 ? lines : []
}

/** A step as v2 writes it: its column lines, then the whole equation. */
export const writeStep = (s: Step, spell: (n: number) => string): string => [...columnLines(s), `${spell(s.a)} ${s.op} ${spell(s.b)} = ${spell(s.c)}`].join(" , ")
