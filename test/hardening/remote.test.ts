/**
 * docs/decisions.md#issue-15, the remote adapters: answers are size-capped while read (the server is stopped
 * from sending more, nothing is buffered whole), must have the expected content type, and the
 * WebShop page parser has no backtracking regex (the 1 MB adversarial pages parse to a checked
 * result; their time is in benchmarks/results/hardening.md, from benchmarks/webshop-html.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { createServer, type Server } from "node:http"
import { decodeSync } from "../../core/schema/decode.ts"
import { retrieve } from "../../envs/searchqa/remote.ts"
import { webShopSpec } from "../../envs/webshop/env.ts"
import { MAX_TAGS, PageError, parsePage, stripScripts } from "../../envs/webshop/html.ts"
import { MAX_PAGE_BYTES, type RemoteWebShopEnv } from "../../envs/webshop/remote.ts"

/** A server whose every answer is `total` bytes of `fill` with a content type; counts bytes it managed to send. */
interface Hostile {
  url: string
  sent: number
  close(): void
}
const hostile = async (total: number, type: string, fill: string): Promise<Hostile> => {
  const h = { url: "", sent: 0, close: () => {} }
  const chunk = Buffer.from(fill.repeat(Math.ceil(65536 / fill.length)).slice(0, 65536))
  const server: Server = createServer((req, res) => {
    req.resume()
    res.writeHead(200, { "content-type": type })
    let left = total
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length)
        left -= n
        h.sent += n
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once("drain", pump)
      }
      res.end()
    }
    res.on("close", () => (left = 0))
    pump()
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  h.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  h.close = () => {
    server.close()
    server.closeAllConnections?.()
  }
  return h
}

const webshop = (url: string) => {
  const r = decodeSync(webShopSpec.options, { server: { url, timeoutMs: 20_000, retries: 0 } })
  if (!r.ok) throw new Error(r.message)
  return webShopSpec.make(r.value) as RemoteWebShopEnv
}

describe("WebShop pages", () => {
  const servers: Hostile[] = []
  afterAll(() => servers.forEach((s) => s.close()))

  test("a 100 MB page is cut off at the cap: an error, not a 100 MB observation; the server is stopped early", async () => {
    const h = await hostile(100 << 20, "text/html", "<p>spam</p>")
    servers.push(h)
    const env = webshop(h.url)
    const err = await env.resetAsync(0).then(
      () => null,
      (e: Error) => e
    )
    expect(err?.message).toContain(`limit of ${MAX_PAGE_BYTES} bytes`)
    // Sockets buffer a little beyond the cap; nowhere near the whole page.
    await new Promise((r) => setTimeout(r, 100))
    expect(h.sent).toBeLessThan(32 << 20)
  }, 30_000)

  test("a page that is not HTML is refused by its content type", async () => {
    const h = await hostile(1000, "application/octet-stream", "x")
    servers.push(h)
    const err = await webshop(h.url)
      .resetAsync(0)
      .then(
        () => null,
        (e: Error) => e
      )
    expect(err?.message).toContain('content type "application/octet-stream"')
  })

  test("the 1 MB adversarial pages (repeated <script) parse to a checked result", () => {
    const mb = 1 << 20
    // Repeated "<script>" with no closing tag: everything after the first is script text.
    const open = parsePage("<p>before</p>" + "<script>".repeat(mb / 8), "http://127.0.0.1:3000")
    expect(open.text).toBe("before")
    expect(open.clickables).toEqual([])
    // Repeated "<script" with no ">": one giant tag name, refused by the tag-name bound.
    expect(() => parsePage("<script".repeat(Math.floor(mb / 7)), "http://127.0.0.1:3000")).toThrow(PageError)
    // Closed blocks: all removed, the text between them kept.
    const closed = parsePage("<p>a</p>" + "<script>alert(1)</script>".repeat(Math.floor(mb / 25)) + "<p>b</p>", "http://127.0.0.1:3000")
    expect(closed.text).toBe("a\nb")
    // Too many tags, or nesting without end: refused before the DOM parser sees them.
    expect(() => parsePage("<a href=x>".repeat(mb / 10), "http://127.0.0.1:3000")).toThrow(`more than ${MAX_TAGS} tags`)
    expect(() => parsePage("<div>".repeat(5000), "http://127.0.0.1:3000")).toThrow(/unclosed/)
  })

  test("stripScripts: case, attributes, spacing in the closing tag, link tags; text kept", () => {
    expect(stripScripts('a<SCRIPT type="x">b</ScRiPt >c<link rel=x href=y>d<scripts>e')).toBe("acd<scripts>e")
    expect(stripScripts("x<script>a</scriptx></script>y")).toBe("xy")
    expect(stripScripts("<p>no scripts</p>")).toBe("<p>no scripts</p>")
  })
})

describe("SearchQA retrievers", () => {
  let big: Hostile
  let html: Hostile
  beforeAll(async () => {
    big = await hostile(200 << 20, "application/json", '{"result": [["')
    html = await hostile(100, "text/html", "<p>")
  })
  afterAll(() => {
    big.close()
    html.close()
  })

  test("a 200 MB reply fails at the cap without being buffered; it is not retried", async () => {
    const r = await Effect.runPromise(Effect.result(retrieve({ url: big.url, format: "search-r1", timeoutMs: 20_000, retries: 2 }, "q", 3)))
    expect(r._tag).toBe("Failure")
    if (r._tag === "Failure") {
      expect(r.failure.message).toContain("limit of")
      expect(r.failure.transient).toBe(false)
    }
    await new Promise((res) => setTimeout(res, 100))
    expect(big.sent).toBeLessThan(32 << 20)
  }, 30_000)

  test("a reply that is not JSON by its content type is refused, and its body is not echoed", async () => {
    const r = await Effect.runPromise(Effect.result(retrieve({ url: html.url, format: "ragen", timeoutMs: 5000, retries: 0 }, "q", 3)))
    expect(r._tag).toBe("Failure")
    if (r._tag === "Failure") {
      expect(r.failure.message).toContain('content type "text/html"')
      expect(r.failure.message).not.toContain("<p>")
    }
  })
})
