import { describe, expect, test } from "bun:test"
import { withTimeLimit } from "../../core/env/time-limit.ts"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import envsPlugin from "../../envs/plugin.ts"
import { splitWords } from "../../envs/common/text.ts"
import { B, BM25, K1 } from "../../envs/searchqa/bm25.ts"
import { CORPUS, generateCorpus, SIGNATURE } from "../../envs/searchqa/corpus.ts"
import { answerTokens, searchQASpec, type SearchQAOptions } from "../../envs/searchqa/env.ts"
import { hopQuery } from "../../envs/searchqa/questions.ts"
import { answerReward, exactMatch, f1Score, normalizeAnswer } from "../../envs/searchqa/squad.ts"
import { gradeSearchQA, parseAction, type SearchQAState } from "../../envs/searchqa/teacher.ts"
import { checkEnv } from "../helpers/check-env.ts"

const options = (raw: Record<string, unknown> = {}): SearchQAOptions => {
  const r = decodeSync(searchQASpec.options, raw)
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const E = (type: keyof typeof CORPUS.byType, i = 0) => CORPUS.entities[CORPUS.byType[type][i]!]!
const factOf = (rel: string, subject: number) => CORPUS.factOf.get(`${rel} ${subject}`)!
const nameOf = (id: number) => CORPUS.entities[id]!.name

/** Play an episode with the teacher; returns the steps, the final info and the return. */
const playTeacher = (env: ReturnType<typeof searchQASpec.make>, seed: number, epsilon: number, noise: number, rng: Rng) => {
  env.reset(seed)
  let ret = 0
  let steps = 0
  let success = false
  let graded = true
  while (!env.done) {
    const t = env.teach({ epsilon, reasoningNoise: noise }, rng)
    const g = env.gradeReasoning(env.state(), t.reasoning, t.intendedAction)
    if (g.factAccuracy !== 1 || g.consistency !== 1) graded = false
    const r = env.step(t.action)
    ret += r.reward
    steps++
    success ||= r.info.success
  }
  return { ret, steps, success, graded }
}

describe("searchqa corpus", () => {
  test("deterministic, 2–3 thousand passages, generated fast", () => {
    const t0 = performance.now()
    const c = generateCorpus()
    const ms = performance.now() - t0
    expect(ms).toBeLessThan(250) // about 15 ms alone; generous on a loaded 2-core box
    expect(c.passages).toEqual(CORPUS.passages)
    expect(c.passages.length).toBeGreaterThanOrEqual(2000)
    expect(c.passages.length).toBeLessThanOrEqual(3000)
    expect(generateCorpus("another seed").passages).not.toEqual(CORPUS.passages)
  })
  test("names are three distinct syllables with unique syllable sets; facts fit their signatures", () => {
    const sets = new Set<string>()
    for (const e of CORPUS.entities) {
      const parts = e.name.split(" ")
      expect(parts.length).toBe(3)
      expect(new Set(parts).size).toBe(3)
      sets.add([...parts].sort().join(" "))
    }
    expect(sets.size).toBe(CORPUS.entities.length)
    for (const f of CORPUS.facts) {
      const [s, o] = SIGNATURE[f.relation]
      expect(CORPUS.entities[f.subject]!.type).toBe(s)
      expect(CORPUS.entities[f.object]!.type).toBe(o)
      expect(CORPUS.passages[f.passage]).toContain(nameOf(f.subject))
      expect(CORPUS.passages[f.passage]).toContain(nameOf(f.object))
    }
  })
})

describe("searchqa BM25", () => {
  test("scores follow Robertson & Zaragoza's formula (k1 1.2, b 0.75, Lucene IDF)", () => {
    const docs = ["alpha beta", "alpha alpha gamma delta", "beta gamma"]
    const bm = new BM25(docs)
    const N = 3
    const avgdl = (2 + 4 + 2) / 3
    const idf = (n: number) => Math.log(1 + (N - n + 0.5) / (n + 0.5))
    const w = (tf: number, dl: number) => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * dl) / avgdl))
    const scored = bm.searchScored("alpha gamma", 3)
    const expected = new Map([
      [0, idf(2) * w(1, 2)],
      [1, idf(2) * w(2, 4) + idf(2) * w(1, 4)],
      [2, idf(2) * w(1, 2)]
    ])
    expect(scored.map((s) => s.doc)).toEqual([1, 0, 2]) // ties (0 and 2) rank the lower index first
    for (const s of scored) expect(s.score).toBeCloseTo(expected.get(s.doc)!, 5)
    expect(bm.search("nothing here", 3).length).toBe(0)
    expect(bm.search("", 3).length).toBe(0)
  })
  test("the canonical search of every fact ranks its passage first; results are cached per normalised query", () => {
    const bm = new BM25(CORPUS.passages)
    for (const f of CORPUS.facts) expect(bm.search(hopQuery(f), 3)[0]).toBe(f.passage)
    const q = hopQuery(CORPUS.facts[5]!)
    expect(bm.search(q, 3)).toBe(bm.search(`  ${q.toUpperCase()} ?? the `, 3))
  })
})

