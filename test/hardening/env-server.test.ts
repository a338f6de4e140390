/**
 * docs/decisions.md#issue-15, the env server: each reproduction of the issue against a server on a loopback port
 * started here, with bounded request counts and time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { createServer, type Server as NodeServer } from "node:http"
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { loadMetaMathQA, loadMetaMathQAAsync } from "../../envs/metamathqa/dataset.ts"
import { catalogue } from "../../envs/webshop/catalogue.ts"
import { startRetrievalServer, type RunningServer } from "../../envs/searchqa/serve.ts"
import { hostNameOf } from "../../envs/server/http.ts"
import { loadResources, parseResourceFlags } from "../../envs/server/operator.ts"
import { boundedLines, serveStdio } from "../../envs/server/stdio.ts"
import { startFixture, type Fixture } from "../fixtures/webshop-server.ts"
import { makeServer, raw, start, statusOf, type Running } from "./helpers.ts"

const dir = mkdtempSync(join(tmpdir(), "rb-harden-"))
const secret = join(dir, "secret.jsonl")
const dataset = join(dir, "metamath.jsonl")
const fifo = join(dir, "fifo")
const hasFifo = spawnSync("mkfifo", [fifo]).status === 0

let retrieval: RunningServer
let shop: Fixture
let running: Running

beforeAll(async () => {
  writeFileSync(secret, JSON.stringify({ query: "TOP-SECRET-LINE", response: "The answer is: 42" }) + "\n")
  copyFileSync(join(import.meta.dir, "..", "fixtures", "metamathqa-sample.jsonl"), dataset)
  retrieval = await startRetrievalServer(0)
  shop = await startFixture()
  const resources = await loadResources([
    { name: "metamath", kind: "file", value: dataset },
    { name: "bm25", kind: "url", value: retrieval.url },
    { name: "shop", kind: "url", value: shop.url }
  ])
  running = await start(makeServer(resources), { bodyTimeoutMs: 400, idleTimeoutMs: 600 })
})

afterAll(async () => {
  await running.close()
  await retrieval.close()
  await shop.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("file and URL options are operator settings", () => {
  test("a client-given dataPath is refused before anything is read; the file never reaches the reply", async () => {
    const r = await running.post("/create", { env: "metamathqa", options: { dataPath: secret } })
    expect(r.status).toBe(400)
    expect(r.body.error).toContain("operator setting")
    expect(r.body.error).toContain("metamath") // names what the server offers
    expect(JSON.stringify(r.body)).not.toContain("TOP-SECRET-LINE")
    // A missing path and an existing one get the same answer: no existence oracle.
    const missing = await running.post("/create", { env: "metamathqa", options: { dataPath: join(dir, "nope.jsonl") } })
    expect(missing.status).toBe(400)
    expect(missing.body.error.replace(/"[^"]*"$/, "")).toBe(r.body.error.replace(/"[^"]*"$/, ""))
  })

  test.skipIf(!hasFifo)("a FIFO path is refused at once (no client is blocked)", async () => {
    const t0 = performance.now()
    const r = await running.post("/create", { env: "metamathqa", options: { dataPath: fifo } })
    expect(r.status).toBe(400)
    expect((await running.post("/create", { env: "countdown" })).status).toBe(200)
    expect(performance.now() - t0).toBeLessThan(5000) // a bound on the test, not a benchmark
  })

  test("a resource chosen by name: the reply records the name and a content hash, never the path", async () => {
    const r = await running.post("/create", { env: "metamathqa", seed: 1, options: { dataPath: "metamath" } })
    expect(r.status).toBe(200)
    expect(r.body.resources).toEqual({ dataPath: { name: "metamath", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } })
    expect(JSON.stringify(r.body)).not.toContain(dir)
    const problems = loadMetaMathQA(dataset).problems.map((p) => p.question)
    expect(problems).toContain(r.body.observation)
    // "" is the built-in generator: nothing to choose.
    expect((await running.post("/create", { env: "metamathqa", options: { dataPath: "" } })).status).toBe(200)
  })

  test("client URLs for searchqa retriever.url and webshop server.url are refused; names work", async () => {
    for (const body of [
      { env: "searchqa", options: { retriever: { url: retrieval.url } } },
      { env: "webshop", options: { server: { url: shop.url } } },
      { env: "webshop", options: { server: { url: "metamath" } } } // a file name where a URL goes is refused too
    ]) {
      const r = await running.post("/create", body)
      expect(r.status).toBe(400)
      expect(r.body.error).toContain("operator setting")
    }
    const before = shop.requests.length
    const q = await running.post("/create", { env: "searchqa", seed: 2, options: { retriever: { url: "bm25" } } })
    expect(q.status).toBe(200)
    expect(q.body.resources["retriever.url"].name).toBe("bm25")
    const s = await running.post("/step", { id: q.body.id, action: "<answer>search[ka vu fi]</answer>" })
    expect(s.status).toBe(200)
    const w = await running.post("/create", { env: "webshop", seed: 7, options: { server: { url: "shop" } } })
    expect(w.status).toBe(200)
    expect(w.body.observation).toContain("instruction :")
    expect(shop.requests.length).toBeGreaterThan(before)
  })

  test("operator resources: FIFOs, devices and folders are refused at startup with one line", async () => {
    if (hasFifo) await expect(loadResources([{ name: "f", kind: "file", value: fifo }])).rejects.toThrow(/not a regular file/)
    await expect(loadResources([{ name: "z", kind: "file", value: "/dev/zero" }])).rejects.toThrow(/not a regular file/)
    await expect(loadResources([{ name: "d", kind: "file", value: dir }])).rejects.toThrow(/not a regular file/)
    await expect(loadResources([{ name: "big", kind: "file", value: dataset }], 10)).rejects.toThrow(/over the limit/)
    if (hasFifo) await expect(loadMetaMathQAAsync(fifo)).rejects.toThrow(/not a regular file/)
    expect(() => loadMetaMathQA("/dev/zero")).toThrow(/not a regular file/)
    expect(parseResourceFlags(["x=file:///etc/passwd"]).ok).toBe(false)
    expect(parseResourceFlags(["../x=a"]).ok).toBe(false)
    expect(parseResourceFlags(["a=1", "a=2"]).ok).toBe(false)
    expect(parseResourceFlags(["u=http://127.0.0.1:8000/retrieve", "f=data/x.jsonl"])).toEqual({
      ok: true,
      value: [
        { name: "u", kind: "url", value: "http://127.0.0.1:8000/retrieve" },
        { name: "f", kind: "file", value: "data/x.jsonl" }
      ]
    })
  })
})

describe("requests from web pages are refused", () => {
  const req = (lines: string[], body = "") => `${lines.join("\r\n")}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  const create = JSON.stringify({ env: "countdown" })

  test("Host must name the bound loopback address (DNS rebinding)", async () => {
    const bad = await raw(running.port, req(["POST /create HTTP/1.1", "host: attacker.example:80", "content-type: application/json"], create))
    expect(statusOf(bad.reply)).toBe(403)
    for (const host of [`127.0.0.1:${running.port}`, `localhost:${running.port}`, `[::1]:${running.port}`]) {
      const ok = await raw(running.port, req(["POST /create HTTP/1.1", `host: ${host}`, "content-type: application/json"], create))
      expect(statusOf(ok.reply)).toBe(200)
    }
    expect(hostNameOf("[::1]:80")).toBe("::1")
    expect(hostNameOf("evil.example@127.0.0.1")).toBeUndefined()
  })

  test("a foreign Origin, a cross-site fetch, a non-JSON content type and a CORS preflight are refused", async () => {
    const host = `host: 127.0.0.1:${running.port}`
    const foreign = await raw(running.port, req(["POST /create HTTP/1.1", host, "origin: https://evil.example", "content-type: application/json"], create))
    expect(statusOf(foreign.reply)).toBe(403)
    const nullOrigin = await raw(running.port, req(["POST /create HTTP/1.1", host, "origin: null", "content-type: application/json"], create))
    expect(statusOf(nullOrigin.reply)).toBe(403)
    const own = await raw(running.port, req(["POST /create HTTP/1.1", host, `origin: http://127.0.0.1:${running.port}`, "content-type: application/json"], create))
    expect(statusOf(own.reply)).toBe(200)
    const site = await raw(running.port, req(["POST /create HTTP/1.1", host, "sec-fetch-site: cross-site", "content-type: application/json"], create))
    expect(statusOf(site.reply)).toBe(403)
    // What a cross-site <form> or no-cors fetch can send: text/plain, form-urlencoded.
    for (const ct of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const r = await raw(running.port, req(["POST /create HTTP/1.1", host, `content-type: ${ct}`], create))
      expect(statusOf(r.reply)).toBe(415)
    }
    const pre = await raw(running.port, req(["OPTIONS /create HTTP/1.1", host, "origin: https://evil.example", "access-control-request-method: POST"]))
    expect(statusOf(pre.reply)).toBe(403)
    expect(pre.reply.toLowerCase()).not.toContain("access-control-allow")
  })
})

describe("bounded resources", () => {
  test("a body that arrives partly is timed out (408) and the connection closed", async () => {
    const r = await raw(running.port, `POST /create HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"env":`, 5000)
    expect(statusOf(r.reply)).toBe(408)
    expect(r.closed).toBe(true)
  })

  test("half-sent headers and idle connections are closed", async () => {
    const half = await raw(running.port, "POST /create HTTP/1.1\r\nhost: 127.0.0.1\r\n", 5000)
    expect(half.closed).toBe(true)
    const idle = await raw(running.port, "", 5000)
    expect(idle.closed).toBe(true)
  })

  test("a malformed URL or percent-encoding is a 400, never a 500", async () => {
    const host = "host: 127.0.0.1"
    for (const target of ["/session/%E0%A4%A", "/session/%", "*", "http://evil.example/create"]) {
      const r = await raw(running.port, `DELETE ${target} HTTP/1.1\r\n${host}\r\nconnection: close\r\n\r\n`)
      const status = statusOf(r.reply)
      expect(status === 400 || status === 404).toBe(true)
    }
    const bad = await raw(running.port, `DELETE /session/%E0%A4%A HTTP/1.1\r\n${host}\r\nconnection: close\r\n\r\n`)
    expect(statusOf(bad.reply)).toBe(400)
  })

  test("strict /create options: an unknown key is a 400 with the one-line nearest-key message", async () => {
    const r = await running.post("/create", { env: "metamathqa", options: { maxAtempts: 2 } })
    expect(r.status).toBe(400)
    expect(r.body.error).toBe("invalid options for metamathqa-v1: maxAtempts: unknown option; did you mean maxAttempts?")
    const top = await running.post("/create", { env: "countdown", sed: 1 })
    expect(top.status).toBe(400)
    expect(top.body.error).toContain("sed: unknown option; did you mean seed?")
    expect(top.body.error).not.toContain("\n")
    const proto = await running.post("/create", `{"env":"countdown","options":{"__proto__":{"x":1}}}`)
    expect(proto.status).toBe(400)
  })

  test("the body limit answers 413 without reading an endless body", async () => {
    const small = await start(makeServer(), { maxBodyBytes: 1024 })
    try {
      const r = await small.post("/create", { env: "countdown", pad: "x".repeat(10_000) })
      expect(r.status).toBe(413)
    } finally {
      await small.close()
    }
  })

  test("WebShop: creates with many distinct option sets do not pile up data (the caches are bounded)", async () => {
    const srv = makeServer(new Map(), 1)
    const s = await start(srv)
    try {
      const first = catalogue(300)
      for (let k = 0; k < 12; k++) {
        // v1 builds a catalogue per size (v2 shares one store: test/envs/webshop-v2.test.ts).
        const r = await s.post("/create", { env: "webshop-v1", options: { catalogueSize: 300 + k, resultsPerPage: 1 + (k % 5) } })
        expect(r.status).toBe(200)
      }
      // The first catalogue was evicted: asking again builds a new one (same content, new object).
      const again = catalogue(300)
      expect(again).not.toBe(first)
      expect(again.products.map((p) => p.id)).toEqual(first.products.map((p) => p.id))
    } finally {
      await s.close()
    }
  }, 60_000)
})

describe("stdio", () => {
  test("a line over the limit is refused while it is read (not buffered), and the next line is served", async () => {
    const srv = makeServer()
    const input = new PassThrough()
    const output = new PassThrough()
    const out: string[] = []
    output.on("data", (d) => out.push(String(d)))
    const done = serveStdio(srv, input, output, 1024)
    const chunk = "x".repeat(64 * 1024)
    for (let i = 0; i < 64; i++) input.write(chunk) // 4 MiB without a newline
    input.write("\n")
    input.write(JSON.stringify({ op: "create", env: "countdown" }) + "\n")
    input.end()
    await done
    const lines = out
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines.map((l) => l.status)).toEqual([413, 200])
  })

  test("boundedLines never holds more than the limit of one line", async () => {
    async function* feed() {
      yield Buffer.from("ab\ncd")
      yield Buffer.from("e".repeat(100))
      yield Buffer.from("\r\nok\r\n")
      yield Buffer.from("tail")
    }
    const got: Array<string | null> = []
    for await (const l of boundedLines(feed(), 10)) got.push(l)
    expect(got).toEqual(["ab", null, "ok", "tail"])
  })
})

describe("remote backends: redirects stay on the operator's origin", () => {
  let other: NodeServer
  let otherHits = 0
  let redirector: NodeServer
  let redirectorUrl = ""
  beforeAll(async () => {
    other = createServer((_q, res) => {
      otherHits++
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ result: [["LEAKED FROM ANOTHER ORIGIN"]] }))
    })
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()))
    const otherUrl = `http://localhost:${(other.address() as { port: number }).port}/retrieve`
    redirector = createServer((_q, res) => {
      res.writeHead(307, { location: otherUrl })
      res.end()
    })
    await new Promise<void>((r) => redirector.listen(0, "127.0.0.1", () => r()))
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as { port: number }).port}/retrieve`
  })
  afterAll(() => {
    other.close()
    redirector.close()
  })

  test("a cross-origin redirect is not followed; the reply says so without the other page", async () => {
    const resources = await loadResources([{ name: "r", kind: "url", value: redirectorUrl }])
    const s = await start(makeServer(resources))
    try {
      const c = await s.post("/create", { env: "searchqa", options: { retriever: { url: "r", retries: 0 } } })
      expect(c.status).toBe(200)
      const r = await s.post("/step", { id: c.body.id, action: "<answer>search[ka vu fi]</answer>" })
      expect(r.status).toBe(502)
      expect(r.body.error).toContain("another origin")
      expect(JSON.stringify(r.body)).not.toContain("LEAKED")
      expect(otherHits).toBe(0)
    } finally {
      await s.close()
    }
  })
})
