/**
 * SearchQA (searchqa-v1): answer a factoid question by searching a corpus, as in Search-R1 /
 * RAGEN's search env.
 *
 * Description: a question about made-up entities of the shipped corpus (corpus.ts: 2,320
 *   passages, one fact each), needing one fact ("where was ka vu fi born ?") or two chained
 *   facts ("in which country was ka vu fi born ?"); questions.ts.
 * Observation: "question : ..." and, after a search, the query and its top-k passages
 *   ("1 . ka vu fi was born in ni pe lo ."), retrieved by the in-process BM25 (bm25.ts) or,
 *   with the `retriever` option, by an external server over HTTP (remote.ts).
 * Actions: `search[query]` (any printable ASCII query, up to 300 characters) and
 *   `finish[answer]` (ends the episode). Anything else is invalid: the env is not stepped.
 * Rewards (docs/design.md §7, Search-R1's qa_em reward with RAGEN's F1 fallback): on finish, 1 for a
 *   SQuAD-normalised exact match, else the token F1 when it is ≥ 0.3, else 0 (an entity name
 *   counts as one token, see answerTokens); searches earn 0.
 *   Success = exact match.
 * Episode end: terminated on finish; the harness truncates when the action budget (10) is spent
 *   (core/env/time-limit.ts).
 * Arguments: hops 1 | 2 | "mixed" (default mixed: each seed draws 1 or 2), topk 3, retriever
 *   { url, format "search-r1" | "ragen", timeoutMs 5000, retries 2 } (default none: local BM25).
 * Remote retrieval is asynchronous: with `retriever` set, use `stepAsync`; `step` throws.
 * Version history: v1 — first version.
 */
