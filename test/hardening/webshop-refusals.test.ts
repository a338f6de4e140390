/**
 * docs/decisions.md#issue-27, WebShop: a refusal that can never succeed (a cross-origin redirect, an oversize page,
 * a content type that is not HTML) is not retried, and the error says how many attempts were
 * made; a 5xx still is retried. Live sessions with distinct catalogue sizes share one product
 * store (webshop-v2), so sessions do not each keep a catalogue.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { createServer, type Server } from "node:http"
import { decodeSync } from "../../core/schema/decode.ts"
import { webShopSpec } from "../../envs/webshop/env.ts"
import { MAX_PAGE_BYTES, type RemoteWebShopEnv } from "../../envs/webshop/remote.ts"

interface Counting {
  url: string
  hits: number
  close(): void
}

/** A server that answers every request with `answer` and counts the requests. */
const counting = async (answer: (res: import("node:http").ServerResponse) => void): Promise<Counting> => {
  const c = { url: "", hits: 0, close: () => {} }
  const server: Server = createServer((req, res) => {
    req.resume()
    c.hits++
    answer(res)
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  c.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  c.close = () => {
    server.close()
    server.closeAllConnections?.()
  }
  return c
}

const webshop = (url: string) => {
  const r = decodeSync(webShopSpec.options, { server: { url, timeoutMs: 5000, retries: 2 } })
  if (!r.ok) throw new Error(r.message)
  return webShopSpec.make(r.value) as RemoteWebShopEnv
}

const failure = (env: RemoteWebShopEnv) =>
  env.resetAsync(0).then(
    () => null,
    (e: Error) => e.message
  )

describe("WebShop remote adapter: refusals are not retried", () => {
  const servers: Counting[] = []
  afterAll(() => servers.forEach((s) => s.close()))
  const cases: Array<[string, (res: import("node:http").ServerResponse) => void, string]> = [
    ["a cross-origin redirect", (res) => res.writeHead(302, { location: "http://example.invalid/" }).end(), "another origin"],
    ["an oversize page", (res) => res.writeHead(200, { "content-type": "text/html", "content-length": String(MAX_PAGE_BYTES + 1) }).end(), "over the limit"],
    ["a content type that is not HTML", (res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"), "content type"]
  ]
  for (const [what, answer, says] of cases) {
    test(`${what}: one request, and the error says one attempt`, async () => {
      const s = await counting(answer)
      servers.push(s)
      const msg = await failure(webshop(s.url))
      expect(msg).toContain(says)
      expect(s.hits).toBe(1)
      expect(msg).toContain("after 1 attempt")
    })
  }

  test("a 5xx is retried (retries 2: three requests)", async () => {
    const s = await counting((res) => res.writeHead(503, { "content-type": "text/html" }).end("busy"))
    servers.push(s)
    const msg = await failure(webshop(s.url))
    expect(s.hits).toBe(3)
    expect(msg).toContain("after 3 attempt(s)")
  })
})
