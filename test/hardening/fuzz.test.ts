/**
 * Fuzz of the env server (docs/decisions.md#issue-15) and of `serve` (docs/decisions.md#issue-27, at the end): every route and every env, a bounded number of random and
 * adversarial requests (seeded, so a failure replays), over HTTP on a loopback port and over
 * the stdio protocol. Asserted: no 5xx (a backend that is down would be a 502; none is here),
 * the server still answers afterwards, and memory stays bounded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect } from "node:net"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { TinyLMServer } from "../../plugins/openai/serve.ts"
import { startServe } from "../../plugins/openai/serve-http.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { startRetrievalServer, type RunningServer } from "../../envs/searchqa/serve.ts"
import { loadResources } from "../../envs/server/operator.ts"
import { handleLineAsync } from "../../envs/server/stdio.ts"
import { startFixture, type Fixture } from "../fixtures/webshop-server.ts"
import { makeServer, raw, SPECS, start, statusOf, type Running } from "./helpers.ts"

const REQUESTS = 500
const ENV_IDS = SPECS.map((s) => s.id.replace(/-v\d+$/, ""))

const ADVERSARIAL_STRINGS = [
  "",
  " ",
  "\u0000",
  "\ud800", // a lone surrogate
  "💥".repeat(1000),
  "__proto__",
  "constructor",
  "search[" + "a".repeat(5000) + "]",
  "click[" + "[".repeat(2000) + "]",
  "finish[]",
  "<script>alert(1)</script>",
  "%E0%A4%A",
  "../../../../etc/passwd",
  "http://169.254.169.254/latest/meta-data/",
  "1e309",
  "9".repeat(400),
  "Up Up Up Up Up Up Up Up Up Up Up Up",
  "x".repeat(200_000)
]

const randomString = (rng: Rng): string => {
  if (rng.bool(0.5)) return rng.pick(ADVERSARIAL_STRINGS)
  const n = rng.int(40)
  let s = ""
  for (let i = 0; i < n; i++) s += String.fromCharCode(rng.bool(0.9) ? 32 + rng.int(95) : rng.int(0x3000))
  return s
}

const randomValue = (rng: Rng, depth = 0): unknown => {
  const k = rng.int(depth > 3 ? 5 : 8)
  switch (k) {
    case 0:
      return null
    case 1:
      return rng.bool()
    case 2:
      return rng.pick([0, -1, 1.5, 2 ** 32, 2 ** 53 + 1, -0, 1e308, rng.int(1000)])
    case 3:
    case 4:
      return randomString(rng)
    case 5:
      return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1))
    default: {
      const o: Record<string, unknown> = {}
      for (let i = rng.int(4); i > 0; i--)
        o[rng.bool(0.3) ? rng.pick(["env", "seed", "options", "id", "action", "op", "__proto__", "dataPath", "server", "retriever"]) : randomString(rng).slice(0, 20)] = randomValue(rng, depth + 1)
      return o
    }
  }
}

/** A request body: mostly near-valid ones (right shape, hostile values), some pure noise. */
/** A reply the server parses (the trainer's format) half the time, the bare action (a format penalty) otherwise. */
const answer = (rng: Rng, action: string): string => (rng.bool(0.5) ? `<answer>${action}</answer>` : action)

