/**
 * The env server over HTTP (node:http, so it runs under Bun and Deno):
 *   POST /create, POST /step, POST /reset, GET /envs, DELETE /session/:id.
 * Bodies are JSON, at most `maxBodyBytes` (413 beyond); anything else is a 400/403/404/405/
 * 408/415 with a JSON {error}.
 *
 * Requests from web pages are refused (docs/env-server.md "Trust boundaries"): the Host header
 * must name an allowed host (loopback names when the server binds a loopback address, so a DNS
 * rebinding name is refused), a request carrying a foreign Origin (or Sec-Fetch-Site
 * cross-site) is refused, POST bodies must be `Content-Type: application/json` (a cross-site
 * form or `text/plain` fetch cannot send that without a CORS preflight), and every preflight
 * (OPTIONS) is answered with a refusal and no Access-Control-Allow-* header.
 * Slow clients are bounded: a socket idle for `idleTimeoutMs` is closed (this also ends
 * half-sent headers), and a body must arrive within `bodyTimeoutMs`.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http"
import { isIP } from "node:net"
import { handle, handleAsync, type Op, type Reply, type Server } from "./protocol.ts"

export const DEFAULT_MAX_BODY = 1 << 20

export interface HttpOptions {
  /** Largest request body (413 beyond). */
  readonly maxBodyBytes?: number
  /**
   * Host names (no port) a request's Host header may name. Default: the loopback names
   * (127.0.0.1, localhost, ::1) when bound to a loopback address, else the bound address itself.
   */
  readonly allowedHosts?: ReadonlyArray<string>
  /** A request body must arrive within this (408 beyond). */
  readonly bodyTimeoutMs?: number
  /** A connection idle this long (no bytes either way) is closed; bounds half-sent headers too. */
  readonly idleTimeoutMs?: number
}

export const DEFAULT_BODY_TIMEOUT_MS = 10_000
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1"]

export const isLoopback = (host: string): boolean => host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** The default Host allow-list for a bind address (see HttpOptions.allowedHosts). */
export const defaultAllowedHosts = (bind: string): string[] => (isLoopback(bind) ? [...new Set([...LOOPBACK_NAMES, bind])] : [bind])

/** "name", "name:port", "[v6]" or "[v6]:port" → the lower-cased host name without brackets. */
export const hostNameOf = (hostHeader: string): string | undefined => {
  const h = hostHeader.trim().toLowerCase()
  if (h.startsWith("[")) {
    const end = h.indexOf("]")
    if (end < 0) return undefined
    const rest = h.slice(end + 1)
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return undefined
    return h.slice(1, end)
  }
  const m = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(h)
  return m ? m[1] : undefined
}

const send = (res: ServerResponse, r: Reply, close = false): void => {
  const text = JSON.stringify(r.body)
  const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": Buffer.byteLength(text), "x-content-type-options": "nosniff" }
  if (close) headers.connection = "close"
  res.writeHead(r.status, headers)
  res.end(text)
}

type Body = string | "too-large" | "timeout"

const readBody = (req: IncomingMessage, limit: number, timeoutMs: number): Promise<Body> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const done = (b: Body) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(b)
    }
    const timer = setTimeout(() => done("timeout"), timeoutMs)
    req.on("data", (c: Buffer) => {
      if (settled) return
      size += c.length
      if (size > limit) {
        chunks.length = 0
        done("too-large")
      } else chunks.push(c)
    })
    req.on("end", () => done(Buffer.concat(chunks).toString("utf8")))
    req.on("error", () => done("timeout"))
    req.on("close", () => done("timeout"))
  })

const POST_ROUTES: Record<string, Op> = { "/create": "create", "/step": "step", "/reset": "reset" }
const ROUTES = "routes: POST /create, POST /step, POST /reset, GET /envs, DELETE /session/:id"

const err = (status: number, error: string): Reply => ({ status, body: { error } })

/** The refusal for a request that did not come from an allowed client, or undefined. */
export const checkClient = (req: IncomingMessage, allowed: ReadonlySet<string>, port: () => number): Reply | undefined => {
  const hostHeader = req.headers.host
  if (typeof hostHeader !== "string" || hostHeader === "") return err(400, "missing Host header")
  const host = hostNameOf(hostHeader)
  if (host === undefined || !allowed.has(host)) {
    return err(403, `Host "${host ?? "?"}" is not served here (allowed: ${[...allowed].join(", ")}); an operator who binds another address lists its names with --allowed-host`)
  }
  const origin = req.headers.origin
  if (origin !== undefined) {
    let ok = false
    try {
      const u = new URL(String(origin))
      const p = u.port === "" ? (u.protocol === "https:" ? 443 : 80) : Number(u.port)
      ok = u.protocol === "http:" && allowed.has(u.hostname.replace(/^\[|\]$/g, "")) && p === port()
    } catch {
      ok = false
    }
    if (!ok) return err(403, "requests from web pages (a foreign Origin) are refused")
  }
  if (req.headers["sec-fetch-site"] === "cross-site") return err(403, "cross-site requests are refused")
  return undefined
}

