/**
 * `serve`'s HTTP layer: the env server's protections (core/http-guard.ts: Host/Origin checks,
 * no CORS, JSON-only POST bodies, body and idle timeouts, a body size cap) and a bounded queue.
 *
 * The model computes one request at a time (it is not re-entrant), but bodies are read
 * concurrently and outside that queue, each within its own time limit, so a client holding a
 * partial body delays no one. At most `maxQueue` POSTs are accepted at once (being read,
 * waiting or computing); one more is a 503 with Retry-After (the queue's expected wait), which
 * bounds memory to about maxQueue × maxBodyBytes. A request whose client has gone by its turn is
 * dropped without being computed. GET /v1/models is answered at once, never queued.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { allowedHostSet, applyTimeouts, bodyRefusal, checkBodyHeaders, checkClient, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, readBody } from "../../core/host.ts"
import { DEFAULT_MAX_BODY, err, type Reply, type TinyLMServer } from "./serve.ts"

export const DEFAULT_MAX_QUEUE = 64

export interface ServeHttpOptions {
  /** Largest request body (413 beyond); default the server's maxBodyBytes, else 1 MiB. */
  readonly maxBodyBytes?: number
  /** A request body must arrive within this (408 beyond). */
  readonly bodyTimeoutMs?: number
  /** A connection idle this long (no bytes either way) is closed. */
  readonly idleTimeoutMs?: number
  /** Host names a request's Host header may name (default: the loopback names on a loopback bind). */
  readonly allowedHosts?: ReadonlyArray<string>
  /** POSTs accepted at once (being read, waiting or computing); beyond: 503 with Retry-After. */
  readonly maxQueue?: number
}

const send = (res: ServerResponse, r: Reply, extra: Record<string, string | number> = {}, close = false): void => {
  if (res.writableEnded || res.destroyed) return
  const text = JSON.stringify(r.body)
  const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": Buffer.byteLength(text), "x-content-type-options": "nosniff", ...extra }
  if (close) headers.connection = "close"
  res.writeHead(r.status, headers)
  res.end(text)
  if (close) res.once("finish", () => res.socket?.end())
}

/** One job at a time, in arrival order; a job that throws never stops the next. */
class SerialQueue {
  private readonly jobs: Array<() => Promise<void>> = []
  private running = false
  /** Mean service time of recent jobs (ms), for Retry-After. */
  meanMs = 100
  get length(): number {
    return this.jobs.length + (this.running ? 1 : 0)
  }
  run<T>(f: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push(async () => {
        const t0 = performance.now()
        try {
          resolve(await f())
        } catch (e) {
          reject(e)
        }
        this.meanMs = 0.8 * this.meanMs + 0.2 * (performance.now() - t0)
      })
      if (!this.running) void this.pump()
    })
  }
  private async pump(): Promise<void> {
    this.running = true
    for (let job = this.jobs.shift(); job; job = this.jobs.shift()) await job()
    this.running = false
  }
}

type Target = { readonly reply: Reply } | { readonly models: true } | { readonly post: "completions" | "chat" }

const target = (method: string, url: string): Target => {
  let path: string
  try {
    if (!url.startsWith("/")) return { reply: err(400, "request target must be a path such as /v1/models") }
    path = new URL(url, "http://localhost").pathname.replace(/\/+$/, "")
  } catch {
    return { reply: err(400, "malformed request URL") }
  }
  if (path === "/v1/models") return method === "GET" ? { models: true } : { reply: err(405, "use GET /v1/models") }
  const post = path === "/v1/completions" ? "completions" : path === "/v1/chat/completions" ? "chat" : undefined
  if (!post) return { reply: err(404, `no route ${method} ${path.slice(0, 100)}; routes: GET /v1/models, POST /v1/completions, POST /v1/chat/completions`, "not_found_error") }
  if (method !== "POST") return { reply: err(405, `use POST ${path}`) }
  return { post }
}

/** Start listening; resolves with the server and its base URL (…/v1). */
export const startServe = (srv: TinyLMServer, port: number, host = "127.0.0.1", o: ServeHttpOptions = {}): Promise<{ server: Server; url: string }> => {
  const maxBody = o.maxBodyBytes ?? srv.options.maxBodyBytes ?? DEFAULT_MAX_BODY
  const bodyMs = o.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS
  const maxQueue = o.maxQueue ?? DEFAULT_MAX_QUEUE
  const bind = host.replace(/^\[|\]$/g, "").toLowerCase()
  const allowed = allowedHostSet(bind, o.allowedHosts)
  const queue = new SerialQueue()
  let accepted = 0
  let boundPort = port

  const post = async (op: "completions" | "chat", req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const head = checkBodyHeaders(req, maxBody)
    if (head) return send(res, err(head.status, head.message), {}, true)
    if (accepted >= maxQueue) {
      const wait = Math.max(1, Math.ceil((queue.length * queue.meanMs) / 1000))
      return send(res, err(503, `the server is busy (${accepted} requests accepted, at most ${maxQueue}); retry after ${wait} s`, "server_error"), { "retry-after": wait }, true)
    }
    accepted++
    let gone = false
    res.once("close", () => (gone = !res.writableFinished))
    try {
      const raw = await readBody(req, maxBody, bodyMs)
      const cut = bodyRefusal(raw, maxBody, bodyMs)
      if (cut) return send(res, err(cut.status, cut.message), {}, true)
      let json: unknown
      try {
        json = JSON.parse(raw)
      } catch {
        return send(res, err(400, "request body is not JSON"))
      }
      // Computed only if its client is still there when its turn comes.
      const reply = await queue.run(async () => (gone || req.socket?.destroyed ? undefined : op === "completions" ? srv.completions(json) : srv.chat(json)))
      if (reply) send(res, reply)
    } finally {
      accepted--
    }
  }

  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const refused = checkClient(req, allowed, () => boundPort)
      if (refused) return send(res, err(refused.status, refused.message), {}, req.method !== "GET")
      const t = target(req.method ?? "GET", req.url ?? "/")
      if ("reply" in t) return send(res, t.reply, {}, req.method === "POST")
      if ("models" in t) return send(res, srv.models())
      post(t.post, req, res).catch((e) => send(res, err(500, `internal error: ${String((e as Error)?.message ?? e).slice(0, 200)}`, "server_error"), {}, true))
    })
    applyTimeouts(server, o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, bodyMs)
    server.once("error", reject)
    server.listen(port, host, () => {
      const a = server.address()
      boundPort = typeof a === "object" && a ? a.port : port
      resolve({ server, url: `http://${bind.includes(":") ? `[${bind}]` : bind}:${boundPort}/v1` })
    })
  })
}
