/**
 * Reading facts and a plan out of free reasoning text (any wording a policy writes: partial,
 * reordered, garbled). Facts are "<kind> <row> <col>" with optional filler words between: the
 * teachers' "player 2 3" and what an LLM writes, "The player is at row 2, column 3",
 * "player at (2,3)", "I am at (2, 3)", "Goal: row 1 col 4", "holes at (1, 1) and (2, 3)" (one
 * kind word, several positions). A plan is a plan keyword followed by direction words ("path
 * down right", "I should move left then up", "Left || Up"). Unknown words are skipped, so
 * garbage just yields fewer facts. Rows and columns count from 0, as the instructions say.
 */
import { splitWords } from "./text.ts"

export interface PositionFact {
  /** Canonical kind, e.g. "player", "box", "hole". */
  readonly kind: string
  readonly r: number
  readonly c: number
}

export interface ParsedReasoning {
  readonly facts: ReadonlyArray<PositionFact>
  /** Direction indices of the first stated plan (a plan word followed by moves), or null when none. */
  readonly plan: ReadonlyArray<number> | null
}

export interface FactVocabulary {
  /** Surface word → canonical kind (synonyms map to the same kind). */
  readonly kinds: Readonly<Record<string, string>>
  /** Words that start a plan. */
  readonly planWords: ReadonlyArray<string>
  /** Surface direction word → direction index. */
  readonly directions: Readonly<Record<string, number>>
}

const FILLER = new Set([
  "at",
  "is",
  "on",
  "in",
  "(",
  ")",
  "[",
  "]",
  ",",
  ":",
  ";",
  "the",
  "a",
  "an",
  "row",
  "col",
  "column",
  "=",
  "am",
  "are",
  "now",
  "currently",
  "located",
  "standing",
  "position",
  "cell",
  "square",
  "tile",
  "of",
  "coordinates",
  "r",
  "c"
])
/** Between the moves of a plan: "left then up", "Left || Up", "go right, then go down". */
const PLAN_FILLER = new Set([...FILLER, "then", "and", "go", "move", "|", "||", "-", ">", "."])
/** Between two positions of one kind: "holes at (1, 1) and (2, 3)". */
const MORE = new Set([...FILLER, "and"])
const MAX_CHARS = 20_000
const isInt = (w: string) => /^\d{1,2}$/.test(w)

export const parseReasoning = (text: string, vocab: FactVocabulary): ParsedReasoning => {
  const words = splitWords(String(text).slice(0, MAX_CHARS).toLowerCase())
  const facts: PositionFact[] = []
  let plan: number[] | null = null
  const planSet = new Set(vocab.planWords)
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!
    const kind = vocab.kinds[w]
    if (kind !== undefined) {
      let at = i
      for (;;) {
        const pair = readPair(words, at + 1, at === i ? FILLER : MORE)
        if (!pair) break
        facts.push({ kind, r: pair.r, c: pair.c })
        at = pair.end
      }
      i = at
      continue
    }
    if (plan === null && planSet.has(w)) {
      const p: number[] = []
      let j = i + 1
      for (; j < words.length; j++) {
        const d = vocab.directions[words[j]!]
        if (d !== undefined) p.push(d)
        else if (!PLAN_FILLER.has(words[j]!)) break
      }
      // A plan word without moves ("push the box", "my plan is simple") is not the plan yet.
      if (p.length > 0) {
        plan = p
        i = j - 1
      }
    }
  }
  return { facts, plan }
}

/** Two integers from `from` on with only `skip` words before and between them. */
const readPair = (words: ReadonlyArray<string>, from: number, skip: ReadonlySet<string>): { r: number; c: number; end: number } | undefined => {
  let j = from
  while (j < words.length && skip.has(words[j]!)) j++
  if (j >= words.length || !isInt(words[j]!)) return undefined
  let k = j + 1
  while (k < words.length && FILLER.has(words[k]!)) k++
  if (k >= words.length || !isInt(words[k]!)) return undefined
  return { r: Number(words[j]), c: Number(words[k]), end: k }
}

export const factString = (f: PositionFact): string => `${f.kind} ${f.r} ${f.c}`