const isJsonType = (ct: string | undefined): boolean => typeof ct === "string" && /^application\/json\s*(;|$)/i.test(ct.trim())

export const route = async (srv: Server, req: IncomingMessage, o: Required<Pick<HttpOptions, "maxBodyBytes" | "bodyTimeoutMs">>): Promise<{ reply: Reply; close?: boolean }> => {
  const method = req.method ?? "GET"
  if (method === "OPTIONS") return { reply: err(403, "cross-origin requests are refused (no CORS)") }
  let path: string
  try {
    const raw = req.url ?? "/"
    if (!raw.startsWith("/")) return { reply: err(400, "request target must be a path such as /create") }
    path = new URL(raw, "http://localhost").pathname
  } catch {
    return { reply: err(400, "malformed request URL") }
  }
  if (path === "/envs") return { reply: method === "GET" ? handle(srv, "envs", {}) : err(405, "use GET /envs") }
  const del = /^\/session\/([^/]+)$/.exec(path)
  if (del) {
    if (method !== "DELETE") return { reply: err(405, "use DELETE /session/:id") }
    let id: string
    try {
      id = decodeURIComponent(del[1]!)
    } catch {
      return { reply: err(400, "malformed percent-encoding in the session id") }
    }
    return { reply: handle(srv, "close", { id }) }
  }
  const op = POST_ROUTES[path]
  if (!op) return { reply: err(404, `no route ${method} ${path.slice(0, 100)}; ${ROUTES}`) }
  if (method !== "POST") return { reply: err(405, `use POST ${path}`), close: true }
  if (!isJsonType(req.headers["content-type"])) return { reply: err(415, "send the body as Content-Type: application/json"), close: true }
  const declared = Number(req.headers["content-length"])
  if (Number.isFinite(declared) && declared > o.maxBodyBytes) return { reply: err(413, `request body over ${o.maxBodyBytes} bytes`), close: true }
  const raw = await readBody(req, o.maxBodyBytes, o.bodyTimeoutMs)
  if (raw === "too-large") return { reply: err(413, `request body over ${o.maxBodyBytes} bytes`), close: true }
  if (raw === "timeout") return { reply: err(408, `request body not received within ${o.bodyTimeoutMs} ms`), close: true }
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { reply: err(400, "request body is not JSON") }
  }
  return { reply: await handleAsync(srv, op, json) }
}

export const startHttp = (srv: Server, port: number, host: string, options: number | HttpOptions = {}): Promise<{ server: HttpServer; url: string }> => {
  const o: HttpOptions = typeof options === "number" ? { maxBodyBytes: options } : options
  const limits = { maxBodyBytes: o.maxBodyBytes ?? DEFAULT_MAX_BODY, bodyTimeoutMs: o.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS }
  const idle = o.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
  const bind = host.replace(/^\[|\]$/g, "").toLowerCase()
  const allowed = new Set((o.allowedHosts ?? defaultAllowedHosts(bind)).map((h) => h.replace(/^\[|\]$/g, "").toLowerCase()))
  return new Promise((resolve, reject) => {
    let boundPort = port
    const server = createServer((req, res) => {
      const refused = checkClient(req, allowed, () => boundPort)
      if (refused) return send(res, refused, req.method !== "GET")
      route(srv, req, limits).then(
        (r) => {
          send(res, r.reply, r.close)
          if (r.close) res.once("finish", () => req.socket.end())
        },
        (e) => {
          // A bug, not the client's fault; the message says what broke, never a stack.
          console.error(`env server: ${String((e as Error)?.stack ?? e)}`)
          send(res, err(500, `internal error: ${String((e as Error)?.message ?? e).slice(0, 200)}`), true)
        }
      )
    })
    server.keepAliveTimeout = Math.min(idle, 5000)
    server.headersTimeout = idle
    server.requestTimeout = idle + limits.bodyTimeoutMs
    server.setTimeout(idle, (socket) => socket.destroy())
    server.once("error", reject)
    server.listen(port, host, () => {
      const a = server.address()
      boundPort = typeof a === "object" && a ? a.port : port
      resolve({ server, url: `http://${isIP(bind) === 6 ? `[${bind}]` : bind}:${boundPort}` })
    })
  })
}
