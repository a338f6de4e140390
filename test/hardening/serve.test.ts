/**
 * docs/decisions.md#issue-27: `ragen-bench serve` as an attacker or a careless client meets it. Every case here was
 * reproduced against the earlier serve (one shared promise chain that waited for each body's
 * `end`): an abandoned request wedged the server for good, a partial body blocked everyone, web
 * pages got completions, a flood was all accepted, and a gone client's request was computed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Server } from "node:http"
import { connect, type Socket } from "node:net"
import { decodeSync } from "../../core/schema/decode.ts"
import envsPlugin from "../../envs/plugin.ts"
import { startServe } from "../../plugins/openai/serve-http.ts"
import { TinyLMServer } from "../../plugins/openai/serve.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { raw, statusOf } from "./helpers.ts"

const dec = <T>(s: any, x: unknown): T => {
  const r = decodeSync<T>(s, x)
  if (!r.ok) throw new Error(r.message)
  return r.value
}

let srv: TinyLMServer
beforeAll(async () => {
  const spec = envsPlugin.envs!.find((e) => e.id.startsWith("frozenlake"))!
  const policy = await makeTinyLM(dec(TinyLMOptions, {}), { vocabulary: spec.vocabulary(dec(spec.options, {})), seed: 3 })
  srv = new TinyLMServer(policy, { model: "tiny" })
})

interface Running {
  server: Server
  url: string
  port: number
  close(): void
}
const serve = async (s: TinyLMServer, o: Parameters<typeof startServe>[3] = {}): Promise<Running> => {
  const { server, url } = await startServe(s, 0, "127.0.0.1", o)
  return {
    server,
    url,
    port: Number(new URL(url).port),
    close: () => {
      server.closeAllConnections?.()
      server.close()
    }
  }
}

/** The promise's value, or "hang" when it has not settled within `ms` (a wedged server fails, never hangs the test). */
const within = <T>(ms: number, p: Promise<T>): Promise<T | "hang"> => Promise.race([p, new Promise<"hang">((r) => setTimeout(() => r("hang"), ms))])

const COMPLETION = JSON.stringify({ model: "tiny", prompt: "Up <think>", max_tokens: 4, seed: 1 })
const postJson = (url: string, body = COMPLETION, signal?: AbortSignal) =>
  fetch(`${url}/completions`, { method: "POST", body, headers: { "content-type": "application/json" }, ...(signal ? { signal } : {}) }).then(async (r) => ({
    status: r.status,
    retryAfter: r.headers.get("retry-after"),
    text: await r.text()
  }))

/** /models and a completion both answer 200 within 5 s each. */
const expectServing = async (url: string): Promise<void> => {
  expect(
    await within(
      5000,
      fetch(`${url}/models`).then((x) => x.status)
    )
  ).toBe(200)
  expect(
    await within(
      5000,
      postJson(url).then((x) => x.status)
    )
  ).toBe(200)
}

/** A connection that sends the headers of a POST and the first part of a body of `declared` bytes, then waits. */
const partial = (port: number, declared: number, first: string): Promise<Socket> =>
  new Promise((resolve) => {
    const s = connect(port, "127.0.0.1", () => {
      s.write(`POST /v1/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n${first}`)
      resolve(s)
    })
    s.on("error", () => {})
  })

/** A connection that sends `first` at once and the rest on finish(); `reply` is what came back by close (or 30 s). */
const held = (port: number, first: string): Promise<{ finish(rest: string): void; reply: Promise<string> }> =>
  new Promise((resolve) => {
    let got = ""
    const s = connect(port, "127.0.0.1", () => {
      s.write(first)
      resolve({ finish: (rest) => (s.destroyed ? undefined : void s.write(rest)), reply })
    })
    const reply = new Promise<string>((done) => {
      const t = setTimeout(() => (s.destroy(), done(got)), 30_000)
      s.on("data", (d) => (got += String(d)))
      s.on("close", () => (clearTimeout(t), done(got)))
      s.on("error", () => {})
    })
  })

describe("serve: an abandoned or partial request never wedges the server", () => {
  test("A holds a partial body, B gives up: others are served meanwhile and after A finishes", async () => {
    const r = await serve(srv)
    try {
      const body = COMPLETION.padEnd(100, " ")
      const a = await partial(r.port, 100, body.slice(0, 10))
      const aReply = new Promise<string>((resolve) => {
        let got = ""
        a.on("data", (d) => {
          got += String(d)
          if (/\r\n\r\n[\s\S]*\}$/.test(got)) resolve(got)
        })
        a.on("close", () => resolve(got))
        setTimeout(() => resolve(got), 8000)
      })
      // B posts a full request and gives up after 300 ms (what `curl -m` or the client's own timeout does).
      await postJson(r.url, COMPLETION, AbortSignal.timeout(300)).catch(() => undefined)
      // While A still holds its body: models and completions answer.
      await expectServing(r.url)
      a.write(body.slice(10))
      expect(statusOf(await within(8000, aReply).then((x) => (x === "hang" ? "" : x)))).toBe(200)
      a.destroy()
      // After A finished: still serving.
      await expectServing(r.url)
    } finally {
      r.close()
    }
  }, 30_000)

  test("a body that never completes is a 408 and the connection closed; an idle connection is closed", async () => {
    const r = await serve(srv, { bodyTimeoutMs: 500, idleTimeoutMs: 1500 })
    try {
      const slow = await raw(r.port, `POST /v1/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"prom`, 5000)
      expect(statusOf(slow.reply)).toBe(408)
      expect(slow.closed).toBe(true)
      const idle = await raw(r.port, "", 6000)
      expect(idle.closed).toBe(true)
      expect(idle.ms).toBeLessThan(5000)
    } finally {
      r.close()
    }
  }, 30_000)
})

