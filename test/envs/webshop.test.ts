import { describe, expect, test } from "bun:test"
import { withTimeLimit } from "../../core/env/time-limit.ts"
import { derive, Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { splitWords } from "../../envs/common/text.ts"
import { catalogue, type Product } from "../../envs/webshop/catalogue.ts"
import { ACTION_BUDGET, MAX_TURNS, webShopSpec, type WebShopOptions } from "../../envs/webshop/env.ts"
import { drawPriceCap, makeGoal, purchaseReward, type Goal } from "../../envs/webshop/goal.ts"
import { buildIndex } from "../../envs/webshop/search.ts"
import { parseAction } from "../../envs/webshop/shop.ts"
import type { WebShopState } from "../../envs/webshop/teacher.ts"
import { checkEnv } from "../helpers/check-env.ts"

const opts = (raw: Record<string, unknown> = {}): WebShopOptions => {
  const r = decodeSync(webShopSpec.options, raw)
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const make = (raw: Record<string, unknown> = {}) => webShopSpec.make(opts(raw))

/** Run the ε=0 teacher for at most `turns` actions; returns the last step. */
const runTeacher = (env: ReturnType<typeof make>, seed: number, turns = MAX_TURNS, noise = 0) => {
  env.reset(seed)
  const rng = new Rng(seed)
  let last: ReturnType<typeof env.step> | undefined
  for (let k = 0; k < turns && !env.done; k++) last = env.step(env.teach({ epsilon: 0, reasoningNoise: noise }, rng).action)
  return last!
}

describe("webshop catalogue and search", () => {
  // No wall-clock bound here (speed is measured in benchmarks/, never asserted in a test).
  test("deterministic, unique ids", () => {
    const c = catalogue(333)
    buildIndex(c)
    expect(c.products.length).toBe(333)
    expect(new Set(c.products.map((p) => p.id)).size).toBe(333)
    const again = catalogue(200).products.map((p) => `${p.id} ${p.title} ${p.price}`)
    expect(again.slice(0, 3)).toEqual(
      catalogue(200)
        .products.slice(0, 3)
        .map((p) => `${p.id} ${p.title} ${p.price}`)
    )
    for (const p of c.products) {
      expect(p.id).toMatch(/^b0[a-z0-9]{4}$/)
      expect(p.groups.length).toBeGreaterThanOrEqual(1)
      for (const g of p.groups) expect(g.values.length).toBeGreaterThanOrEqual(3)
      // Values of different groups of one product never coincide (a click names one value).
      const all = p.groups.flatMap((g) => g.values)
      expect(new Set(all).size).toBe(all.length)
    }
  })
  test("BM25: a type query ranks products of that type first; at most 50 hits; cached", () => {
    const c = catalogue(200)
    const idx = buildIndex(c)
    const hits = idx.search(["office", "chair"])
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.length).toBeLessThanOrEqual(50)
    expect(c.products[hits[0]!]!.type).toBe("office chair")
    expect(idx.search(["chair", "office", "chair"])).toBe(hits) // same normalized query ⇒ cached array
    expect(idx.search(["zzzz"]).length).toBe(0)
  })
})

describe("webshop goals and reward (WebShop goal.py)", () => {
  test("price cap: larger of two of the first four multiples of 10 above the price; none near 990", () => {
    const rng = new Rng(4)
    for (let i = 0; i < 500; i++) {
      const price = 1 + rng.int(950)
      const cap = drawPriceCap(rng, price)!
      expect(cap % 10).toBe(0)
      expect(cap).toBeGreaterThan(price)
      const first = Math.floor(price / 10) * 10 + 10
      expect(cap).toBeGreaterThanOrEqual(first + 10)
      expect(cap).toBeLessThanOrEqual(first + 30)
    }
    expect(drawPriceCap(rng, 985)).toBeNull()
  })
  test("every goal comes from a product, names its type, attributes, options and cap", () => {
    const c = catalogue(200)
    for (let s = 0; s < 200; s++) {
      const g = makeGoal(derive(s, "t"), c)
      const p = c.byId.get(g.asin)!
      expect(g.type).toBe(p.type)
      for (const a of g.attributes) {
        expect(p.attributes).toContain(a)
        expect(g.instruction).toContain(a)
      }
      for (const [k, v] of Object.entries(g.options)) expect(p.groups.find((x) => x.name === k)!.values).toContain(v)
      if (g.priceCap !== null) expect(g.instruction).toContain(`price lower than ${g.priceCap} dollars`)
      expect(purchaseReward(p, g, p, g.options).reward).toBe(1)
    }
  })
  test("r = (attrs + options + price) / (#attrs + #options + 1) × r_type", () => {
    const c = catalogue(200)
    const p = c.products.find((x) => x.groups.length === 2)!
    const goal: Goal = {
      asin: p.id,
      type: p.type,
      attributes: [p.attributes[0]!, p.attributes[1]!],
      options: { [p.groups[0]!.name]: p.groups[0]!.values[0]!, [p.groups[1]!.name]: p.groups[1]!.values[0]! },
      priceCap: p.price + 10,
      instruction: "x"
    }
    const both = goal.options
    expect(purchaseReward(p, goal, p, both).reward).toBe(1)
    // One option missing: (2 + 1 + 1) / 5.
    const one = { [p.groups[0]!.name]: p.groups[0]!.values[0]! }
    expect(purchaseReward(p, goal, p, one).reward).toBeCloseTo(4 / 5, 12)
    // A wrong option value counts nothing either.
    expect(purchaseReward(p, goal, p, { ...one, [p.groups[1]!.name]: p.groups[1]!.values[1]! }).reward).toBeCloseTo(4 / 5, 12)
    // Over the cap: price term 0.
    expect(purchaseReward(p, { ...goal, priceCap: p.price - 1 }, p, both).reward).toBeCloseTo(4 / 5, 12)
    // A product of an unrelated type (no shared type word): r_type 0.
    const other = c.products.find((x) => x.type.split(" ").every((w) => !p.type.split(" ").includes(w)))!
    expect(purchaseReward(other, goal, p, both).rType).toBe(0)
    expect(purchaseReward(other, goal, p, both).reward).toBe(0)
    // Same type, attribute missing: (1 + 2 + 1) / 5.
    const sameType = { ...p, attributes: [p.attributes[0]!], text: p.title, title: p.title } as Product
    const noSecond = { ...goal, attributes: [p.attributes[0]!, "vegan-not-there"] }
    expect(purchaseReward(sameType, noSecond, p, both).reward).toBeCloseTo(4 / 5, 12)
  })
})

describe("webshop-v1 env", () => {
  test("passes checkEnv (defaults, 3 results per page, continuous reward)", () => {
    checkEnv(webShopSpec, {})
    checkEnv(webShopSpec, { resultsPerPage: 3, binaryReward: false, catalogueSize: 60 }, [0, 5])
    expect(webShopSpec.maxTurns).toBe(5)
    expect(webShopSpec.actionBudget).toBe(9)
    expect(webShopSpec.markov).toBe(false)
  })
  test("option errors name the field", () => {
    const r = decodeSync(webShopSpec.options, { resultsPerPage: 0 })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toContain("resultsPerPage")
    const s = decodeSync(webShopSpec.options, { server: { url: "localhost:3000" } })
    expect(s.ok).toBe(false)
    if (!s.ok) expect(s.message).toContain("server.url")
  })
  test("action grammar", () => {
    expect(parseAction("search[Red Cotton T-Shirt]")).toEqual({ kind: "search", words: ["red", "cotton", "t-shirt"] })
    expect(parseAction(" click[ Buy  Now ] ")).toEqual({ kind: "click", value: "buy now" })
    expect(parseAction("click[<Prev]")).toEqual({ kind: "click", value: "< prev" })
    expect(parseAction("click[next>]")).toEqual({ kind: "click", value: "next >" })
    for (const bad of ["", "search[]", "search[!!]", "click[]", "buy now", "click[a]b", "click[[x]]", `search[${"a ".repeat(300)}]`]) expect(parseAction(bad)).toBeNull()
  })
  test("page flow: search, pagination, item, options, sub pages, back, buy", () => {
    // the action budget is the harness's time limit (core/env/time-limit.ts)
    const env = withTimeLimit(make({ resultsPerPage: 3 }), webShopSpec.actionBudget)
    const o0 = env.reset(11)
    expect(o0).toMatch(/^instruction : /)
    expect(o0).toContain("search page")
    const st = () => env.state() as WebShopState
    expect(env.step("click[buy now]").info.valid).toBe(false) // nothing clickable on the search page
    let r = env.step(`search[${st().goal.type}]`)
    expect(r.info.valid).toBe(true)
    expect(st().page).toBe("results")
    expect(st().visible.length).toBe(3)
    expect(r.observation).toContain("[next >]")
    expect(r.observation).not.toContain("[< prev]")
    const firstPage = st().visible
    r = env.step("click[next >]")
    expect(st().resultsPage).toBe(2)
    expect(r.observation).toContain("[< prev]")
    expect(st().visible).not.toEqual(firstPage)
    env.step("click[< prev]")
    expect(st().visible).toEqual(firstPage)
    expect(env.step("click[b0zzzz]").info.valid).toBe(false)
    r = env.step(`click[${firstPage[0]}]`)
    expect(st().page).toBe("item")
    expect(st().item).toBe(firstPage[0]!)
    const c = catalogue(200).byId.get(firstPage[0]!)!
    const v = c.groups[0]!.values[1]!
    r = env.step(`click[${v}]`)
    expect(r.info.effective).toBe(true)
    expect(st().selected[c.groups[0]!.name]).toBe(v)
    expect(r.observation).toContain(`chosen ${v}`)
    expect(env.step(`click[${v}]`).info.effective).toBe(false) // already chosen
    r = env.step("click[description]")
    expect(st().page).toBe("description")
    expect(r.observation).toContain(c.description)
    // 9 actions used: the budget truncates.
    expect(r.truncated).toBe(true)
    expect(env.done).toBe(true)

    const e2 = make({ resultsPerPage: 3 })
    e2.reset(11)
    e2.step(`search[${(e2.state() as WebShopState).goal.type}]`)
    expect(e2.step("search[shoes]").info.valid).toBe(false) // no search bar on results
    e2.step(`click[${(e2.state() as WebShopState).visible[0]}]`)
    e2.step("click[features]")
    e2.step("click[< prev]")
    expect((e2.state() as WebShopState).page).toBe("item")
    e2.step("click[back to search]")
    expect((e2.state() as WebShopState).page).toBe("search")
    e2.step(`search[${(e2.state() as WebShopState).goal.type}]`)
    e2.step(`click[${(e2.state() as WebShopState).visible[0]}]`)
    const b = e2.step("click[buy now]")
    expect(b.terminated).toBe(true)
    expect(b.truncated).toBe(false)
    expect([0, 1]).toContain(b.reward)
    expect(typeof b.info.webshopReward).toBe("number")
    expect(b.info.success).toBe(b.reward === 1)
  })
  test("binaryReward false pays WebShop's continuous reward", () => {
    const env = make({ binaryReward: false })
    let partial = 0
    for (let s = 0; s < 40; s++) {
      env.reset(s)
      const g = (env.state() as WebShopState).goal
      env.step(`search[${g.attributes.join(" ")} ${g.type}]`)
      env.step(`click[${(env.state() as WebShopState).visible[0]}]`)
      const r = env.step("click[buy now]") // no options chosen
      expect(r.reward).toBeCloseTo(r.info.webshopReward as number, 12)
      if (r.reward > 0 && r.reward < 1) partial++
    }
    expect(partial).toBeGreaterThan(20)
  })
  test("teacher at ε=0 succeeds on ≥ 95% of 200 seeds within 5 turns", () => {
    const env = make()
    let ok = 0
    for (let s = 0; s < 200; s++) if (runTeacher(env, s).info.success) ok++
    console.log(`webshop-v1 teacher success at ε=0: ${ok}/200 = ${(ok / 200).toFixed(3)}`)
    expect(ok / 200).toBeGreaterThanOrEqual(0.95)
  })
  test("teacher recovers from noise; reasoning with noise still grades faithful", () => {
    const env = make()
    const rng = new Rng(8)
    let ok = 0
    for (let s = 0; s < 100; s++) {
      env.reset(s)
      for (let k = 0; k < ACTION_BUDGET && !env.done; k++) {
        const t = env.teach({ epsilon: 0.2, reasoningNoise: 1 }, rng)
        const g = env.gradeReasoning(env.state(), t.reasoning, t.intendedAction)
        expect(g.factAccuracy).toBeGreaterThanOrEqual(0.99)
        expect(g.consistency).toBe(1)
        if (t.action !== t.intendedAction) expect(env.gradeReasoning(env.state(), t.reasoning, t.action).consistency).toBe(0)
        if (env.step(t.action).info.success) ok++
      }
    }
    expect(ok).toBeGreaterThan(60)
  })
  test("gradeReasoning reads any text: wrong facts count against, plan must match the action", () => {
    const env = make()
    env.reset(2)
    const st = env.state() as WebShopState
    const g = st.goal
    const wrongType = g.type === "shampoo" ? "lipstick" : "shampoo"
    const good = env.gradeReasoning(st, `budget ${g.priceCap} ; want ${g.type} ; plan search ${g.type}`, `search[${g.type}]`)
    expect(good.factAccuracy).toBe(1)
    expect(good.consistency).toBe(1)
    const half = env.gradeReasoning(st, `need ${g.type} . goal ${wrongType} so search foo`, `search[${g.type}]`)
    expect(half.factAccuracy).toBeCloseTo(0.5, 12)
    expect(half.consistency).toBe(0)
    expect(env.gradeReasoning(st, "", "search[x]")).toEqual({ factAccuracy: 0, consistency: 0 })
    expect(env.gradeReasoning(st, "item b0zzzz has cotton , price 3 ; plan click b0zzzz", "click[b0zzzz]").factAccuracy).toBe(0)
    const huge = env.gradeReasoning(st, "want ".repeat(200_000), "x")
    expect(huge.factAccuracy).toBe(0)
  })
  test("gradeReasoning reads what an LLM writes freely", () => {
    const env = make()
    env.reset(2)
    const st = env.state() as WebShopState
    const g = st.goal
    const opt = Object.values(g.options)[0]!
    const llm = `I need a ${g.type} with ${opt}, and the budget is ${g.priceCap} dollars. So I will search for ${g.type}.`
    expect(env.gradeReasoning(st, llm, `search[${g.type}]`)).toEqual({ factAccuracy: 1, consistency: 1 })
    expect(env.gradeReasoning(st, `The goal is a ${g.type} under ${g.priceCap! + 7} dollars. Next, click[buy now]`, "click[buy now]")).toEqual({ factAccuracy: 0.5, consistency: 1 })
    expect(env.gradeReasoning(st, `I should search for ${g.type}.`, "click[buy now]").consistency).toBe(0)
  })
  test("vocabulary covers observations, teacher reasoning and actions", () => {
    const o = opts()
    const vocab = new Set(webShopSpec.vocabulary(o))
    const env = webShopSpec.make(o)
    const missing = new Set<string>()
    const check = (text: string) => {
      for (const w of splitWords(text)) if (!vocab.has(w) && !/^\d+$/.test(w)) missing.add(w)
    }
    check(webShopSpec.instructions(o))
    const rng = new Rng(3)
    for (let s = 0; s < 60; s++) {
      check(env.reset(s))
      while (!env.done) {
        const t = env.teach({ epsilon: 0.3, reasoningNoise: 1 }, rng)
        check(t.reasoning)
        check(t.action.replace(/[[\]]/g, " "))
        check(env.step(t.action).observation)
      }
    }
    expect([...missing]).toEqual([])
  })
})
