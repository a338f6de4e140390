/**
 * Reading entity mentions, facts and a plan out of free text (any wording a policy writes:
 * partial, reordered, garbled). Used by the reasoning grader and to read search queries.
 *
 * - Mentions: every run of three words that is an entity's name (names are three syllables,
 *   corpus.ts). Unknown names are not mentions, so garbage just yields fewer facts.
 * - Clauses: split at . , ; : ? ! and at "then" / "so" / "and".
 * - Relation facts: for each pair of neighbouring mentions in a clause, a relation keyword in
 *   the span around them ("born", "capital", "founded", ...) states a fact; its direction
 *   comes from the entity types (corpus.ts SIGNATURE). A keyword whose types do not fit any of
 *   its relations is a stated fact that is false. Without a keyword, "city in country" reads
 *   as located_in.
 * - Type facts: "<name> is a <type>" and "<type> <name>".
 * - Plan: after the last plan word (plan, next, search, finish, answer, so) that a mention
 *   follows, that mention is the target; "search" or "finish"/"answer" between them names
 *   the kind of action. Without a plan word the last mention is the target.
 */
import { CORPUS, SIGNATURE, type EntityType, type Relation } from "./corpus.ts"

const MAX_CHARS = 20_000
const TOKEN = /[a-z0-9]+|[.,;:?!]/g
const BREAK = new Set([".", ",", ";", ":", "?", "!", "then", "so", "and"])
const TYPES = new Set<string>(["person", "city", "country", "company", "river"])

const KEYWORDS: Record<string, ReadonlyArray<Relation>> = {
  born: ["born_in"],
  birthplace: ["born_in"],
  works: ["works_for"],
  work: ["works_for"],
  employee: ["works_for"],
  located: ["located_in"],
  lies: ["located_in"],
  capital: ["capital_of"],
  founded: ["founded_by"],
  founder: ["founded_by"],
  based: ["based_in"],
  headquarters: ["based_in"],
  headquartered: ["based_in"],
  flows: ["flows_through"],
  flow: ["flows_through"],
  runs: ["flows_through"]
}
const PLAN_WORDS = new Set(["plan", "next", "search", "finish", "answer", "so"])

export type Item = { readonly k: "w"; readonly w: string } | { readonly k: "e"; readonly id: number }

/** Words and entity mentions of a text. */
export const readItems = (text: string): Item[] => {
  const words = String(text).slice(0, MAX_CHARS).toLowerCase().match(TOKEN) ?? []
  const out: Item[] = []
  for (let i = 0; i < words.length; i++) {
    if (i + 2 < words.length) {
      const id = CORPUS.byName.get(`${words[i]} ${words[i + 1]} ${words[i + 2]}`)
      if (id !== undefined) {
        out.push({ k: "e", id })
        i += 2
        continue
      }
    }
    out.push({ k: "w", w: words[i]! })
  }
  return out
}

/** Entity ids mentioned in a text, in order. */
export const mentions = (text: string): number[] => {
  const out: number[] = []
  for (const it of readItems(text)) if (it.k === "e") out.push(it.id)
  return out
}

export interface StatedFact {
  /** "type" for a type fact (then `object` is -1 and `type` is set). */
  readonly relation: Relation | "type" | "unknown"
  readonly subject: number
  readonly object: number
  readonly type?: EntityType
  readonly true: boolean
}

const typeOf = (id: number): EntityType => CORPUS.entities[id]!.type

const relationFact = (a: number, b: number, words: ReadonlyArray<string>): StatedFact | undefined => {
  const ta = typeOf(a)
  const tb = typeOf(b)
  let keyword = false
  for (const w of words) {
    const rels = KEYWORDS[w]
    if (rels === undefined) continue
    keyword = true
    for (const r of rels) {
      const [s, o] = SIGNATURE[r]
      const [subject, object] = s === ta && o === tb ? [a, b] : s === tb && o === ta ? [b, a] : [-1, -1]
      if (subject < 0) continue
      return { relation: r, subject, object, true: (CORPUS.pairs.get(`${subject} ${object}`) ?? []).includes(r) }
    }
  }
  if (keyword) return { relation: "unknown", subject: a, object: b, true: false }
  // "X is a city in the country Y": no keyword, the types and "in" say located_in.
  if (words.includes("in") && ((ta === "city" && tb === "country") || (ta === "country" && tb === "city"))) {
    const [subject, object] = ta === "city" ? [a, b] : [b, a]
    return { relation: "located_in", subject, object, true: (CORPUS.pairs.get(`${subject} ${object}`) ?? []).includes("located_in") }
  }
  return undefined
}

/** Every fact a text states (relation facts and type facts). */
export const statedFacts = (items: ReadonlyArray<Item>): StatedFact[] => {
  const out: StatedFact[] = []
  // Type facts.
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!
    if (it.k !== "e") continue
    const prev = items[i - 1]
    if (prev?.k === "w" && TYPES.has(prev.w)) out.push({ relation: "type", subject: it.id, object: -1, type: prev.w as EntityType, true: typeOf(it.id) === prev.w })
    const [n1, n2, n3] = [items[i + 1], items[i + 2], items[i + 3]]
    if (n1?.k === "w" && n1.w === "is") {
      const t = n2?.k === "w" && (n2.w === "a" || n2.w === "an" || n2.w === "the") ? n3 : n2
      if (t?.k === "w" && TYPES.has(t.w)) out.push({ relation: "type", subject: it.id, object: -1, type: t.w as EntityType, true: typeOf(it.id) === t.w })
    }
  }
  // Relation facts, clause by clause.
  let start = 0
  for (let i = 0; i <= items.length; i++) {
    const it = items[i]
    if (it !== undefined && !(it.k === "w" && BREAK.has(it.w))) continue
    const clause = items.slice(start, i)
    start = i + 1
    const at: number[] = []
    clause.forEach((c, j) => c.k === "e" && at.push(j))
    for (let m = 0; m + 1 < at.length; m++) {
      const lo = m > 0 ? at[m - 1]! + 1 : 0
      const hi = m + 2 < at.length ? at[m + 2]! : clause.length
      const words: string[] = []
      for (let j = lo; j < hi; j++) {
        const c = clause[j]!
        if (c.k === "w") words.push(c.w)
      }
      const a = clause[at[m]!] as { id: number }
      const b = clause[at[m + 1]!] as { id: number }
      const f = relationFact(a.id, b.id, words)
      if (f) out.push(f)
    }
  }
  return out
}

export interface Plan {
  readonly target: number
  readonly kind: "search" | "finish" | undefined
}

/** The entity the text plans to act on next, and the kind of action when it says so. */
export const readPlan = (items: ReadonlyArray<Item>): Plan | undefined => {
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!
    if (it.k !== "w" || !PLAN_WORDS.has(it.w)) continue
    let kind: Plan["kind"]
    for (let j = i; j < items.length; j++) {
      const c = items[j]!
      if (c.k === "e") return { target: c.id, kind }
      if (c.w === "search") kind = "search"
      else if (c.w === "finish" || c.w === "answer") kind = "finish"
    }
  }
  for (let i = items.length - 1; i >= 0; i--) {
    const it = items[i]!
    if (it.k === "e") return { target: it.id, kind: undefined }
  }
  return undefined
}