describe("searchqa answer scoring (SQuAD v1.1)", () => {
  test("normalisation, EM, F1 and the reward rule", () => {
    expect(normalizeAnswer("  The  Ka-vu, FI!  ")).toBe("kavu fi")
    expect(normalizeAnswer("an apple a day")).toBe("apple day")
    expect(exactMatch("The ni pe lo.", "ni pe lo")).toBe(true)
    expect(f1Score("ni pe", "ni pe lo")).toBeCloseTo(0.8)
    expect(f1Score("", "ni pe lo")).toBe(0)
    expect(answerReward("ni pe lo", "ni pe lo")).toBe(1)
    expect(answerReward("ni pe", "ni pe lo")).toBeCloseTo(0.8)
    // one of five predicted tokens right: P 1/5, R 1/3, F1 0.25 < 0.3 ⇒ 0
    expect(f1Score("ni xa xb xc xd", "ni pe lo")).toBeCloseTo(0.25)
    expect(answerReward("ni xa xb xc xd", "ni pe lo")).toBe(0)
  })
})

describe("searchqa-v1", () => {
  test("is registered and passes checkEnv for every hops setting", () => {
    expect((envsPlugin.envs ?? []).map((s) => s.id)).toContain("searchqa-v1")
    checkEnv(searchQASpec, {})
    checkEnv(searchQASpec, { hops: 1, topk: 1 }, [3, 4])
    checkEnv(searchQASpec, { hops: 2, topk: 5 }, [3, 4])
  })
  test("options: defaults and clear errors", () => {
    expect(options()).toEqual({ hops: "mixed", topk: 3 })
    expect(decodeSync(searchQASpec.options, { hops: 3 }).ok).toBe(false)
    expect(decodeSync(searchQASpec.options, { topk: 0 }).ok).toBe(false)
    const bad = decodeSync(searchQASpec.options, { retriever: { url: "not a url" } })
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.message).toContain("retriever.url")
    expect(decodeSync(searchQASpec.options, { retriever: { url: "http://127.0.0.1:8000/retrieve" } })).toEqual({
      ok: true,
      value: { hops: "mixed", topk: 3, retriever: { url: "http://127.0.0.1:8000/retrieve", format: "search-r1", timeoutMs: 5000, retries: 2 } }
    })
  })
  test("teacher at ε=0 succeeds on 200 seeds per hops setting, in hops+1 actions, graded faithful", () => {
    for (const hops of [1, 2, "mixed"] as const) {
      const env = searchQASpec.make(options({ hops }))
      const rng = new Rng(1)
      let solved = 0
      for (let s = 0; s < 200; s++) {
        const r = playTeacher(env, 10_000 + s, 0, 0.5, rng)
        expect(r.graded).toBe(true)
        expect(r.ret).toBe(r.success ? 1 : 0)
        if (hops !== "mixed") expect(r.steps).toBe(hops + 1)
        if (r.success) solved++
      }
      expect(solved).toBe(200)
    }
  })
  test("mixed draws both one- and two-hop questions", () => {
    const env = searchQASpec.make(options())
    const counts = [0, 0, 0]
    for (let s = 0; s < 100; s++) {
      env.reset(s)
      counts[(env.state() as SearchQAState).hops.length]!++
    }
    expect(counts[1]).toBeGreaterThan(25)
    expect(counts[2]).toBeGreaterThan(25)
  })
  test("a two-hop episode: the observation shows the retrieved passages, the teacher chains them", () => {
    const env = searchQASpec.make(options({ hops: 2 }))
    const first = env.reset(42)
    const st = env.state() as SearchQAState
    expect(first).toBe(`question : ${st.question}`)
    const t1 = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
    expect(t1.action).toBe(`search[${hopQuery(st.hops[0]!)}]`)
    const r1 = env.step(t1.action)
    expect(r1.observation).toContain(CORPUS.passages[st.hops[0]!.passage]!)
    expect(r1.observation.split("\n").filter((l) => /^\d+ \. /.test(l)).length).toBe(3)
    const t2 = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
    expect(t2.reasoning).toContain(CORPUS.passages[st.hops[0]!.passage]!.replace(/ \.$/, ""))
    expect(t2.action).toBe(`search[${hopQuery(st.hops[1]!)}]`)
    env.step(t2.action)
    const t3 = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
    expect(t3.action).toBe(`finish[${st.answerName}]`)
    expect(t3.facts.length).toBe(2)
    const r3 = env.step(t3.action)
    expect(r3).toMatchObject({ reward: 1, terminated: true, truncated: false, info: { success: true, valid: true } })
  })
  test("finish: exact 1, F1 with names as one token, wrong 0; searches earn 0; budget 10 truncates", () => {
    const env = searchQASpec.make(options({ hops: 1 }))
    env.reset(7)
    const ans = (env.state() as SearchQAState).answerName
    const [a, b] = ans.split(" ")
    // A name is one token for F1: part of the right name, or a name sharing a syllable, earns 0 …
    expect(env.step(`finish[${a} ${b}]`)).toMatchObject({ reward: 0, terminated: true, info: { success: false, valid: true } })
    const sharing = CORPUS.entities.find((e) => e.name !== ans && e.name.split(" ").includes(a!))!
    env.reset(7)
    expect(env.step(`finish[${sharing.name}]`).reward).toBe(0)
    // … while extra words around the right name earn F1 (P 1/2, R 1).
    env.reset(7)
    expect(env.step(`finish[city ${ans}]`)).toMatchObject({ terminated: true, info: { success: false } })
    env.reset(7)
    expect(env.step(`finish[city ${ans}]`).reward).toBeCloseTo(2 / 3)
    expect(answerTokens(`city ${ans} x`)).toEqual(["city", ans, "x"])
    env.reset(7)
    expect(env.step("finish[xa xb xc]").reward).toBe(0)
    env.reset(7)
    expect(env.step(` FINISH [ The ${ans} ] `).reward).toBe(1)
    // the budget is the harness's time limit (core/env/time-limit.ts), not the env's
    const limited = withTimeLimit(env, searchQASpec.actionBudget)
    limited.reset(7)
    for (let i = 0; i < 9; i++) expect(limited.step("search[ni pe lo]")).toMatchObject({ reward: 0, terminated: false, truncated: false })
    expect(limited.step("search[ni pe lo]")).toMatchObject({ terminated: false, truncated: true })
    expect(limited.done).toBe(true)
    expect(env.done).toBe(false)
  })
  test("invalid actions: flagged, not applied, the observation says so", () => {
    for (const bad of ["", "search", "search[]", "search[   ]", "finish[!!]", "lookup[x]", "search[a] finish[b]", "search[ünïcode]", "search[" + "x".repeat(400) + "]", "\u0000\u0001"]) {
      expect(parseAction(bad)).toBeUndefined()
    }
    expect(parseAction("Search[ ni pe lo ]")).toEqual({ kind: "search", argument: "ni pe lo" })
    const env = searchQASpec.make(options())
    env.reset(3)
    const before = JSON.stringify(env.state())
    const r = env.step("search ni pe lo")
    expect(r).toMatchObject({ reward: 0, terminated: false, info: { valid: false, effective: false } })
    expect(r.observation.startsWith("no valid action was taken\nquestion : ")).toBe(true)
    expect(JSON.stringify(env.state())).toBe(before)
  })
  test("action noise replaces the action, keeps the reasoning; reasoning noise varies wording and stays faithful", () => {
    const env = searchQASpec.make(options({ hops: 2 }))
    env.reset(5)
    const clean = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
    let replaced = 0
    for (let k = 0; k < 50; k++) {
      const t = env.teach({ epsilon: 1, reasoningNoise: 0 }, new Rng(k))
      expect(t.reasoning).toBe(clean.reasoning)
      expect(t.intendedAction).toBe(clean.action)
      expect(parseAction(t.action)).toBeDefined()
      if (t.action !== clean.action) replaced++
      if (parseAction(t.action)!.kind === "finish") expect(t.action).not.toBe(`finish[${(env.state() as SearchQAState).answerName}]`)
    }
    expect(replaced).toBeGreaterThan(45)
    env.step(clean.action)
    env.step(env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0)).action)
    const texts = new Set<string>()
    for (let k = 0; k < 40; k++) {
      const t = env.teach({ epsilon: 0, reasoningNoise: 1 }, new Rng(k))
      texts.add(t.reasoning)
      expect(env.gradeReasoning(env.state(), t.reasoning, t.action)).toEqual({ factAccuracy: 1, consistency: 1 })
    }
    expect(texts.size).toBeGreaterThan(5)
  })
  test("the vocabulary covers observations, teacher reasoning and actions", () => {
    const o = options()
    const vocab = new Set(searchQASpec.vocabulary(o))
    expect(vocab.size).toBeLessThan(400)
    const missing = new Set<string>()
    const check = (t: string) => {
      for (const w of splitWords(t)) if (!vocab.has(w) && !/^\d+$/.test(w)) missing.add(w)
    }
    check(searchQASpec.instructions(o))
    const env = searchQASpec.make(o)
    const rng = new Rng(9)
    for (let s = 0; s < 150; s++) {
      check(env.reset(s))
      while (!env.done) {
        const t = env.teach({ epsilon: 0.3, reasoningNoise: 1 }, rng)
        check(t.reasoning)
        check(t.action)
        check(env.step(t.action).observation)
      }
    }
    check(env.step("search[]").observation)
    expect([...missing]).toEqual([])
  })
})

