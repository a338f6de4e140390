/**
 * docs/decisions.md#issue-27, what a client or a terminal must never see: the env server's 502 replies never
 * name the operator's URL or path (docs/env-server.md), and the openai client never prints the
 * API key, whatever the server sends back (a key straddling the cut, written with JSON escapes,
 * or returned as a model id).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createServer, type Server as HttpServer } from "node:http"
import { handleAsync } from "../../envs/server/protocol.ts"
import { loadResources } from "../../envs/server/operator.ts"
import { redactOperator } from "../../envs/server/redact.ts"
import { Rng } from "../../core/rng.ts"
import { makeServer } from "./helpers.ts"
import { remotePolicy, startFake, type FakeServer } from "../openai/fake-server.ts"

const listen = (h: Parameters<typeof createServer>[1]): Promise<{ server: HttpServer; url: string; port: number }> =>
  new Promise((resolve) => {
    const server = createServer(h)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      resolve({ server, url: `http://127.0.0.1:${port}`, port })
    })
  })

describe("env server 502 replies do not name the operator's URL", () => {
  let failing: { server: HttpServer; url: string; port: number }
  let deadPort: number
  beforeAll(async () => {
    failing = await listen((_q, res) => {
      res.writeHead(500, { "content-type": "application/json" })
      res.end("{}")
    })
    const dead = await listen(() => {})
    deadPort = dead.port
    await new Promise<void>((r) => dead.server.close(() => r()))
  })
  afterAll(() => failing.server.close())

  test("a retriever answering 500, and a WebShop server that is down: 502 without URL, host or port", async () => {
    const retrieve = `${failing.url}/retrieve`
    const shop = `http://127.0.0.1:${deadPort}/`
    const srv = makeServer(
      await loadResources([
        { name: "bm25", kind: "url", value: retrieve },
        { name: "shop", kind: "url", value: shop }
      ])
    )
    const c = await handleAsync(srv, "create", { env: "searchqa", options: { retriever: { url: "bm25", retries: 0 } } })
    expect(c.status).toBe(200)
    const step = await handleAsync(srv, "step", { id: c.body.id, action: "<answer>search[ka vu fi]</answer>" })
    const down = await handleAsync(srv, "create", { env: "webshop", options: { server: { url: "shop", timeoutMs: 500, retries: 0 } } })
    for (const [r, port] of [
      [step, failing.port],
      [down, deadPort]
    ] as const) {
      expect(r.status).toBe(502)
      const text = JSON.stringify(r.body)
      expect(text).not.toContain("127.0.0.1")
      expect(text).not.toContain(`:${port}`)
      expect(text.length).toBeGreaterThan(20) // still says what failed
    }
    expect(String(step.body.error)).toContain("<resource bm25>")
  }, 30_000)

  test("redactOperator: resource values by name; other URLs, addresses and paths by placeholder", () => {
    const res = new Map([["data", { name: "data", kind: "file" as const, value: "/srv/private/m.jsonl", sha256: "x" }]])
    const s = redactOperator("read /srv/private/m.jsonl then http://10.1.2.3:99/x and [::1]:80 and 10.0.0.7:8080 in /home/op/secret/dir", res)
    expect(s).toBe("read <resource data> then <url> and <address> and <address> in <path>")
  })
})

describe("the openai client never prints the API key", () => {
  const KEY = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyz"
  let fake: FakeServer
  let reply: (path: string) => { status: number; text: string }
  beforeAll(async () => {
    fake = await startFake((r) => {
      const x = reply(r.path)
      return { status: x.status, text: x.text }
    })
  })
  afterAll(() => fake.close())

  const failureOf = async (f: () => Promise<unknown>): Promise<string> => {
    try {
      await f()
    } catch (e) {
      return String((e as Error).message)
    }
    throw new Error("expected a failure")
  }
  const policy = () => remotePolicy({ baseUrl: fake.url, model: "m", apiKeyEnv: "RB_LEAK_KEY", retries: 0 }, { RB_LEAK_KEY: KEY })
  const sample = () => policy().sample(["a <think>"], { temperature: 1, topP: 1, minP: 0, maxTokens: 4 }, new Rng(1))
  const noKey = (msg: string) => {
    expect(msg.length).toBeGreaterThan(0)
    // Neither the key nor any 8-character piece of its secret part.
    for (let i = 0; i + 8 <= KEY.length; i++) expect(msg).not.toContain(KEY.slice(i, i + 8))
  }

  test("a key straddling the 300-character cut of an error reply is masked", async () => {
    for (const pad of [285, 290, 295, 299]) {
      reply = () => ({ status: 400, text: `${"x".repeat(pad)}${KEY}` })
      noKey(await failureOf(sample))
    }
  })

  test("a key straddling the 200-character cut of a non-JSON success reply is masked", async () => {
    for (const pad of [180, 190, 199]) {
      reply = () => ({ status: 200, text: `${"<".repeat(pad)}${KEY}` })
      noKey(await failureOf(sample))
    }
  })

  test("a key written with JSON escapes is masked", async () => {
    const escaped = KEY.replace("-", "\\u002d").replace("p", "\\u0070")
    reply = () => ({ status: 401, text: `{"error":{"message":"bad key ${escaped}"}}` })
    noKey(await failureOf(sample))
  })

  test("a key returned as a /v1/models id, or inside a reply of the wrong shape, is masked", async () => {
    reply = (path) => (path.endsWith("/models") ? { status: 200, text: JSON.stringify({ object: "list", data: [{ id: KEY, object: "model" }] }) } : { status: 200, text: "{}" })
    noKey(await failureOf(() => policy().checkModel()))
    reply = () => ({ status: 200, text: JSON.stringify({ choices: [{ text: 7, key: KEY, index: KEY }] }) })
    noKey(await failureOf(sample))
  })
})