const randomBody = (rng: Rng, ids: ReadonlyArray<string>, op: string): string => {
  const r = rng.int(10)
  if (r === 0) return randomString(rng) // not JSON (mostly)
  if (r === 1) return "[".repeat(100_000) + "]".repeat(100_000) // deep nesting
  if (r === 2) return JSON.stringify(randomValue(rng))
  const env = rng.bool(0.9) ? rng.pick(ENV_IDS) : randomString(rng)
  const options: Record<string, unknown> = rng.bool(0.5)
    ? {}
    : rng.pick<Record<string, unknown>>([
        { dataPath: rng.pick(["metamath", "/etc/passwd", "", "bm25", 3]) },
        { retriever: { url: rng.pick(["bm25", "http://127.0.0.1:1/", "metamath"]), timeoutMs: 500, retries: 0 } },
        { server: { url: rng.pick(["shop", "http://10.0.0.1/", "bm25"]), timeoutMs: 500, retries: 0 } },
        { catalogueSize: rng.pick([10, 11, 5000, 5001, -1]), resultsPerPage: rng.int(60) },
        { hops: rng.pick([1, 2, "mixed", 3]), topk: rng.int(12) },
        { maxAttempts: rng.int(12), nosuch: 1 },
        { [randomString(rng).slice(0, 10)]: randomValue(rng) }
      ])
  const id = rng.bool(0.8) && ids.length > 0 ? rng.pick(ids) : randomString(rng)
  const body: Record<string, unknown> =
    op === "create"
      ? { env, seed: rng.pick([0, 1, rng.int(100_000), -1, 2 ** 32]), options }
      : op === "step"
        ? { id, action: rng.bool(0.7) ? answer(rng, rng.pick(["Up", "Left", "search[ka vu fi]", "click[b01abc]", "finish[ka vu fi]", "19", "1 + 2 * 3"])) : randomString(rng) }
        : { id, seed: rng.int(50) }
  if (rng.bool(0.1)) body.extra = randomValue(rng)
  return JSON.stringify(body)
}

const dir = mkdtempSync(join(tmpdir(), "rb-fuzz-"))
let retrieval: RunningServer
let shop: Fixture
let running: Running

beforeAll(async () => {
  copyFileSync(join(import.meta.dir, "..", "fixtures", "metamathqa-sample.jsonl"), join(dir, "m.jsonl"))
  retrieval = await startRetrievalServer(0)
  shop = await startFixture()
  const resources = await loadResources([
    { name: "metamath", kind: "file", value: join(dir, "m.jsonl") },
    { name: "bm25", kind: "url", value: retrieval.url },
    { name: "shop", kind: "url", value: shop.url }
  ])
  running = await start(makeServer(resources, 64), { bodyTimeoutMs: 2000, idleTimeoutMs: 5000 })
})