import { Effect, Schema } from "effect"
import type { Env, EnvSpec, ReasoningGrade, StepResult, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import { derive, type Rng, withDefault as dflt } from "../../core/host.ts"
import { vocabularyOf } from "../common/text.ts"
import { CORPUS, SYLLABLES, type Fact } from "./corpus.ts"
import { generateQuestion, hopQuery, QUESTION_WORDS, SEARCH_KEYWORD, type Question } from "./questions.ts"
import { retrieve, RetrieverFormat, type RetrieverSettings } from "./remote.ts"
import { localPassageOf, localSearch, formatPassages, showRemote, sharedIndex } from "./retriever.ts"
import { normalizeAnswer, scoreNormalized } from "./squad.ts"
import { gradeSearchQA, parseAction, teachSearchQA, TEACHER_WORDS, type Action, type SearchQAState } from "./teacher.ts"

const int = (lo: number, hi: number) => Schema.Int.check(Schema.isBetween({ minimum: lo, maximum: hi }))

const HttpUrl = Schema.String.check(
  Schema.makeFilter((u: string) => {
    try {
      const p = new URL(u).protocol
      return p === "http:" || p === "https:" ? undefined : `retriever.url must be http(s), got "${u}"`
    } catch {
      return `retriever.url must be a URL such as http://127.0.0.1:8000/retrieve, got "${u}"`
    }
  })
)

export const RetrieverOptions = Schema.Struct({
  /** Full endpoint, e.g. http://127.0.0.1:8000/retrieve. */
  url: HttpUrl,
  /** Wire format: Search-R1's {"queries", "topk"} or RAGEN's {"query", "top_k"}. */
  format: dflt(RetrieverFormat, "search-r1"),
  /** Per-attempt timeout. */
  timeoutMs: dflt(int(1, 600_000), 5000),
  /** Retries after a failed attempt (network error, timeout, 5xx). */
  retries: dflt(int(0, 10), 2)
})

export const SearchQAOptions = Schema.Struct({
  /** Facts per question: 1, 2, or "mixed" (each seed draws 1 or 2). */
  hops: dflt(Schema.Literals([1, 2, "mixed"]), "mixed"),
  /** Passages per search. */
  topk: dflt(int(1, 10), 3),
  /** An external retrieval server instead of the built-in BM25. */
  retriever: Schema.optional(RetrieverOptions)
})
export type SearchQAOptions = typeof SearchQAOptions.Type

export const MAX_TURNS = 5
export const ACTION_BUDGET = 10
const INVALID_LINE = "no valid action was taken"
const MAX_QUERY_WORDS = 30
const KEYWORDS = Object.values(SEARCH_KEYWORD)

/**
 * Answer tokens for F1 with each entity name as ONE token: names are three syllable words, and
 * sharing one syllable with the right name (F1 1/3 ≥ 0.3) must not earn partial credit. Extra
 * words around the right name still do ("the city ni pe lo": F1 2/3).
 */
export const answerTokens = (normalized: string): string[] => {
  const w = normalized.split(" ").filter((x) => x.length > 0)
  const out: string[] = []
  for (let i = 0; i < w.length; i++) {
    const name = i + 2 < w.length ? `${w[i]} ${w[i + 1]} ${w[i + 2]}` : ""
    if (name !== "" && CORPUS.byName.has(name)) {
      out.push(name)
      i += 2
    } else out.push(w[i]!)
  }
  return out
}

// The normalised canonical search of each fact, computed on first use (per passage).
const HOP_KEYS: Array<string | undefined> = []
const hopKey = (f: Fact): string => (HOP_KEYS[f.passage] ??= sharedIndex().key(hopQuery(f)))

/** The query as the observation echoes it: lowercase words, at most 30. */
const showQuery = (q: string): string => (q.toLowerCase().match(/[a-z0-9]+/g) ?? []).slice(0, MAX_QUERY_WORDS).join(" ")

class SearchQAEnv implements Env<SearchQAState> {
  readonly id = "searchqa-v1"
  private q!: Question
  private head = ""
  private found: boolean[] = []
  private hopKeys: string[] = []
  private truth = ""
  private truthTokens: string[] = []
  private last = ""
  private terminated = false
  private readonly remote: RetrieverSettings | undefined

  constructor(private readonly options: SearchQAOptions) {
    this.remote = options.retriever
    this.reset(0)
  }

  get done(): boolean {
    return this.terminated
  }

  reset(seed: number): string {
    this.q = generateQuestion(derive(seed, "searchqa"), this.options.hops)
    this.head = `question : ${this.q.text}`
    this.found = this.q.hops.map(() => false)
    this.hopKeys = this.q.hops.map(hopKey)
    this.truth = normalizeAnswer(CORPUS.entities[this.q.answer]!.name)
    this.truthTokens = [this.truth] // a name is one F1 token (answerTokens)
    this.terminated = false
    this.last = this.head
    return this.head
  }

  step(action: string): StepResult {
    if (this.remote) {
      throw new Error(`searchqa-v1 with a retriever (${this.remote.url}) searches over HTTP: call stepAsync(action), not step(action)`)
    }
    const a = parseAction(action)
    if (a?.kind === "search" && !this.done) return this.searchLocal(a)
    return this.settle(a)
  }

  async stepAsync(action: string): Promise<StepResult> {
    const a = parseAction(action)
    if (a?.kind !== "search" || this.done) return this.settle(a)
    if (!this.remote) return this.searchLocal(a)
    const texts = await Effect.runPromise(retrieve(this.remote, a.argument, this.options.topk))
    for (const t of texts) {
      const d = localPassageOf(t)
      for (let h = 0; h < this.found.length; h++) if (d >= 0 && this.q.hops[h]!.passage === d) this.found[h] = true
    }
    return this.afterSearch(formatPassages(texts.map(showRemote)), sharedIndex().key(a.argument), showQuery(a.argument))
  }

  private searchLocal(a: Action): StepResult {
    const { docs, block, key, shown } = localSearch(a.argument, this.options.topk, showQuery)
    for (let h = 0; h < this.found.length; h++) if (!this.found[h] && docs.includes(this.q.hops[h]!.passage)) this.found[h] = true
    return this.afterSearch(block, key, shown)
  }

  /** Bookkeeping after a search: the canonical search of a hop counts as finding it. */
  private afterSearch(block: string, key: string, shown: string): StepResult {
    for (let h = 0; h < this.found.length; h++) if (key === this.hopKeys[h]) this.found[h] = true
    this.last = `${this.head}\nsearch ${shown} :\n${block}`
    return { observation: this.last, reward: 0, terminated: false, truncated: false, info: { success: false, valid: true, effective: true, action: "search" } }
  }

  /** Finish, invalid text, or any action after the end. */
  private settle(a: Action | undefined): StepResult {
    const valid = a !== undefined
    if (this.done) return { observation: this.last, reward: 0, terminated: true, truncated: false, info: { success: false, valid, effective: false } }
    let reward = 0
    let success = false
    if (a?.kind === "finish") {
      const sc = scoreNormalized(normalizeAnswer(a.argument), this.truth, this.truthTokens, answerTokens)
      reward = sc.reward
      success = sc.exact
      this.terminated = true
      const verdict = success ? "correct" : reward > 0 ? "partly correct" : "wrong"
      this.last = `${this.head}\nanswer ${sc.normalized.split(" ").slice(0, MAX_QUERY_WORDS).join(" ")} : ${verdict}`
    } else {
      this.last = this.last.startsWith(INVALID_LINE) ? this.last : `${INVALID_LINE}\n${this.last}`
    }
    return {
      observation: this.last,
      reward,
      terminated: this.terminated,
      truncated: false,
      info: { success, valid, effective: valid, ...(valid ? { action: "finish" } : {}) }
    }
  }

  state(): SearchQAState {
    const answer = this.q.answer
    return { question: this.q.text, hops: this.q.hops, answer, answerName: CORPUS.entities[answer]!.name, found: [...this.found] }
  }

  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    return teachSearchQA(this.state(), options, rng, (r) => this.noiseAction(r))
  }

  gradeReasoning(state: SearchQAState, reasoning: string, action: string): ReasoningGrade {
    return gradeSearchQA(state, reasoning, action)
  }

  /** Action noise: a search for a random entity, or a finish with a wrong entity. */
  private noiseAction(rng: Rng): string {
    if (rng.bool()) return this.randomSearch(rng)
    let e = rng.int(CORPUS.entities.length)
    if (e === this.q.answer) e = (e + 1) % CORPUS.entities.length
    return `finish[${CORPUS.entities[e]!.name}]`
  }

  private randomSearch(rng: Rng): string {
    return `search[${CORPUS.entities[rng.int(CORPUS.entities.length)]!.name} ${rng.pick(KEYWORDS)}]`
  }

  /** Uniformly a search (random entity and keyword) or a finish (random entity). */
  randomAction(rng: Rng): string {
    return rng.bool() ? this.randomSearch(rng) : `finish[${CORPUS.entities[rng.int(CORPUS.entities.length)]!.name}]`
  }
}

