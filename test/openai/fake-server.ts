/** A scripted HTTP server on 127.0.0.1 for the remote policy's tests (429/5xx/timeouts, fixture replies). */
import { readFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import { join } from "node:path"
import { decodeSync } from "../../core/schema/decode.ts"
import { OpenAIOptions } from "../../plugins/openai/options.ts"
import { makeOpenAIPolicy, type OpenAIPolicy } from "../../plugins/openai/policy.ts"

export interface FakeRequest {
  readonly path: string
  readonly method: string
  readonly headers: IncomingHttpHeaders
  readonly body: any
}

export interface FakeReply {
  readonly status?: number
  readonly body?: unknown
  /** Raw text instead of JSON. */
  readonly text?: string
  readonly headers?: Record<string, string>
  /** Wait this long before replying; Infinity: never reply. */
  readonly delayMs?: number
}

export interface FakeServer {
  readonly url: string
  readonly requests: FakeRequest[]
  /** Most requests in flight at once. */
  readonly maxInFlight: () => number
  close(): Promise<void>
}

export const fixture = (name: string): any => JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "openai", name), "utf8"))

export const startFake = (handler: (r: FakeRequest, n: number) => FakeReply): Promise<FakeServer> =>
  new Promise((resolve) => {
    const requests: FakeRequest[] = []
    let inFlight = 0
    let max = 0
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        const r: FakeRequest = { path: req.url ?? "/", method: req.method ?? "GET", headers: req.headers, body: raw ? JSON.parse(raw) : undefined }
        requests.push(r)
        inFlight++
        max = Math.max(max, inFlight)
        const reply = handler(r, requests.length)
        const send = () => {
          inFlight--
          const text = reply.text ?? JSON.stringify(reply.body ?? {})
          res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers })
          res.end(text)
        }
        if (reply.delayMs === Infinity) return
        if (reply.delayMs) setTimeout(send, reply.delayMs)
        else send()
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const a = server.address()
      const port = typeof a === "object" && a ? a.port : 0
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        requests,
        maxInFlight: () => max,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.()
            server.close(() => r())
          })
      })
    })
  })

/** The openai policy with decoded options (defaults filled), fast backoff for tests. */
export const remotePolicy = (o: Record<string, unknown>, env: Record<string, string | undefined> = {}): OpenAIPolicy => {
  const r = decodeSync(OpenAIOptions, { model: "m", backoffMs: 5, ...o })
  if (!r.ok) throw new Error(r.message)
  return makeOpenAIPolicy(r.value, env)
}
