/**
 * Solvable Countdown instances: draw the numbers, then play the game forward — repeatedly
 * combine two pool values with an operator, keeping every intermediate a non-negative integer
 * (as in the Countdown game and TinyZero's countdown task) — and take the last value as the
 * target. The combination steps are the teacher's solution, so a solution always exists.
 */
import type { Rng } from "../../core/host.ts"
import type { Expr } from "./expression.ts"
import type { Op } from "./rational.ts"

export interface Equation {
  readonly a: number
  readonly op: Op
  readonly b: number
  readonly c: number
}

export interface Instance {
  readonly numbers: ReadonlyArray<number>
  readonly target: number
  /** The solution as combination steps, in order (the last one yields the target). */
  readonly steps: ReadonlyArray<Equation>
  readonly solution: Expr
}

export interface GeneratorOptions {
  readonly minCount: number
  readonly maxCount: number
  readonly maxNumber: number
  readonly maxTarget: number
}

const OPS: ReadonlyArray<Op> = ["+", "-", "*", "/"]
const MAX_TRIES = 500

const tryOnce = (rng: Rng, numbers: ReadonlyArray<number>): { target: number; steps: Equation[]; solution: Expr } | undefined => {
  const pool: Array<{ v: number; e: Expr }> = numbers.map((v) => ({ v, e: { kind: "num", value: v } }))
  const steps: Equation[] = []
  while (pool.length > 1) {
    const i = rng.int(pool.length)
    let j = rng.int(pool.length - 1)
    if (j >= i) j++
    let x = pool[i]!
    let y = pool[j]!
    const op = OPS[rng.int(4)]!
    // Keep intermediates non-negative integers: larger first for − and ÷.
    if ((op === "-" || op === "/") && x.v < y.v) [x, y] = [y, x]
    let c: number
    if (op === "+") c = x.v + y.v
    else if (op === "-") c = x.v - y.v
    else if (op === "*") c = x.v * y.v
    else {
      if (y.v === 0 || x.v % y.v !== 0) return undefined
      c = x.v / y.v
    }
    steps.push({ a: x.v, op, b: y.v, c })
    const merged = { v: c, e: { kind: "bin", op, left: x.e, right: y.e } as Expr }
    pool.splice(Math.max(i, j), 1)
    pool.splice(Math.min(i, j), 1)
    pool.push(merged)
  }
  return { target: pool[0]!.v, steps, solution: pool[0]!.e }
}

export const generate = (rng: Rng, o: GeneratorOptions): Instance => {
  const count = rng.range(o.minCount, o.maxCount)
  for (;;) {
    const numbers = Array.from({ length: count }, () => rng.range(1, o.maxNumber))
    for (let t = 0; t < MAX_TRIES; t++) {
      const r = tryOnce(rng, numbers)
      if (r && r.target >= 1 && r.target <= o.maxTarget) return { numbers, ...r }
    }
    // Rare (e.g. all numbers large with a small maxTarget): draw new numbers.
  }
}
