/**
 * The remote policy's limits against a scripted server on 127.0.0.1: retries with backoff on
 * 429 and 5xx, no retry on other 4xx, a timeout per attempt, a cap on reply size, a cap on
 * requests in flight, and errors that name the server and status but never the API key.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { Rng } from "../../core/rng.ts"
import { type FakeServer, fixture, remotePolicy, startFake } from "./fake-server.ts"

const sampling = { temperature: 1, topP: 1, minP: 0, maxTokens: 16 }
const KEY = "sk-test-0123456789abcdef"
const ok = () => ({ body: fixture("vllm-completions-sample.json") })

let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure")
    },
    (e) => e as { _tag?: string; message: string }
  )

describe("remote limits", () => {
  test("429 and 503 are retried with backoff, then the reply is used", async () => {
    server = await startFake((_, n) => (n === 1 ? { status: 429, body: { error: "slow down" } } : n === 2 ? { status: 503, body: {} } : ok()))
    const [c] = await remotePolicy({ baseUrl: server.url }).sample(["x <think>"], sampling, new Rng(1))
    expect(c!.text).toContain("<answer> Right</answer>")
    expect(server.requests.length).toBe(3)
  })

  test("after the last retry: one error naming the server, the status and the attempts; the API key is never shown", async () => {
    // a hostile server that echoes the Authorization header in its error body
    server = await startFake((r) => ({ status: 500, body: { error: `bad auth ${r.headers.authorization}` } }))
    const p = remotePolicy({ baseUrl: server.url, apiKeyEnv: "TEST_KEY", retries: 2 }, { TEST_KEY: KEY })
    const e = await failure(p.sample(["x <think>"], sampling, new Rng(1)))
    expect(e._tag).toBe("UsageError")
    expect(e.message).toContain(`${server.url}/completions failed after 3 attempts`)
    expect(e.message).toContain("status 500")
    expect(e.message).not.toContain(KEY)
    expect(e.message).toContain("Bearer ***")
    expect(server.requests.length).toBe(3)
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`) // the key does go to the server
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain(KEY)
  })

  test("a 400 is not retried", async () => {
    server = await startFake(() => ({ status: 400, body: { error: { message: "min_p is not supported" } } }))
    const e = await failure(remotePolicy({ baseUrl: server.url }).sample(["x <think>"], sampling, new Rng(1)))
    expect(e.message).toContain("replied status 400")
    expect(e.message).toContain("min_p is not supported")
    expect(server.requests.length).toBe(1)
  })

  test("a server that never answers times out on every attempt", async () => {
    server = await startFake(() => ({ delayMs: Infinity }))
    const e = await failure(remotePolicy({ baseUrl: server.url, timeoutMs: 150, retries: 1 }).sample(["x <think>"], sampling, new Rng(1)))
    expect(e.message).toContain("failed after 2 attempts")
    expect(e.message).toContain("no reply within 150 ms")
  })

  test("a reply over maxResponseBytes is refused", async () => {
    server = await startFake(() => ({ text: JSON.stringify({ choices: [{ text: "x".repeat(50_000) }] }) }))
    const e = await failure(remotePolicy({ baseUrl: server.url, maxResponseBytes: 10_000 }).sample(["x <think>"], sampling, new Rng(1)))
    expect(e.message).toContain("over 10000 bytes")
  })

  test("at most `concurrency` requests are in flight", async () => {
    server = await startFake(() => ({ ...ok(), delayMs: 40 }))
    const out = await remotePolicy({ baseUrl: server.url, concurrency: 2 }).sample(
      Array.from({ length: 6 }, (_, i) => `p${i} <think>`),
      sampling,
      new Rng(1)
    )
    expect(out.length).toBe(6)
    expect(server.maxInFlight()).toBe(2)
  })

  test("per-prompt seeds come from the caller's Rng in prompt order", async () => {
    server = await startFake(ok)
    await remotePolicy({ baseUrl: server.url, concurrency: 1 }).sample(["a <think>", "b <think>"], sampling, new Rng(42))
    const r = new Rng(42)
    const bySeed = new Map(server.requests.map((q) => [q.body.prompt, q.body.seed]))
    expect(bySeed.get("a <think>")).toBe(r.nextU32())
    expect(bySeed.get("b <think>")).toBe(r.nextU32())
  })

  test("bad options are one-line errors at construction", () => {
    expect(() => remotePolicy({ baseUrl: "ftp://x/v1" })).toThrow("must be http:// or https://")
    expect(() => remotePolicy({ baseUrl: "http://user:pw@x/v1" })).toThrow("must not carry credentials")
    expect(() => remotePolicy({ baseUrl: "http://x/v1", apiKeyEnv: "NOPE_KEY" }, {})).toThrow("NOPE_KEY (policyOptions.apiKeyEnv) is not set")
    expect(() => remotePolicy({ baseUrl: "http://x/v1", template: "custom" })).toThrow("{user} placeholder")
    expect(() => remotePolicy({ baseUrl: "http://x/v1", concurency: 2 })).toThrow("did you mean concurrency?")
  })
})
