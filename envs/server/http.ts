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
 * half-sent headers), and a body must arrive within `bodyTimeoutMs`. These checks live in
 * core/http-guard.ts, shared with `ragen-bench serve`.
 */
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from "node:http"
import { isIP } from "node:net"
import { allowedHostSet, applyTimeouts, bodyRefusal, checkBodyHeaders, checkClient as guardClient, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, readBody } from "../../core/host.ts"
import { handle, handleAsync, type Op, type Reply, type Server } from "./protocol.ts"

export { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, defaultAllowedHosts, hostNameOf, isLoopback } from "../../core/host.ts"

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

const send = (res: ServerResponse, r: Reply, close = false): void => {
  const text = JSON.stringify(r.body)
  const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": Buffer.byteLength(text), "x-content-type-options": "nosniff" }
  if (close) headers.connection = "close"
  res.writeHead(r.status, headers)
  res.end(text)
}

const POST_ROUTES: Record<string, Op> = { "/create": "create", "/step": "step", "/reset": "reset" }
const ROUTES = "routes: POST /create, POST /step, POST /reset, GET /envs, DELETE /session/:id"

const err = (status: number, error: string): Reply => ({ status, body: { error } })

/** The refusal for a request that did not come from an allowed client (core/http-guard.ts), or undefined. */
export const checkClient = (req: IncomingMessage, allowed: ReadonlySet<string>, port: () => number): Reply | undefined => {
  const r = guardClient(req, allowed, port)
  return r ? err(r.status, r.message) : undefined
}

export const route = async (srv: Server, req: IncomingMessage, o: Required<Pick<HttpOptions, "maxBodyBytes" | "bodyTimeoutMs">>): Promise<{ reply: Reply; close?: boolean }> => {
  const method = req.method ?? "GET"
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
  const head = checkBodyHeaders(req, o.maxBodyBytes)
  if (head) return { reply: err(head.status, head.message), close: true }
  const raw = await readBody(req, o.maxBodyBytes, o.bodyTimeoutMs)
  const cut = bodyRefusal(raw, o.maxBodyBytes, o.bodyTimeoutMs)
  if (cut) return { reply: err(cut.status, cut.message), close: true }
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
  const allowed = allowedHostSet(bind, o.allowedHosts)
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
    applyTimeouts(server, idle, limits.bodyTimeoutMs)
    server.once("error", reject)
    server.listen(port, host, () => {
      const a = server.address()
      boundPort = typeof a === "object" && a ? a.port : port
      resolve({ server, url: `http://${isIP(bind) === 6 ? `[${bind}]` : bind}:${boundPort}` })
    })
  })
}
