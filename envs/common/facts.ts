/**
 * Reading facts and a plan out of free reasoning text (any wording a policy writes: partial,
 * reordered, garbled). Facts are "<kind> <row> <col>" with optional filler words between
 * ("player at 2 3", "box (1, 4)"); a plan is a plan keyword followed by direction words
 * ("path down right"). Unknown words are skipped, so garbage just yields fewer facts.
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
  /** Direction indices of the first stated plan, or null when no plan keyword appears. */
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

const FILLER = new Set(["at", "is", "on", "in", "(", ")", ",", ":", "the", "a", "row", "col", "column", "="])
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
      let j = i + 1
      while (j < words.length && FILLER.has(words[j]!)) j++
      if (j + 1 < words.length) {
        let k = j + 1
        while (k < words.length && FILLER.has(words[k]!)) k++
        if (k < words.length && isInt(words[j]!) && isInt(words[k]!)) {
          facts.push({ kind, r: Number(words[j]), c: Number(words[k]) })
          i = k
        }
      }
      continue
    }
    if (plan === null && planSet.has(w)) {
      const p: number[] = []
      let j = i + 1
      for (; j < words.length; j++) {
        const d = vocab.directions[words[j]!]
        if (d !== undefined) p.push(d)
        else if (!FILLER.has(words[j]!)) break
      }
      plan = p
      i = j - 1
    }
  }
  return { facts, plan }
}

export const factString = (f: PositionFact): string => `${f.kind} ${f.r} ${f.c}`
