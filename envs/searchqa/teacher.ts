/**
 * SearchQA's teacher and reasoning grader.
 *
 * Teacher (noise 0), per turn: the facts found so far, then the plan.
 *   turn 1: "question about person ka vu fi . plan : search ka vu fi born"
 *   turn 2: "ka vu fi was born in ni pe lo . plan : search ni pe lo country"
 *   turn 3: "ka vu fi was born in ni pe lo , ni pe lo is a city in the country wu je wi .
 *            so the answer is wu je wi"
 * A hop counts as found once its passage was shown or its canonical search was issued (so a
 * remote server with another corpus cannot loop the teacher). Reasoning noise varies the fact
 * wording (synonyms per relation), the order of the facts, the plan phrase, and whether the
 * question's subject is named with its type. Action noise replaces the action by a search for
 * a random entity or a wrong finish; the reasoning stays the clean one.
 *
 * Grading (reading.ts) on any text: factAccuracy = true stated facts / stated facts (0 when
 * none); consistency = 1 iff the action follows the plan: a search whose query names the plan's
 * target, or a finish whose answer is the target's name (SQuAD-normalised), and the kind the
 * plan names (if it names one).
 */
import type { ReasoningGrade, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { CORPUS, factText, type Fact, type Relation } from "./corpus.ts"
import { hopQuery, SEARCH_KEYWORD } from "./questions.ts"
import { mentions, readItems, readPlan, statedFacts } from "./reading.ts"
import { normalizeAnswer } from "./squad.ts"

export interface SearchQAState {
  readonly question: string
  /** The facts the question needs, in order. */
  readonly hops: ReadonlyArray<Fact>
  /** Answer entity id and name. */
  readonly answer: number
  readonly answerName: string
  /** Per hop: its passage was shown, or its canonical search was issued. */
  readonly found: ReadonlyArray<boolean>
}

const name = (id: number): string => CORPUS.entities[id]!.name

/** Synonymous wordings per relation; the first is the canonical one (corpus.ts factText). */
const WORDINGS: Record<Relation, ReadonlyArray<(s: string, o: string) => string>> = {
  born_in: [(s, o) => factText("born_in", s, o), (s, o) => `the birthplace of ${s} is ${o}`, (s, o) => `${o} is where ${s} was born`],
  works_for: [(s, o) => factText("works_for", s, o), (s, o) => `${s} is an employee of ${o}`],
  located_in: [(s, o) => factText("located_in", s, o), (s, o) => `${s} is located in ${o}`, (s, o) => `${s} lies in ${o}`],
  capital_of: [(s, o) => factText("capital_of", s, o), (s, o) => `the capital of ${s} is ${o}`, (s, o) => `${o} is the capital of ${s}`],
  founded_by: [(s, o) => factText("founded_by", s, o), (s, o) => `the founder of ${s} is ${o}`, (s, o) => `${s} was founded by the person ${o}`],
  based_in: [(s, o) => factText("based_in", s, o), (s, o) => `${s} has its headquarters in ${o}`, (s, o) => `the company ${s} is based in the city ${o}`],
  flows_through: [(s, o) => factText("flows_through", s, o), (s, o) => `${s} flows through ${o}`, (s, o) => `the river ${s} runs through ${o}`]
}
const SEARCH_PLANS = ["plan : search", "next : search", "so search"]
const FINISH_PLANS = ["so the answer is", "plan : finish", "answer :"]

/** Words the teacher uses beyond the corpus and question wording (for the vocabulary). */
export const TEACHER_WORDS = [
  "question about person city country company river",
  ...Object.values(WORDINGS).flatMap((ws) => ws.map((w) => w("", ""))),
  ...SEARCH_PLANS,
  ...FINISH_PLANS,
  ...Object.values(SEARCH_KEYWORD)
].join(" ")

export const nextHop = (s: SearchQAState): number => {
  const h = s.found.indexOf(false)
  return h < 0 ? s.hops.length : h
}

export const teachSearchQA = (s: SearchQAState, options: TeacherOptions, rng: Rng, noiseAction: (rng: Rng) => string): TeacherStep => {
  const noisy = () => options.reasoningNoise > 0 && rng.bool(options.reasoningNoise)
  const h = nextHop(s)
  const known = s.hops.slice(0, h)
  const parts = known.map((f) => {
    const ws = WORDINGS[f.relation]
    return (noisy() ? rng.pick(ws) : ws[0]!)(name(f.subject), name(f.object))
  })
  if (known.length > 1 && noisy()) parts.reverse()
  const facts = known.map((f) => factText(f.relation, name(f.subject), name(f.object)))
  const subject = s.hops[0]!.subject
  const subjectType = CORPUS.entities[subject]!.type
  if (h === 0) {
    parts.push(noisy() ? `${name(subject)} is a ${subjectType}` : `question about ${subjectType} ${name(subject)}`)
    facts.push(`${name(subject)} is a ${subjectType}`)
  }
  let intendedAction: string
  let plan: string
  if (h < s.hops.length) {
    const q = hopQuery(s.hops[h]!)
    intendedAction = `search[${q}]`
    plan = `${noisy() ? rng.pick(SEARCH_PLANS) : SEARCH_PLANS[0]} ${q}`
  } else {
    intendedAction = `finish[${s.answerName}]`
    plan = `${noisy() ? rng.pick(FINISH_PLANS) : FINISH_PLANS[0]} ${s.answerName}`
  }
  const reasoning = `${parts.join(" , ")} . ${plan}`
  const action = options.epsilon > 0 && rng.bool(options.epsilon) ? noiseAction(rng) : intendedAction
  return { reasoning, action, facts, intendedAction }
}

// ---- actions -------------------------------------------------------------------------------

export const MAX_ACTION_CHARS = 1000
export const MAX_ARGUMENT_CHARS = 300
const ACTION_RE = /^\s*(search|finish)\s*\[([^[\]]*)\]\s*\.?\s*$/i
const PRINTABLE = /^[\x20-\x7e]+$/
const ALNUM = /[a-z0-9]/i

export interface Action {
  readonly kind: "search" | "finish"
  readonly argument: string
}

/** Strict parse of `search[query]` / `finish[answer]`; undefined when the text is not one. */
export const parseAction = (text: unknown): Action | undefined => {
  if (typeof text !== "string" || text.length > MAX_ACTION_CHARS) return undefined
  const m = ACTION_RE.exec(text)
  if (!m) return undefined
  const argument = m[2]!.trim()
  if (argument.length === 0 || argument.length > MAX_ARGUMENT_CHARS || !PRINTABLE.test(argument) || !ALNUM.test(argument)) return undefined
  return { kind: m[1]!.toLowerCase() as Action["kind"], argument }
}

// ---- grading -------------------------------------------------------------------------------

export const gradeSearchQA = (_state: SearchQAState, reasoning: string, action: string): ReasoningGrade => {
  const items = readItems(reasoning)
  const facts = statedFacts(items)
  const right = facts.filter((f) => f.true).length
  const factAccuracy = facts.length === 0 ? 0 : right / facts.length
  const plan = readPlan(items)
  const a = parseAction(action)
  let consistency = 0
  if (plan && a && (plan.kind === undefined || plan.kind === a.kind)) {
    if (a.kind === "search") consistency = mentions(a.argument).includes(plan.target) ? 1 : 0
    else consistency = normalizeAnswer(a.argument) === normalizeAnswer(name(plan.target)) ? 1 : 0
  }
  return { factAccuracy, consistency }
}
