/**
 * Web-page and slow-client protection shared by ragen-bench's HTTP servers (the env server,
 * `serve`); each server wraps the refusals in its own error shape. Imports node:http only.
 *
 * - Host: must name an allowed host (loopback names when bound to a loopback address, so a DNS
 *   rebinding name is refused). Origin: a foreign one (or Sec-Fetch-Site cross-site) is refused.
 * - POST bodies must be `Content-Type: application/json`: a cross-site form or a `text/plain`
 *   fetch cannot send that without a CORS preflight, and every preflight is refused.
 * - A body must arrive within a time limit and under a size cap; an idle socket is closed.
 */
import type { IncomingMessage, Server } from "node:http"

export interface Refusal {
  readonly status: number
  readonly message: string
}

export const DEFAULT_BODY_TIMEOUT_MS = 10_000
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "::1"]

export const isLoopback = (host: string): boolean => host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)

/** The default Host allow-list for a bind address: loopback names on a loopback bind, else the address. */
export const defaultAllowedHosts = (bind: string): string[] => (isLoopback(bind) ? [...new Set([...LOOPBACK_NAMES, bind])] : [bind])

/** The allow-list as a set of lower-cased names without brackets. */
export const allowedHostSet = (bind: string, hosts: ReadonlyArray<string> | undefined): Set<string> => {
  const b = bind.replace(/^\[|\]$/g, "").toLowerCase()
  return new Set((hosts ?? defaultAllowedHosts(b)).map((h) => h.replace(/^\[|\]$/g, "").toLowerCase()))
}

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

/** The refusal for a request that did not come from an allowed client (Host, Origin, Sec-Fetch-Site, preflight), or undefined. */
export const checkClient = (req: IncomingMessage, allowed: ReadonlySet<string>, port: () => number): Refusal | undefined => {
  const hostHeader = req.headers.host
  if (typeof hostHeader !== "string" || hostHeader === "") return { status: 400, message: "missing Host header" }
  const host = hostNameOf(hostHeader)
  if (host === undefined || !allowed.has(host)) {
    return {
      status: 403,
      message: `Host "${(host ?? "?").slice(0, 100)}" is not served here (allowed: ${[...allowed].join(", ")}); an operator who binds another address lists its names with --allowed-host`
    }
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
    if (!ok) return { status: 403, message: "requests from web pages (a foreign Origin) are refused" }
  }
  if (req.headers["sec-fetch-site"] === "cross-site") return { status: 403, message: "cross-site requests are refused" }
  if (req.method === "OPTIONS") return { status: 403, message: "cross-origin requests are refused (no CORS)" }
  return undefined
}

export const isJsonType = (ct: string | undefined): boolean => typeof ct === "string" && /^application\/json\s*(;|$)/i.test(ct.trim())

/** A POST body's refusal from its headers alone (415 not JSON, 413 declared too large), or undefined. */
export const checkBodyHeaders = (req: IncomingMessage, maxBodyBytes: number): Refusal | undefined => {
  if (!isJsonType(req.headers["content-type"])) return { status: 415, message: "send the body as Content-Type: application/json" }
  const declared = Number(req.headers["content-length"])
  if (Number.isFinite(declared) && declared > maxBodyBytes) return { status: 413, message: `request body over ${maxBodyBytes} bytes` }
  return undefined
}

export type Body = string | "too-large" | "timeout"

/**
 * The body as text; "too-large" as soon as it passes `limit`; "timeout" when it has not ended
 * within `timeoutMs` or the client went away. Always settles, whatever the client does.
 */
export const readBody = (req: IncomingMessage, limit: number, timeoutMs: number): Promise<Body> =>
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

/** The refusal for a body that did not arrive whole, or undefined for text. */
export const bodyRefusal = (b: Body, maxBodyBytes: number, timeoutMs: number): Refusal | undefined =>
  b === "too-large" ? { status: 413, message: `request body over ${maxBodyBytes} bytes` } : b === "timeout" ? { status: 408, message: `request body not received within ${timeoutMs} ms` } : undefined

/** Socket limits: an idle connection (no bytes either way) is closed, which also ends half-sent headers. */
export const applyTimeouts = (server: Server, idleMs: number, bodyTimeoutMs: number): void => {
  server.keepAliveTimeout = Math.min(idleMs, 5000)
  server.headersTimeout = idleMs
  server.requestTimeout = idleMs + bodyTimeoutMs
  server.setTimeout(idleMs, (socket) => socket.destroy())
}
