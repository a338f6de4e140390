/**
 * The shipped SearchQA corpus: made-up entities and facts about them, generated at import time
 * from a fixed seed with our Rng (same corpus on every runtime; about 15 ms).
 *
 * Names are three distinct syllables written as three words ("ka vu fi"), so a word-level
 * tokenizer needs only the syllables. Each pool of consonants serves its own entity types
 * (people b d f g h k, cities l m n p, countries j w y, companies and rivers r s t v z), no
 * passage mentions two entities of one pool, and no two entities share a syllable set: the
 * passages that hold all three syllables of a name are exactly the passages about that
 * entity, which keeps BM25 retrieval by name reliable.
 *
 * Facts (relation: subject type → object type, passage wording):
 *   born_in       person  → city     "P was born in C ."
 *   works_for     person  → company  "P works for K ."
 *   located_in    city    → country  "C is a city in the country N ."
 *   capital_of    country → city     "N has the capital city C ."
 *   founded_by    company → person   "K was founded by P ."
 *   based_in      company → city     "K is based in C ."
 *   flows_through river   → country  "R is a river that flows through N ."
 * One passage per fact: 2,320 passages.
 */
import { Rng } from "../../core/host.ts"

export type EntityType = "person" | "city" | "country" | "company" | "river"
export type Relation = "born_in" | "works_for" | "located_in" | "capital_of" | "founded_by" | "based_in" | "flows_through"

export interface Entity {
  readonly id: number
  readonly type: EntityType
  /** Three syllables separated by single spaces. */
  readonly name: string
}

export interface Fact {
  readonly relation: Relation
  readonly subject: number
  readonly object: number
  /** Index of the passage that states this fact. */
  readonly passage: number
}

/** Subject and object types of each relation. */
export const SIGNATURE: Record<Relation, readonly [EntityType, EntityType]> = {
  born_in: ["person", "city"],
  works_for: ["person", "company"],
  located_in: ["city", "country"],
  capital_of: ["country", "city"],
  founded_by: ["company", "person"],
  based_in: ["company", "city"],
  flows_through: ["river", "country"]
}

/** Canonical English wording of a fact (passages and the noise-free teacher use it). */
export const factText = (r: Relation, s: string, o: string): string => {
  switch (r) {
    case "born_in":
      return `${s} was born in ${o}`
    case "works_for":
      return `${s} works for ${o}`
    case "located_in":
      return `${s} is a city in the country ${o}`
    case "capital_of":
      return `${s} has the capital city ${o}`
    case "founded_by":
      return `${s} was founded by ${o}`
    case "based_in":
      return `${s} is based in ${o}`
    case "flows_through":
      return `${s} is a river that flows through ${o}`
  }
}

const VOWELS = ["a", "e", "i", "o", "u"]
// Two-letter English words are left out so that a syllable never reads as a word of the prompt.
const ENGLISH = new Set(["be", "do", "go", "he", "hi", "ho", "me", "no", "so", "to", "we", "ye", "yo"])
const pool = (consonants: string): string[] => [...consonants].flatMap((c) => VOWELS.map((v) => c + v)).filter((s) => !ENGLISH.has(s))

export const SYLLABLE_POOLS = {
  person: pool("bdfghk"),
  city: pool("lmnp"),
  country: pool("jwy"),
  org: pool("rstvz")
} as const
export const SYLLABLES: ReadonlyArray<string> = Object.values(SYLLABLE_POOLS).flat()

/** Corpus size (the defaults give 2,320 passages). */
export const COUNTS = { countries: 30, citiesPerCountry: 8, people: 1000, companies: 200, rivers: 50, workers: 600 } as const
export const CORPUS_SEED = "searchqa-corpus-v1"

export interface Corpus {
  readonly entities: ReadonlyArray<Entity>
  readonly facts: ReadonlyArray<Fact>
  /** Passage texts (lowercase words, "." at the end). */
  readonly passages: ReadonlyArray<string>
  readonly byType: Readonly<Record<EntityType, ReadonlyArray<number>>>
  /** Name → entity id. */
  readonly byName: ReadonlyMap<string, number>
  /** `${relation} ${subject}` → fact (every relation is a function of its subject). */
  readonly factOf: ReadonlyMap<string, Fact>
  /** `${subject} ${object}` → relations holding between them (for grading). */
  readonly pairs: ReadonlyMap<string, ReadonlyArray<Relation>>
}

export const generateCorpus = (seed: string = CORPUS_SEED): Corpus => {
  const rng = new Rng(seed)
  const entities: Entity[] = []
  const used = new Set<string>()
  const byType: Record<EntityType, number[]> = { person: [], city: [], country: [], company: [], river: [] }
  const make = (type: EntityType, syllables: ReadonlyArray<string>): number => {
    for (;;) {
      const parts = [rng.pick(syllables), rng.pick(syllables), rng.pick(syllables)]
      const key = [...parts].sort().join(" ")
      if (parts[0] === parts[1] || parts[1] === parts[2] || parts[0] === parts[2] || used.has(key)) continue
      used.add(key)
      const id = entities.length
      entities.push({ id, type, name: parts.join(" ") })
      byType[type].push(id)
      return id
    }
  }
  const facts: Fact[] = []
  const passages: string[] = []
  const add = (relation: Relation, subject: number, object: number) => {
    facts.push({ relation, subject, object, passage: passages.length })
    passages.push(`${factText(relation, entities[subject]!.name, entities[object]!.name)} .`)
  }

  const countries = Array.from({ length: COUNTS.countries }, () => make("country", SYLLABLE_POOLS.country))
  const cities: number[] = []
  for (const n of countries) {
    for (let i = 0; i < COUNTS.citiesPerCountry; i++) {
      const c = make("city", SYLLABLE_POOLS.city)
      cities.push(c)
      add("located_in", c, n)
      if (i === 0) add("capital_of", n, c)
    }
  }
  const people = Array.from({ length: COUNTS.people }, () => make("person", SYLLABLE_POOLS.person))
  for (const p of people) add("born_in", p, rng.pick(cities))
  const founders = rng.shuffle([...people]).slice(0, COUNTS.companies)
  const companies: number[] = []
  for (const f of founders) {
    const k = make("company", SYLLABLE_POOLS.org)
    companies.push(k)
    add("founded_by", k, f)
    add("based_in", k, rng.pick(cities))
  }
  for (const p of rng.shuffle([...people]).slice(0, COUNTS.workers)) add("works_for", p, rng.pick(companies))
  for (let i = 0; i < COUNTS.rivers; i++) add("flows_through", make("river", SYLLABLE_POOLS.org), rng.pick(countries))

  const byName = new Map(entities.map((e) => [e.name, e.id]))
  const factOf = new Map<string, Fact>()
  const pairs = new Map<string, Relation[]>()
  for (const f of facts) {
    factOf.set(`${f.relation} ${f.subject}`, f)
    const k = `${f.subject} ${f.object}`
    pairs.set(k, [...(pairs.get(k) ?? []), f.relation])
  }
  return { entities, facts, passages, byType, byName, factOf, pairs }
}

/** The corpus every SearchQA env shares (built once, at import). */
export const CORPUS: Corpus = generateCorpus()
