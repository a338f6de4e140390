/**
 * SearchQA questions over the shipped corpus: one hop (one fact answers it) or two hops (the
 * first fact's object is the second fact's subject), as in HotpotQA-style bridge questions.
 * Each hop names the search that finds its fact: the subject's name and a keyword that only
 * that fact's passage holds (see corpus.ts), e.g. "ka vo ril born".
 */
import type { Rng } from "../../core/host.ts"
import { CORPUS, type Corpus, type Fact, type Relation } from "./corpus.ts"

export interface Question {
  readonly text: string
  /** The facts to retrieve, in order (1 or 2). */
  readonly hops: ReadonlyArray<Fact>
  /** Entity id of the answer (the last hop's object). */
  readonly answer: number
}

/** The keyword the canonical search for a relation adds to the subject's name. */
export const SEARCH_KEYWORD: Record<Relation, string> = {
  born_in: "born",
  works_for: "works",
  located_in: "country",
  capital_of: "capital",
  founded_by: "founded",
  based_in: "based",
  flows_through: "flows"
}

interface Template {
  readonly chain: ReadonlyArray<Relation>
  readonly text: (subject: string) => string
}

const ONE_HOP: ReadonlyArray<Template> = [
  { chain: ["born_in"], text: (s) => `where was ${s} born ?` },
  { chain: ["located_in"], text: (s) => `in which country is the city ${s} ?` },
  { chain: ["capital_of"], text: (s) => `what is the capital of ${s} ?` },
  { chain: ["founded_by"], text: (s) => `who founded ${s} ?` },
  { chain: ["based_in"], text: (s) => `where is ${s} based ?` },
  { chain: ["flows_through"], text: (s) => `which country does the river ${s} flow through ?` }
]

const TWO_HOP: ReadonlyArray<Template> = [
  { chain: ["born_in", "located_in"], text: (s) => `in which country was ${s} born ?` },
  { chain: ["founded_by", "born_in"], text: (s) => `where was the founder of ${s} born ?` },
  { chain: ["based_in", "located_in"], text: (s) => `in which country is ${s} based ?` },
  { chain: ["flows_through", "capital_of"], text: (s) => `what is the capital of the country that ${s} flows through ?` },
  { chain: ["works_for", "founded_by"], text: (s) => `who founded the company that ${s} works for ?` }
]

/** Words of the question templates (for the vocabulary). */
export const QUESTION_WORDS = [...ONE_HOP, ...TWO_HOP].map((t) => t.text("")).join(" ")

/** Subjects of a relation: entities for which the fact exists. */
const subjectsOf = (corpus: Corpus, r: Relation): number[] => corpus.facts.filter((f) => f.relation === r).map((f) => f.subject)
const SUBJECTS = new Map<Relation, number[]>()
const subjects = (r: Relation): number[] => {
  let s = SUBJECTS.get(r)
  if (s === undefined) SUBJECTS.set(r, (s = subjectsOf(CORPUS, r)))
  return s
}

export const generateQuestion = (rng: Rng, hops: 1 | 2 | "mixed"): Question => {
  const n = hops === "mixed" ? (rng.bool() ? 2 : 1) : hops
  const t = rng.pick(n === 1 ? ONE_HOP : TWO_HOP)
  const subject = rng.pick(subjects(t.chain[0]!))
  const chain: Fact[] = []
  let at = subject
  for (const r of t.chain) {
    const f = CORPUS.factOf.get(`${r} ${at}`)!
    chain.push(f)
    at = f.object
  }
  return { text: t.text(CORPUS.entities[subject]!.name), hops: chain, answer: at }
}

/** The canonical search that retrieves a fact. */
export const hopQuery = (f: Fact): string => `${CORPUS.entities[f.subject]!.name} ${SEARCH_KEYWORD[f.relation]}`
