/**
 * webshop-v2 (docs/decisions.md#issue-26): compact pages that fit the tiny policy's 128-token context, a Markov
 * prompt, a vocabulary that covers every word (no character spelling), the teacher solving every
 * goal; and (docs/decisions.md#issue-27) one product store shared by every catalogue size, searched with the
 * statistics of the size's own products.
 */
import { describe, expect, test } from "bun:test"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { webShopSpec, webShopV2Spec, type WebShopOptions } from "../../envs/webshop/env.ts"
import { buildIndex } from "../../envs/webshop/search.ts"
import { storeCatalogue, storeIndex } from "../../envs/webshop/store.ts"
import type { WebShopState } from "../../envs/webshop/teacher.ts"
import { splitText, Tokenizer } from "../../plugins/tinylm/tokenizer.ts"
import { buildPrompt, formatCompletion } from "../../core/prompt.ts"
import { checkEnv } from "../helpers/check-env.ts"

const opts = (raw: Record<string, unknown> = {}): WebShopOptions => {
  const r = decodeSync(webShopV2Spec.options, raw)
  if (!r.ok) throw new Error(r.message)
  return r.value
}

describe("webshop-v2 env", () => {
  test("passes checkEnv; Markov, 4 results per page by default, v1's budget", () => {
    checkEnv(webShopV2Spec, {})
    checkEnv(webShopV2Spec, { resultsPerPage: 3, binaryReward: false, catalogueSize: 60 }, [0, 5])
    expect(webShopV2Spec.id).toBe("webshop-v2")
    expect(webShopV2Spec.markov).toBe(true)
    expect(webShopV2Spec.actionBudget).toBe(webShopSpec.actionBudget)
    expect(opts().resultsPerPage).toBe(4)
  })

  test("teacher turns fit the tiny context (prompt + completion ≤ 128 tokens for ≥ 99%), with no unknown or spelled-out word", () => {
    const o = opts()
    const tok = Tokenizer.fromVocabulary(webShopV2Spec.vocabulary(o))
    const vocab = new Set(tok.words)
    const env = webShopV2Spec.make(o)
    const rng = new Rng(5)
    const lens: number[] = []
    let spelled = 0
    for (let s = 0; s < 80; s++) {
      let obs = env.reset(1000 + s)
      let steps = 0
      while (!env.done && steps++ < 9) {
        const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, rng)
        const text = buildPrompt({ observation: obs }) + formatCompletion(t.reasoning, t.action)
        const ids = tok.encode(text)
        expect([...ids].includes(tok.unk)).toBe(false)
        for (const w of splitText(text)) if (!vocab.has(w) && !/^\d+$/.test(w)) spelled++
        lens.push(ids.length)
        obs = env.step(t.action).observation
      }
      expect((env.state() as WebShopState).page).toBe("done")
    }
    lens.sort((a, b) => a - b)
    expect(lens[Math.floor(lens.length * 0.99)]!).toBeLessThanOrEqual(128)
    expect(spelled).toBe(0)
  })

  test("item pages list only the options, < prev and buy now (no description, features or rating)", () => {
    const env = webShopV2Spec.make(opts())
    env.reset(3)
    const st = () => env.state() as WebShopState
    env.step(`search[${st().goal.type}]`)
    expect(env.step(`click[${st().visible[0]}]`).info.valid).toBe(true)
    const c = st().clickables
    expect(c).toContain("< prev")
    expect(c).toContain("buy now")
    for (const gone of ["description", "features", "back to search"]) expect(c).not.toContain(gone)
    expect(env.step("click[description]").info.valid).toBe(false)
  })
})

describe("webshop-v2 store: one catalogue for every size", () => {
  test("catalogues of different sizes share their product objects, and a size's search uses its own products", () => {
    const a = storeCatalogue(300)
    const b = storeCatalogue(301)
    expect(b.products[0]).toBe(a.products[0]!)
    expect(b.products[299]).toBe(a.products[299]!)
    // Same ranking as an index built from scratch over the same 300 products.
    const fresh = buildIndex(a)
    const view = storeIndex(300)
    for (const q of [["cotton", "t-shirt"], ["vegan", "shampoo"], ["solid", "wood", "bookshelf"], ["nothing-here"]]) expect([...view.search(q)]).toEqual([...fresh.search(q)])
  })

  test("80 live sessions of 80 catalogue sizes (up to 5,000 products) hold one catalogue, not 80", () => {
    const envs = []
    Bun.gc(true)
    const before = process.memoryUsage().rss
    for (let k = 0; k < 80; k++) {
      const env = webShopV2Spec.make(opts({ catalogueSize: 5000 - k, resultsPerPage: 1 + (k % 5) }))
      env.reset(k)
      env.step("search[cotton t-shirt]")
      envs.push(env)
    }
    Bun.gc(true)
    const grown = (process.memoryUsage().rss - before) / 2 ** 20
    console.log(`webshop-v2: RSS +${grown.toFixed(1)} MB for 80 sessions of 80 sizes`)
    // v1 keeps about 22 MB per size at 5,000 products (1.7 GB for 80 sizes); one shared store is about that once.
    expect(grown).toBeLessThan(100)
    expect(envs.length).toBe(80)
  }, 60_000)
})

describe("webshop-v1 is unchanged", () => {
  test("v1 pages still show the rating, description and features (the published v1 records' env)", () => {
    const r = decodeSync(webShopSpec.options, {})
    if (!r.ok) throw new Error(r.message)
    const env = webShopSpec.make(r.value)
    env.reset(3)
    const st = () => env.state() as WebShopState
    env.step(`search[${st().goal.type}]`)
    const obs = env.step(`click[${st().visible[0]}]`).observation
    expect(obs).toContain("rating")
    expect(st().clickables).toContain("description")
  })
})
