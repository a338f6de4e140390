import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createServer } from "node:http"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { webShopSpec } from "../../envs/webshop/env.ts"
import { parsePage } from "../../envs/webshop/html.ts"
import type { RemoteWebShopEnv, RemoteWebShopState } from "../../envs/webshop/remote.ts"
import { startFixture, type Fixture } from "../fixtures/webshop-server.ts"

let fx: Fixture
beforeAll(async () => {
  fx = await startFixture()
})
afterAll(async () => {
  await fx.close()
})

const remote = (server: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const r = decodeSync(webShopSpec.options, { server, ...extra })
  if (!r.ok) throw new Error(r.message)
  return webShopSpec.make(r.value) as RemoteWebShopEnv
}

describe("webshop-v1 remote adapter (WebShop app.py routes)", () => {
  test("a whole episode: search, results, item options, description, buy; reward from #reward pre", async () => {
    const env = remote({ url: fx.url, timeoutMs: 2000 })
    expect(() => env.reset(0)).toThrow(/resetAsync/)
    expect(() => env.step("search[x]")).toThrow(/stepAsync/)
    const o0 = await env.resetAsync(7)
    expect(fx.requests.at(-1)).toMatch(/^\/rb\d+x1fixed_7$/) // app.py serves goal 7 for "...fixed_7"
    expect(o0).toContain("instruction : i need a cotton t-shirt in size m and color red")
    expect(o0).toContain("search page")
    expect(o0).not.toContain("console.log")

    let r = await env.stepAsync("search[Cotton T-Shirt]")
    expect(r.info.valid).toBe(true)
    expect(decodeURIComponent(fx.requests.at(-1)!)).toMatch(/^\/search_results\/rb\d+x1fixed_7\/\['cotton', 't-shirt'\]\/1$/)
    expect(r.observation).toContain("[b01abc]")
    expect(r.observation).toContain("red cotton t-shirt")
    let st = env.state()
    expect(st.page).toBe("results")
    expect(st.clickables).toEqual(["back to search", "b01abc"])

    const before = fx.requests.length
    r = await env.stepAsync("click[b09zzz]")
    expect(r.info.valid).toBe(false)
    expect(r.observation.startsWith("no valid action was taken")).toBe(true)
    expect(fx.requests.length).toBe(before) // not stepped: no request

    r = await env.stepAsync("click[B01ABC]")
    st = env.state()
    expect(st.page).toBe("item")
    expect(st.item).toBe("b01abc")
    expect(st.options).toEqual(["s", "m", "l", "red", "blue"])
    expect(r.observation).toContain("[m]")
    expect(r.observation).toContain("[buy now]")

    await env.stepAsync("click[m]")
    r = await env.stepAsync("click[red]")
    expect(env.state().selected).toEqual({ size: "m", color: "red" })
    expect(decodeURIComponent(fx.requests.at(-1)!)).toContain("{'size': 'm', 'color': 'red'}")

    r = await env.stepAsync("click[description]")
    expect(env.state().page).toBe("sub")
    expect(r.observation).toContain("a soft cotton t-shirt")
    r = await env.stepAsync("click[< prev]")
    expect(env.state().page).toBe("item")

    r = await env.stepAsync("click[buy now]")
    expect(decodeURIComponent(fx.requests.at(-1)!)).toMatch(/^\/done\/rb\d+x1fixed_7\/B01ABC\/\{'size': 'm', 'color': 'red'\}$/)
    expect(r.terminated).toBe(true)
    expect(r.reward).toBe(1)
    expect(r.info.success).toBe(true)
    expect(r.observation).not.toContain("secret") // the done page's hidden goal block stays hidden
    expect(env.done).toBe(true)
  })

  test("continuous reward with binaryReward false; binary 0 for a partial purchase", async () => {
    for (const binary of [false, true]) {
      const env = remote({ url: fx.url }, { binaryReward: binary })
      await env.resetAsync(1)
      await env.stepAsync("search[t-shirt]")
      await env.stepAsync("click[b01abc]")
      await env.stepAsync("click[m]")
      const r = await env.stepAsync("click[buy now]")
      expect(r.info.webshopReward).toBe(0.75)
      expect(r.reward).toBe(binary ? 0 : 0.75)
      expect(r.info.success).toBe(false)
    }
  })

  test("pagination buttons and the budget", async () => {
    const env = remote({ url: fx.url })
    await env.resetAsync(2)
    let r = await env.stepAsync("search[t-shirt jeans hoodie]")
    expect(env.state().clickables).toEqual(["back to search", "next >", "b01abc", "b02def"])
    r = await env.stepAsync("click[next >]")
    expect(env.state().clickables).toEqual(["back to search", "< prev", "b03ghi"])
    for (let k = 0; k < 7; k++) r = await env.stepAsync("click[< prev]")
    expect(r.truncated).toBe(true)
    expect(r.terminated).toBe(false)
  })

  test("teacher (heuristic) buys the right item on the fixture; its reasoning grades faithful", async () => {
    const env = remote({ url: fx.url })
    await env.resetAsync(3)
    const rng = new Rng(1)
    let last
    for (let k = 0; k < 9 && !env.done; k++) {
      const t = env.teach({ epsilon: 0, reasoningNoise: 0.5 }, rng)
      const g = env.gradeReasoning(env.state(), t.reasoning, t.action)
      expect(g.consistency).toBe(1)
      if (t.facts.length > 0) expect(g.factAccuracy).toBeGreaterThanOrEqual(0.99)
      last = await env.stepAsync(t.action)
    }
    expect(last!.info.success).toBe(true)
    const st: RemoteWebShopState = env.state()
    expect(env.gradeReasoning(st, "item nothing-here ; options purple ; plan click buy now", "click[buy now]").factAccuracy).toBe(0)
  })

  test("a 500 is retried; a down server fails with an error naming the URL", async () => {
    const env = remote({ url: fx.url, retries: 2 })
    fx.failOnce.add("search_results")
    await env.resetAsync(4)
    const before = fx.requests.length
    const r = await env.stepAsync("search[hoodie]")
    expect(r.observation).toContain("[b03ghi]")
    expect(fx.requests.length - before).toBe(2) // one 500, one retry

    // A port that was free a moment ago: nothing listens there now.
    const probe = createServer()
    await new Promise<void>((ok) => probe.listen(0, "127.0.0.1", () => ok()))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((ok) => probe.close(() => ok()))
    const down = remote({ url: `http://127.0.0.1:${port}`, retries: 1, timeoutMs: 500 })
    const err = await down.resetAsync(0).then(
      () => null,
      (e: Error) => e
    )
    expect(err).not.toBeNull()
    expect(err!.message).toContain(`http://127.0.0.1:${port}`)
    expect(err!.message).toContain("server.url")
    expect(err!.message).toContain("2 attempt(s)")
  })

  test("a server that never answers times out with a clear error", async () => {
    const hang = createServer(() => {
      /* never answers */
    })
    await new Promise<void>((ok) => hang.listen(0, "127.0.0.1", () => ok()))
    const port = (hang.address() as { port: number }).port
    const env = remote({ url: `http://127.0.0.1:${port}`, retries: 0, timeoutMs: 200 })
    const err = await env.resetAsync(0).then(
      () => null,
      (e: Error) => e
    )
    hang.closeAllConnections?.()
    await new Promise<void>((ok) => hang.close(() => ok()))
    expect(err!.message).toContain("no answer within 200 ms")
    expect(err!.message).toContain(`127.0.0.1:${port}`)
  })

  test("parsePage: clickables from .btn forms, a.product-link and radios; off-site links dropped", () => {
    const html = `<html><body><div id="instruction-text"><h4>Instruction: buy x</h4></div>
      <form action="/a"><button class="btn">Back to Search</button></form>
      <form action="https://evil.example/x"><button class="btn">Elsewhere</button></form>
      <a class="product-link" href="/item_page/s/B0X/k/1/{}">B0X</a>
      <input type="radio" name="Size" value="m" data-url="/item_page/s/B0X/k/1/%7B%7D"><label>m</label>
      <div hidden>hidden goal</div></body></html>`
    const p = parsePage(html, "http://127.0.0.1:3000")
    expect(p.instruction).toBe("buy x")
    expect(p.clickables.map((c) => [c.name, c.kind])).toEqual([
      ["back to search", "button"],
      ["b0x", "product"],
      ["m", "option"]
    ])
    expect(p.clickables[0]!.url).toBe("http://127.0.0.1:3000/a")
    expect(p.clickables[2]!.group).toBe("size")
    expect(p.text).not.toContain("hidden goal")
    expect(p.text).not.toContain("buy x")
    expect(p.kind).toBe("results")
  })
})