describe("searchqa gradeReasoning on free text", () => {
  const st = {} as SearchQAState // the grader checks against the corpus
  const p = E("person", 3)
  const born = factOf("born_in", p.id)
  const city = nameOf(born.object)
  const country = nameOf(factOf("located_in", born.object).object)
  const otherCity = nameOf(CORPUS.byType.city.find((c) => c !== born.object)!)
  test("true and false relation facts, type facts, any order of wording", () => {
    expect(gradeSearchQA(st, `${p.name} was born in ${city} . so the answer is ${city}`, `finish[${city}]`)).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeSearchQA(st, `${city} is where ${p.name} was born ; ${city} lies in ${country} . answer : ${country}`, `finish[the ${country}]`)).toEqual({ factAccuracy: 1, consistency: 1 })
    const g = gradeSearchQA(st, `${p.name} is a person , ${p.name} was born in ${otherCity} , ${p.name} is a river . plan : search ${otherCity} country`, `search[${otherCity} country]`)
    expect(g.factAccuracy).toBeCloseTo(1 / 3)
    expect(g.consistency).toBe(1)
    // A keyword whose types fit none of its relations is a stated, false fact.
    expect(gradeSearchQA(st, `${p.name} was founded by ${city}`, "finish[x]").factAccuracy).toBe(0)
  })
  test("what an LLM writes: capitalised names, sentences, Search-R1's wording", () => {
    const cap = (n: string) =>
      n
        .split(" ")
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join(" ")
    const llm = `The passage says that ${cap(p.name)} was born in ${cap(city)}. I still need the country, so I will search for ${cap(city)} country.`
    expect(gradeSearchQA(st, llm, `search[${city} country]`)).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(gradeSearchQA(st, `${cap(p.name)} was born in ${cap(otherCity)}. The answer is ${cap(otherCity)}.`, `finish[${otherCity}]`)).toEqual({ factAccuracy: 0, consistency: 1 })
  })
  test("consistency: the action must act on the plan's target, with the kind the plan names", () => {
    const r = `${p.name} was born in ${city} . plan : search ${city} country`
    expect(gradeSearchQA(st, r, `search[${city} country]`).consistency).toBe(1)
    expect(gradeSearchQA(st, r, `search[${p.name} born]`).consistency).toBe(0)
    expect(gradeSearchQA(st, r, `finish[${city}]`).consistency).toBe(0) // the plan said search
    expect(gradeSearchQA(st, `${p.name} was born in ${city}`, `finish[${city}]`).consistency).toBe(1) // no plan word: last mention
    expect(gradeSearchQA(st, r, "garbage").consistency).toBe(0)
  })
  test("garbled, empty and hostile text never throws and grades low", () => {
    for (const t of ["", "zz qq", "born in . capital", "ka ka ka ka", "🙂".repeat(500), "\u0000\u00ff", "x ".repeat(60_000), `${city} ${city} ${city}`]) {
      const g = gradeSearchQA(st, t, `finish[${city}]`)
      expect(g.factAccuracy).toBeGreaterThanOrEqual(0)
      expect(g.factAccuracy).toBeLessThanOrEqual(1)
      expect([0, 1]).toContain(g.consistency)
    }
    expect(gradeSearchQA(st, "zz qq", `finish[${city}]`)).toEqual({ factAccuracy: 0, consistency: 0 })
  })
})