describe("serve: web pages and floods", () => {
  let r: Running
  beforeAll(async () => {
    r = await serve(srv, { maxQueue: 4 })
  })
  afterAll(() => r.close())

  test("a foreign Host or Origin, a text/plain body and a preflight are refused, with no CORS header", async () => {
    const evil = await raw(
      r.port,
      `POST /v1/completions HTTP/1.1\r\nhost: evil.example.com\r\norigin: http://evil.example.com\r\ncontent-type: application/json\r\ncontent-length: ${COMPLETION.length}\r\nconnection: close\r\n\r\n${COMPLETION}`
    )
    expect(statusOf(evil.reply)).toBe(403)
    expect(evil.reply).not.toContain("choices")
    const origin = await fetch(`${r.url}/completions`, { method: "POST", body: COMPLETION, headers: { "content-type": "application/json", origin: "http://evil.example.com" } })
    expect(origin.status).toBe(403)
    const plain = await fetch(`${r.url}/completions`, { method: "POST", body: COMPLETION, headers: { "content-type": "text/plain" } })
    expect(plain.status).toBe(415)
    const pre = await fetch(`${r.url}/completions`, { method: "OPTIONS", headers: { origin: "http://evil.example.com", "access-control-request-method": "POST" } })
    expect(pre.status).toBe(403)
    for (const x of [origin, plain, pre]) expect([...x.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([])
  })

  test("a flood: the queue is bounded, the rest are 503 with Retry-After, none hangs, and it serves afterwards", async () => {
    // Raw connections, as a flood sends them (fetch would pool them behind a few sockets); each
    // sends half its body, and the rest once all are connected, so that all are in flight at once.
    const body = JSON.stringify({ model: "tiny", prompt: "Up <think>", max_tokens: 24, seed: 1 })
    const request = `POST /v1/completions HTTP/1.1\r\nhost: 127.0.0.1:${r.port}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`
    const cut = request.length - 20
    const socks = await Promise.all(Array.from({ length: 60 }, () => held(r.port, request.slice(0, cut))))
    await Bun.sleep(200)
    for (const s of socks) s.finish(request.slice(cut))
    const replies = await Promise.all(socks.map((s) => s.reply))
    const statuses = replies.map((x) => statusOf(x))
    const busy = replies.filter((x) => statusOf(x) === 503)
    expect(busy.length).toBeGreaterThanOrEqual(50)
    for (const b of busy) expect(Number(/\r\nretry-after: (\d+)/i.exec(b)?.[1])).toBeGreaterThanOrEqual(1)
    // No hang (status 0: nothing came back in 30 s) and nothing but 200 or the designed 503.
    expect(statuses.filter((x) => x !== 503 && x !== 200)).toEqual([])
    expect(statuses.filter((x) => x === 200).length).toBe(4)
    expect((await postJson(r.url)).status).toBe(200)
  }, 90_000)
})

describe("serve: a request whose client has gone is not computed", () => {
  test("requests abandoned while queued are dropped; the rest are computed in order", async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((g) => (release = g))
    const computed: string[] = []
    // The same server, with the model's work replaced by a gate and a log of what was computed.
    const gated = Object.create(srv) as TinyLMServer
    gated.completions = async (json: unknown) => {
      const p = String((json as { prompt?: unknown }).prompt)
      computed.push(p)
      if (p === "first") await gate
      return { status: 200, body: { choices: [{ text: p }] } }
    }
    const r = await serve(gated)
    try {
      const body = (prompt: string) => JSON.stringify({ model: "tiny", prompt, max_tokens: 1 })
      const first = postJson(r.url, body("first"))
      while (computed.length === 0) await Bun.sleep(10)
      const gone = await Promise.all(["gone-1", "gone-2"].map((p) => postJson(r.url, body(p), AbortSignal.timeout(300)).catch(() => "aborted")))
      expect(gone).toEqual(["aborted", "aborted"])
      const last = postJson(r.url, body("last"))
      await Bun.sleep(100)
      release()
      expect((await first).status).toBe(200)
      expect((await last).status).toBe(200)
      expect(computed).toEqual(["first", "last"])
    } finally {
      r.close()
    }
  }, 30_000)
})
