/**
 * The built-in generator of grade-school word problems (GSM8K/MetaMathQA style), one template
 * per kind, each with an exact integer answer and its worked steps. Plain English, numbers written
 * as numbers.
 */
import type { Rng } from "../../core/host.ts"
import { spell } from "../countdown/expression.ts"
import type { Op } from "../countdown/rational.ts"

export interface Step {
  readonly a: number
  readonly op: Op
  readonly b: number
  readonly c: number
}

export interface Problem {
  readonly template: string
  /** The question text (as the observation shows it). */
  readonly question: string
  /** The reference answer, normalized form ("25"). */
  readonly answer: string
  /** The quantities the question states, in order. */
  readonly quantities: ReadonlyArray<number>
  /** Worked steps; empty for loaded records. */
  readonly steps: ReadonlyArray<Step>
}

const NAMES = ["Ann", "Ben", "Cara", "Dan", "Eve", "Finn", "Gia", "Hugo"]
const ITEMS = ["apples", "pens", "books", "cups", "toys", "cards"]

const step = (a: number, op: Op, b: number): Step => ({
  a,
  op,
  b,
  c: op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b
})

type Template = (rng: Rng) => { question: string; quantities: number[]; steps: Step[] }

const s = spell

export const TEMPLATES: Record<string, Template> = {
  shopping: (rng) => {
    const [who, i1, i2] = [NAMES[rng.int(NAMES.length)]!, rng.int(ITEMS.length), rng.int(ITEMS.length - 1)]
    const item2 = ITEMS[i2 >= i1 ? i2 + 1 : i2]!
    const [a, b, c, d] = [rng.range(2, 9), rng.range(2, 12), rng.range(2, 9), rng.range(2, 12)]
    const s1 = step(a, "*", b)
    const s2 = step(c, "*", d)
    return {
      question: `${who} buys ${s(a)} ${ITEMS[i1]} at ${s(b)} dollars each and ${s(c)} ${item2} at ${s(d)} dollars each. How many dollars does ${who} spend?`,
      quantities: [a, b, c, d],
      steps: [s1, s2, step(s1.c, "+", s2.c)]
    }
  },
  rate: (rng) => {
    const [r, t] = [rng.range(20, 80), rng.range(2, 9)]
    return {
      question: `A train travels at ${s(r)} miles per hour for ${s(t)} hours. How many miles does it travel?`,
      quantities: [r, t],
      steps: [step(r, "*", t)]
    }
  },
  ages: (rng) => {
    const who = NAMES[rng.int(NAMES.length)]!
    const [a, b, c] = [rng.range(4, 30), rng.range(2, 15), rng.range(2, 20)]
    const s1 = step(a, "+", b)
    return {
      question: `${who} is ${s(a)} years old. ${who}'s sister is ${s(b)} years older. How old will the sister be in ${s(c)} years?`,
      quantities: [a, b, c],
      steps: [s1, step(s1.c, "+", c)]
    }
  },
  sharing: (rng) => {
    const [n, q] = [rng.range(2, 12), rng.range(2, 15)]
    const item = ITEMS[rng.int(ITEMS.length)]!
    return {
      question: `${s(n)} friends share ${s(n * q)} ${item} equally. How many ${item} does each friend get?`,
      quantities: [n, n * q],
      steps: [step(n * q, "/", n)]
    }
  },
  percent: (rng) => {
    const [k, m] = [rng.range(1, 10), rng.range(1, 19)]
    const [n, p] = [20 * k, 5 * m]
    const s1 = step(n, "*", p)
    return {
      question: `A school has ${s(n)} students. ${s(p)} percent of them play chess. How many students play chess?`,
      quantities: [n, p],
      steps: [s1, step(s1.c, "/", 100)]
    }
  },
  leftover: (rng) => {
    const who = NAMES[rng.int(NAMES.length)]!
    const [a, b] = [rng.range(2, 9), rng.range(6, 24)]
    const c = rng.range(1, a * b - 1)
    const s1 = step(a, "*", b)
    return {
      question: `A baker bakes ${s(a)} trays of ${s(b)} cookies. ${who} buys ${s(c)} cookies. How many cookies are left?`,
      quantities: [a, b, c],
      steps: [s1, step(s1.c, "-", c)]
    }
  },
  change: (rng) => {
    const who = NAMES[rng.int(NAMES.length)]!
    const [b, c] = [rng.range(2, 6), rng.range(3, 15)]
    const a = b * c + rng.range(1, 60)
    const s1 = step(b, "*", c)
    return {
      question: `${who} has ${s(a)} dollars and buys ${s(b)} books for ${s(c)} dollars each. How many dollars are left?`,
      quantities: [a, b, c],
      steps: [s1, step(a, "-", s1.c)]
    }
  },
  work: (rng) => {
    const [w, h, d] = [rng.range(2, 9), rng.range(2, 8), rng.range(2, 6)]
    const s1 = step(w, "*", h)
    return {
      question: `${s(w)} workers each paint ${s(h)} walls a day. How many walls do they paint in ${s(d)} days?`,
      quantities: [w, h, d],
      steps: [s1, step(s1.c, "*", d)]
    }
  }
}

export const TEMPLATE_NAMES = Object.keys(TEMPLATES)

export const generateProblem = (rng: Rng): Problem => {
  const template = TEMPLATE_NAMES[rng.int(TEMPLATE_NAMES.length)]!
  const p = TEMPLATES[template]!(rng)
  return { template, ...p, answer: String(p.steps[p.steps.length - 1]!.c) }
}

/** Every word the templates can write (for the vocabulary). */
export const TEMPLATE_WORDS = [
  ...NAMES,
  ...ITEMS,
  "buys at dollars each and . How many does spend ? A train travels miles per hour for hours it travel",
  "is years old 's sister older How will the be in friends share equally each friend get",
  "school has students percent of them play chess baker bakes trays cookies are left books",
  "workers paint walls a day do they days"
].join(" ")