afterAll(async () => {
  await running.close()
  await retrieval.close()
  await shop.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("env server fuzz", () => {
  test(`${REQUESTS} random and adversarial HTTP requests: no 5xx, still serving, bounded memory`, async () => {
    const rng = new Rng(20261203)
    const ids: string[] = []
    // Real sessions of every env, so that step/reset reach the envs.
    for (const env of ENV_IDS) {
      const opts = env === "metamathqa" ? { dataPath: "metamath" } : env === "webshop" ? { server: { url: "shop" } } : env === "searchqa" ? { retriever: { url: "bm25" } } : {}
      for (const o of [{}, opts]) {
        const r = await running.post("/create", { env, seed: ids.length, options: o })
        expect(r.status).toBe(200)
        ids.push(r.body.id)
      }
    }
    Bun.gc(true)
    const rss0 = process.memoryUsage().rss
    const statuses = new Map<number, number>()
    const failures: string[] = []
    for (let i = 0; i < REQUESTS; i++) {
      const kind = rng.int(12)
      let status: number
      let detail = ""
      if (kind < 9) {
        const op = rng.pick(["create", "step", "step", "step", "reset"])
        const body = randomBody(rng, ids, op)
        const type = rng.bool(0.9) ? "application/json" : rng.pick(["text/plain", "application/json; charset=utf-8", "", "application/jsonx"])
        const r = await fetch(`${running.url}/${op}`, { method: "POST", body, headers: type ? { "content-type": type } : {} })
        status = r.status
        const text = await r.text()
        detail = `${op} ${body.slice(0, 200)} → ${text.slice(0, 200)}`
        if (status === 200 && op === "create") ids.push(JSON.parse(text).id)
      } else if (kind === 9) {
        const path = rng.pick(["/envs", "/session/" + encodeURIComponent(rng.pick(ids)), "/session/%ZZ", "/nowhere", "/create?x=%", "//", "/session/"])
        const method = rng.pick(["GET", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"])
        const r = await fetch(running.url + path, { method })
        status = r.status
        await r.arrayBuffer()
        detail = `${method} ${path}`
      } else {
        // Raw bytes: malformed request lines, targets and headers.
        const target = rng.pick(["/session/%E0%A4%A", "*", "http://x/create", "/create#frag", "/%00", "/session/" + "%41".repeat(3000)])
        const r = await raw(
          running.port,
          `${rng.pick(["GET", "DELETE", "POST"])} ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`
        )
        status = statusOf(r.reply)
        detail = `raw ${target}`
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      if (status >= 500 || status === 0) failures.push(`${status}: ${detail}`)
    }
    expect(failures).toEqual([])
    // Still serving, every env.
    expect((await fetch(`${running.url}/envs`)).status).toBe(200)
    for (const env of ENV_IDS) expect((await running.post("/create", { env })).status).toBe(200)
    Bun.gc(true)
    const grownMiB = (process.memoryUsage().rss - rss0) / 2 ** 20
    expect(grownMiB).toBeLessThan(512)
    // The mix reached the envs, not only the input checks.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(REQUESTS / 5)
    expect(statuses.get(400) ?? 0).toBeGreaterThan(REQUESTS / 10)
  }, 180_000)

  test("the same bodies over the stdio protocol: no 5xx", async () => {
    const rng = new Rng(7)
    const srv = running.srv
    const failures: string[] = []
    for (let i = 0; i < 200; i++) {
      const op = rng.pick(["create", "step", "reset", "envs", "close", "fly"])
      let line = randomBody(rng, [], op === "fly" ? "create" : op)
      if (line.startsWith("{")) line = `{"op":${JSON.stringify(op)},${line.slice(1)}`
      const r = await handleLineAsync(srv, line)
      if (r.status >= 500) failures.push(`${r.status}: ${line.slice(0, 200)} → ${JSON.stringify(r.body).slice(0, 200)}`)
    }
    expect(failures).toEqual([])
  }, 120_000)
})

/**
 * Fuzz of `ragen-bench serve` (docs/decisions.md#issue-27), on 127.0.0.1 with an untrained tiny model: seeded
 * random and adversarial requests to every route, partial bodies (finished late, or never),
 * clients that give up, and floods of held connections, bounded in count and time.
 * Asserted: nothing hangs (each request raced against a deadline), no 5xx — except 503 in the
 * flood phases, where it is the designed answer of a full queue and must carry Retry-After, and
 * where at least one flooding request is still served — the server answers afterwards, and
 * memory stays bounded.
 */
describe("serve fuzz", () => {
  const SERVE_REQUESTS = 300
  let serveRun: { server: import("node:http").Server; url: string; port: number }

  beforeAll(async () => {
    const spec = SPECS.find((s) => s.id.startsWith("frozenlake"))!
    const o = decodeSync(TinyLMOptions, {})
    if (!o.ok) throw new Error(o.message)
    const eo = decodeSync(spec.options, {})
    if (!eo.ok) throw new Error(eo.message)
    const policy = await makeTinyLM(o.value, { vocabulary: spec.vocabulary(eo.value), seed: 5 })
    const { server, url } = await startServe(new TinyLMServer(policy, { model: "tiny" }), 0, "127.0.0.1", { maxQueue: 8, bodyTimeoutMs: 1000, idleTimeoutMs: 3000 })
    serveRun = { server, url, port: Number(new URL(url).port) }
  })
  afterAll(() => {
    serveRun.server.closeAllConnections?.()
    serveRun.server.close()
  })

  const deadline = <T>(ms: number, p: Promise<T>): Promise<T | "hang"> => Promise.race([p, new Promise<"hang">((r) => setTimeout(() => r("hang"), ms))])

  const servedBody = (rng: Rng, chat: boolean): string => {
    const r = rng.int(10)
    if (r === 0) return randomString(rng)
    if (r === 1) return JSON.stringify(randomValue(rng))
    const text = rng.bool(0.6) ? rng.pick(["Up <think>", "Left Down\n<think>", "", "9".repeat(300), "💥 <think>"]) : randomString(rng).slice(0, 400)
    const b: Record<string, unknown> = chat
      ? { messages: rng.bool(0.8) ? [{ role: rng.pick(["user", "system", "tool"]), content: text }] : randomValue(rng) }
      : { prompt: rng.bool(0.9) ? text : randomValue(rng) }
    for (const [k, vs] of [
      ["model", ["tiny", "other", 3]],
      ["max_tokens", [0, 1, 16, 127, 128, -1, 1e9, 1.5, null]],
      ["temperature", [0, 0.5, 1, 2, -1, 1e308, null]],
      ["top_p", [0, 0.5, 1, 1.5]],
      ["min_p", [0, 0.1, 2]],
      ["stop", ["</answer>", ["a", "b"], "", null, 3]],
      ["logprobs", [0, 1, 5, true, null]],
      ["echo", [true, false, "yes"]],
      ["seed", [0, 1, -5, 2 ** 53, null]],
      ["n", [1, 2, null]],
      ["stream", [false, true]]
    ] as const)
      if (rng.bool(0.4)) b[k] = rng.pick(vs as ReadonlyArray<unknown>)
    if (rng.bool(0.1)) b.extra = randomValue(rng)
    return JSON.stringify(b)
  }

  /** A raw connection: sends `first`, then after `waitMs` the rest (or nothing, or closes). */
  const rawHeld = (port: number, first: string, then: { rest?: string; waitMs: number; close?: boolean }): Promise<string> =>
    new Promise((resolve) => {
      let got = ""
      const s = connect(port, "127.0.0.1", () => {
        s.write(first)
        setTimeout(() => {
          if (then.close) s.destroy()
          else if (then.rest !== undefined && !s.destroyed) s.write(then.rest)
        }, then.waitMs)
      })
      const t = setTimeout(() => (s.destroy(), resolve(got)), 15_000)
      s.on("data", (d) => (got += String(d)))
      s.on("close", () => (clearTimeout(t), resolve(got)))
      s.on("error", () => {})
    })

  test(`${SERVE_REQUESTS} random requests, partial bodies, abandoned clients and floods: no hang, no 5xx but the flood's 503, bounded memory`, async () => {
    const rng = new Rng(20261205)
    const url = serveRun.url
    const port = serveRun.port
    Bun.gc(true)
    const rss0 = process.memoryUsage().rss
    const failures: string[] = []
    const statuses = new Map<number, number>()
    const note = (status: number | "hang", detail: string, flood = false) => {
      const s = status === "hang" ? 0 : status
      statuses.set(s, (statuses.get(s) ?? 0) + 1)
      if (s === 0 || (s >= 500 && !(flood && s === 503))) failures.push(`${status}: ${detail.slice(0, 300)}`)
    }
    for (let i = 0; i < SERVE_REQUESTS; i++) {
      const kind = rng.int(20)
      const chat = rng.bool(0.3)
      const path = chat ? "/chat/completions" : "/completions"
      const body = servedBody(rng, chat)
      const head = (len: number, to = path) => `POST /v1${to} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${len}\r\nconnection: close\r\n\r\n`
      if (kind < 12) {
        const type = rng.bool(0.9) ? "application/json" : rng.pick(["text/plain", "application/json; charset=utf-8", "", "application/x-www-form-urlencoded"])
        const r = await deadline(
          20_000,
          fetch(url + path, { method: "POST", body, headers: type ? { "content-type": type } : {} }).then(async (x) => (await x.arrayBuffer(), x.status))
        )
        note(r, `${path} ${type} ${body}`)
      } else if (kind < 14) {
        const p = rng.pick(["/models", "/models/", "/nowhere", "/completions?x=%", "/../etc/passwd", "//", "/chat"])
        const method = rng.pick(["GET", "DELETE", "PUT", "HEAD", "OPTIONS", "POST"])
        const r = await deadline(
          20_000,
          fetch(url + p, { method, headers: rng.bool(0.3) ? { origin: "http://evil.example.com" } : {} }).then(async (x) => (await x.arrayBuffer(), x.status))
        )
        note(r, `${method} ${p}`)
      } else if (kind < 16) {
        // A partial body: finished late (within the body time limit, or after it), or never.
        const cut = rng.int(Math.max(1, body.length))
        const wait = rng.pick([10, 200, 1500])
        const reply = await rawHeld(port, head(Buffer.byteLength(body)) + body.slice(0, cut), rng.bool(0.7) ? { rest: body.slice(cut), waitMs: wait } : { waitMs: wait })
        const s = statusOf(reply)
        // 0 here means the server closed the connection without a reply: fine only if the body never came whole in time.
        note(s === 0 && wait > 1000 ? 408 : s, `partial ${cut}/${body.length} wait ${wait}`)
      } else if (kind < 18) {
        // A client that gives up: it closes mid-body, or aborts while waiting for the reply.
        if (rng.bool()) await rawHeld(port, head(Buffer.byteLength(body)) + body.slice(0, 5), { waitMs: 20, close: true })
        else await fetch(url + path, { method: "POST", body, headers: { "content-type": "application/json" }, signal: AbortSignal.timeout(rng.pick([1, 20, 100])) }).catch(() => undefined)
        const r = await deadline(
          20_000,
          fetch(`${url}/models`).then((x) => x.status)
        )
        note(r, "models after an abandoned client")
      } else if (kind === 18) {
        // A flood of held connections, released together.
        const n = 20 + rng.int(30)
        const good = JSON.stringify({ model: "tiny", prompt: "Up <think>", max_tokens: 8 })
        const replies = await Promise.all(Array.from({ length: n }, () => rawHeld(port, head(good.length, "/completions") + good.slice(0, 3), { rest: good.slice(3), waitMs: 100 })))
        let served = 0
        for (const rp of replies) {
          const s = statusOf(rp)
          if (s === 503 && !/\r\nretry-after: [1-9]\d*\r\n/i.test(rp)) failures.push(`503 without Retry-After: ${rp.slice(0, 200)}`)
          if (s === 200) served++
          note(s, `flood of ${n}`, true)
        }
        if (served === 0) failures.push(`flood of ${n}: none served`)
      } else {
        // Raw bytes: malformed request lines, targets and headers.
        const target = rng.pick(["/v1/completions#frag", "*", "http://x/v1/models", "/%00", "/v1/" + "%41".repeat(3000)])
        const r = await raw(
          port,
          `${rng.pick(["GET", "POST"])} ${target} HTTP/1.1\r\nhost: ${rng.pick(["127.0.0.1", "evil.example.com", ""])}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`
        )
        note(statusOf(r.reply) === 0 && r.closed ? 400 : statusOf(r.reply), `raw ${target}`)
      }
    }
    expect(failures).toEqual([])
    expect((await fetch(`${url}/models`)).status).toBe(200)
    const ok = await fetch(`${url}/completions`, { method: "POST", body: JSON.stringify({ prompt: "Up <think>", max_tokens: 4 }), headers: { "content-type": "application/json" } })
    expect(ok.status).toBe(200)
    Bun.gc(true)
    expect((process.memoryUsage().rss - rss0) / 2 ** 20).toBeLessThan(256)
    // The mix reached the model, not only the input checks.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(SERVE_REQUESTS / 5)
    expect(statuses.get(400) ?? 0).toBeGreaterThan(SERVE_REQUESTS / 20)
  }, 180_000)
})
