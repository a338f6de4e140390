/**
 * The env server over HTTP (node:http, so it runs under Bun and Deno):
 *   POST /create, POST /step, POST /reset, GET /envs, DELETE /session/:id.
 * Bodies are JSON, at most `maxBodyBytes` (413 beyond); anything else is a 400/404/405 with
 * a JSON {error}.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http"
import { handle, handleAsync, type Op, type Reply, type Server } from "./protocol.ts"

export const DEFAULT_MAX_BODY = 1 << 20

const send = (res: ServerResponse, r: Reply): void => {
  const text = JSON.stringify(r.body)
  res.writeHead(r.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const readBody = (req: IncomingMessage, limit: number): Promise<string | "too-large"> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    req.on("data", (c: Buffer) => {
      size += c.length
      if (size > limit) over = true
      else chunks.push(c)
    })
    req.on("end", () => resolve(over ? "too-large" : Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const POST_ROUTES: Record<string, Op> = { "/create": "create", "/step": "step", "/reset": "reset" }

export const route = async (srv: Server, req: IncomingMessage, maxBody: number): Promise<Reply> => {
  const path = new URL(req.url ?? "/", "http://localhost").pathname
  const method = req.method ?? "GET"
  if (path === "/envs") return method === "GET" ? handle(srv, "envs", {}) : { status: 405, body: { error: "use GET /envs" } }
  const del = /^\/session\/([^/]+)$/.exec(path)
  if (del) return method === "DELETE" ? handle(srv, "close", { id: decodeURIComponent(del[1]!) }) : { status: 405, body: { error: `use DELETE ${path}` } }
  const op = POST_ROUTES[path]
  if (!op) return { status: 404, body: { error: `no route ${method} ${path}; routes: POST /create, POST /step, POST /reset, GET /envs, DELETE /session/:id` } }
  if (method !== "POST") return { status: 405, body: { error: `use POST ${path}` } }
  const raw = await readBody(req, maxBody)
  if (raw === "too-large") return { status: 413, body: { error: `request body over ${maxBody} bytes` } }
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return { status: 400, body: { error: "request body is not JSON" } }
  }
  return handleAsync(srv, op, json)
}

export const startHttp = (srv: Server, port: number, host: string, maxBody = DEFAULT_MAX_BODY): Promise<{ server: HttpServer; url: string }> =>
  new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      route(srv, req, maxBody).then(
        (r) => send(res, r),
        (e) => send(res, { status: 500, body: { error: String((e as Error)?.message ?? e) } })
      )
    })
    server.once("error", reject)
    server.listen(port, host, () => {
      const a = server.address()
      const p = typeof a === "object" && a ? a.port : port
      resolve({ server, url: `http://${host.includes(":") ? `[${host}]` : host}:${p}` })
    })
  })
