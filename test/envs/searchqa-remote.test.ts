/**
 * The SearchQA retriever adapter against local node:http fixture servers on 127.0.0.1:0:
 * the shipped BM25 server (both wire formats), hand-written fixtures for the other response
 * shapes, a flaky server (retries), a malformed one, a down one and a silent one (timeouts).
 * Every failure case is bounded to well under a second.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import type { Completion, Policy } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { rollout } from "../../core/train/rollout.ts"
import { CORPUS } from "../../envs/searchqa/corpus.ts"
import { searchQASpec } from "../../envs/searchqa/env.ts"
import { hopQuery } from "../../envs/searchqa/questions.ts"
import { retrieve, RetrieverError, type RetrieverSettings } from "../../envs/searchqa/remote.ts"
import { startRetrievalServer, type RunningServer } from "../../envs/searchqa/serve.ts"
import type { SearchQAState } from "../../envs/searchqa/teacher.ts"

type Handler = (body: any, req: IncomingMessage, res: ServerResponse) => void
const fixture = (handler: Handler): Promise<{ url: string; close: () => Promise<void>; hits: () => number }> =>
  new Promise((resolve) => {
    let hits = 0
    const server = createServer((req, res) => {
      hits++
      const chunks: Buffer[] = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => handler(JSON.parse(Buffer.concat(chunks).toString("utf8") || "null"), req, res))
    })
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}/retrieve`,
        hits: () => hits,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections?.()
            server.close(() => done())
          })
      })
    })
  })
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}
const settings = (url: string, more: Partial<RetrieverSettings> = {}): RetrieverSettings => ({ url, format: "search-r1", timeoutMs: 2000, retries: 2, ...more })
const fail = async (s: RetrieverSettings): Promise<RetrieverError> => {
  const e = await Effect.runPromise(Effect.flip(retrieve(s, "ni pe lo", 3)))
  expect(e).toBeInstanceOf(RetrieverError)
  return e
}
const remoteEnv = (retriever: Record<string, unknown>, hops: 1 | 2 = 2) => {
  const r = decodeSync(searchQASpec.options, { hops, retriever })
  if (!r.ok) throw new Error(r.message)
  return searchQASpec.make(r.value)
}

let shipped: RunningServer
beforeAll(async () => {
  shipped = await startRetrievalServer(0)
})
afterAll(async () => {
  await shipped.close()
})

describe("searchqa retriever: wire formats", () => {
  test("the shipped server speaks Search-R1 and RAGEN; both decode to the local top-k", async () => {
    const f = CORPUS.facts[77]!
    const want = CORPUS.passages[f.passage]!
    const a = await Effect.runPromise(retrieve(settings(shipped.url), hopQuery(f), 3))
    const b = await Effect.runPromise(retrieve(settings(shipped.url, { format: "ragen" }), hopQuery(f), 3))
    expect(a.length).toBe(3)
    expect(a[0]).toBe(want)
    expect(b).toEqual(a)
    // Raw Search-R1 shape, with scores, best first.
    const raw = (await (await fetch(shipped.url, { method: "POST", body: JSON.stringify({ queries: [hopQuery(f), "zz"], topk: 2, return_scores: true }) })).json()) as any
    expect(raw.result.length).toBe(2)
    expect(raw.result[0][0].document.contents).toBe(want)
    expect(raw.result[0][0].score).toBeGreaterThan(raw.result[0][1].score)
    expect(raw.result[1]).toEqual([])
    const bad = await fetch(shipped.url, { method: "POST", body: JSON.stringify({ topk: "x" }) })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).error).toContain("bad request")
  })
  test("other response shapes: Search-R1 without scores, RAGEN as a bare list of strings or {text}", async () => {
    const srv = await fixture((body, _req, res) => {
      if (body.queries) return json(res, 200, { result: [[{ contents: "one" }, { id: "2", contents: "two" }]] })
      return json(res, 200, body.query === "strings" ? ["s1", "s2", "s3", "s4"] : [{ text: "t1" }, { contents: "c2" }])
    })
    try {
      expect(await Effect.runPromise(retrieve(settings(srv.url), "q", 3))).toEqual(["one", "two"])
      expect(await Effect.runPromise(retrieve(settings(srv.url, { format: "ragen" }), "strings", 3))).toEqual(["s1", "s2", "s3"])
      expect(await Effect.runPromise(retrieve(settings(srv.url, { format: "ragen" }), "objects", 3))).toEqual(["t1", "c2"])
    } finally {
      await srv.close()
    }
  })
  test("requests carry each format's fields", async () => {
    const seen: unknown[] = []
    const srv = await fixture((body, _req, res) => {
      seen.push(body)
      json(res, 200, body.queries ? { result: [[]] } : { results: [] })
    })
    try {
      await Effect.runPromise(retrieve(settings(srv.url), "abc", 4))
      await Effect.runPromise(retrieve(settings(srv.url, { format: "ragen" }), "abc", 4))
      expect(seen).toEqual([
        { queries: ["abc"], topk: 4, return_scores: true },
        { query: "abc", top_k: 4 }
      ])
    } finally {
      await srv.close()
    }
  })
})

describe("searchqa retriever: failures", () => {
  test("a server down: a typed error naming the URL and the fix, after the retries", async () => {
    const srv = await fixture((_b, _r, res) => json(res, 200, {}))
    const url = srv.url
    await srv.close() // the port is now closed
    const t0 = performance.now()
    const e = await fail(settings(url, { retries: 1, timeoutMs: 300 }))
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(e.url).toBe(url)
    expect(e.message).toContain(url)
    expect(e.message).toContain("not reachable")
    expect(e.message).toContain("2 attempt(s)")
    expect(e.message).toContain("serve.ts")
    expect(e.message).toContain("drop the `retriever` option")
  })
  test("a silent server: each attempt times out", async () => {
    const srv = await fixture(() => {}) // never answers
    try {
      const t0 = performance.now()
      const e = await fail(settings(srv.url, { retries: 1, timeoutMs: 150 }))
      const ms = performance.now() - t0
      expect(ms).toBeGreaterThanOrEqual(290)
      expect(ms).toBeLessThan(1000)
      expect(e.message).toContain("timed out after 150 ms")
      expect(srv.hits()).toBe(2)
    } finally {
      await srv.close()
    }
  })
  test("5xx is retried with backoff and can recover; 4xx and malformed JSON fail at once", async () => {
    let n = 0
    const flaky = await fixture((_b, _r, res) => (++n < 3 ? json(res, 503, { error: "busy" }) : json(res, 200, { result: [["ok"]] })))
    const status = await fixture((_b, _r, res) => json(res, 404, { error: "no such route" }))
    const malformed = await fixture((_b, _r, res) => json(res, 200, { result: "nope" }))
    try {
      expect(await Effect.runPromise(retrieve(settings(flaky.url, { retries: 2 }), "q", 3))).toEqual(["ok"])
      expect(flaky.hits()).toBe(3)
      const e404 = await fail(settings(status.url))
      expect(e404.message).toContain("HTTP 404")
      expect(status.hits()).toBe(1)
      const eBad = await fail(settings(malformed.url))
      expect(eBad.transient).toBe(false)
      expect(eBad.message).toContain("Search-R1")
      expect(malformed.hits()).toBe(1)
    } finally {
      await Promise.all([flaky.close(), status.close(), malformed.close()])
    }
  })
})

describe("searchqa-v1 with a retriever", () => {
  test("the teacher solves two-hop questions through stepAsync; sync step says to use stepAsync", async () => {
    for (const format of ["search-r1", "ragen"]) {
      const env = remoteEnv({ url: shipped.url, format })
      for (let seed = 0; seed < 5; seed++) {
        env.reset(seed)
        let success = false
        let steps = 0
        while (!env.done) {
          const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(seed))
          const r = await env.stepAsync!(t.action)
          if (steps === 0) expect(r.observation).toContain(CORPUS.passages[(env.state() as SearchQAState).hops[0]!.passage]!)
          success ||= r.info.success
          steps++
        }
        expect(success).toBe(true)
        expect(steps).toBe(3)
      }
    }
    const env = remoteEnv({ url: shipped.url })
    expect(() => env.step("search[x y z]")).toThrow(/stepAsync/)
  })
  test("a server with another corpus: passages shown as sent, the teacher still finishes", async () => {
    const srv = await fixture((_b, _r, res) => json(res, 200, { result: [[{ document: { contents: '"Title"\nSome   other\tcorpus text' }, score: 1 }]] }))
    try {
      const env = remoteEnv({ url: srv.url }, 1)
      env.reset(1)
      const r = await env.stepAsync!(env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0)).action)
      expect(r.observation).toContain('1 . "Title" Some other corpus text')
      const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(0))
      expect(t.action.startsWith("finish[")).toBe(true)
      expect((await env.stepAsync!(t.action)).info.success).toBe(true)
      // Invalid text and finish need no server.
      env.reset(2)
      expect((await env.stepAsync!("nonsense")).info.valid).toBe(false)
      expect(srv.hits()).toBe(1)
    } finally {
      await srv.close()
    }
  })
  test("a down server rejects stepAsync with the RetrieverError", async () => {
    const srv = await fixture((_b, _r, res) => json(res, 200, {}))
    await srv.close()
    const env = remoteEnv({ url: srv.url, retries: 0, timeoutMs: 300 })
    env.reset(0)
    const e = await env.stepAsync!("search[ni pe lo]").then(
      () => undefined,
      (x: unknown) => x
    )
    expect(e).toBeInstanceOf(RetrieverError)
    expect((e as RetrieverError).message).toContain(srv.url)
  })
  test("the rollout awaits stepAsync", async () => {
    let calls = 0
    const text = "plan : search ni pe lo </think> <answer> search[ni pe lo country] </answer>"
    const policy: Policy = {
      id: "scripted",
      sample: async (prompts): Promise<Completion[]> =>
        prompts.map(() => {
          calls++
          return { text, tokens: new Int32Array(3), logprobs: new Float32Array(3), rawLogprobs: new Float32Array(3), finishReason: "stop" }
        }),
      score: async () => []
    }
    const opts = decodeSync(searchQASpec.options, { retriever: { url: shipped.url } })
    if (!opts.ok) throw new Error(opts.message)
    const b = await rollout(
      policy,
      { spec: searchQASpec, envOptions: opts.value, maxTurns: 2, context: "full", historyTurns: 0, instructions: undefined, maxTokens: 32, temperature: 1, topP: 1, minP: 0, formatPenalty: -0.1 },
      [1, 2],
      2,
      new Rng(0)
    )
    expect(calls).toBe(8)
    for (const t of b.trajectories) {
      expect(t.turns.length).toBe(2)
      expect(t.turns.every((u) => u.actionValid)).toBe(true)
    }
    expect(b.trajectories[0]!.turns[1]!.prompt).toContain("search ni pe lo country :\n1 . ")
  })
})