const instructions = (o: SearchQAOptions): string =>
  [
    "Answer the question . You can search a corpus of short passages .",
    `search[ query ] shows the top ${o.topk} passages for the query . finish[ answer ] gives the final answer and ends the episode .`,
    "Names are three words , for example ka vu fi . Some questions need two searches .",
    `Reward 1 for the exact answer , else the word overlap F1 if it is at least 0.3 , else 0 . At most ${ACTION_BUDGET} actions .`
  ].join("\n")

export const searchQASpec: EnvSpec<SearchQAOptions> = {
  id: "searchqa-v1",
  externalOptions: [{ path: ["retriever", "url"], kind: "url" }],
  description: "SearchQA: 1–2 hop questions over a shipped corpus of 2,320 generated passages; search[query] (BM25, or a Search-R1/RAGEN retrieval server) and finish[answer]; EM / F1 reward",
  options: SearchQAOptions,
  maxTurns: MAX_TURNS,
  actionBudget: ACTION_BUDGET,
  // Each observation repeats the question and shows the last search's passages, so the current
  // observation is enough to act on (a 2-hop answer is in the second search's passage); Markov
  // prompts fit the tiny policy's 128-token context, history and instructions do not.
  markov: true,
  make: (options) => new SearchQAEnv(options),
  vocabulary: (o) =>
    vocabularyOf(
      instructions(o),
      INVALID_LINE,
      "question search answer correct partly wrong no passages found [ ] 1 2 3 4 5 6 7 8 9 10 .",
      QUESTION_WORDS,
      TEACHER_WORDS,
      CORPUS.passages.slice(0, 40).join(" "),
      "is a city in the country has capital was born works for founded by based river that flows through",
      SYLLABLES.join(" ")
    ),
  instructions
}
