/** Shared by the hardening tests: a real env server on a loopback port, raw HTTP requests. */
import { afterAll } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import type { Server as HttpServer } from "node:http"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { EnvCatalog } from "../../envs/server/catalog.ts"
import { startHttp, type HttpOptions } from "../../envs/server/http.ts"
import type { Resources } from "../../envs/server/operator.ts"
import type { Server } from "../../envs/server/protocol.ts"
import { SessionStore } from "../../envs/server/sessions.ts"
import type { EnvSpec } from "../../core/contracts/index.ts"
import { countdownSpec } from "../../envs/countdown/env.ts"
import { frozenLakeSpec } from "../../envs/frozenlake/env.ts"
import { metaMathQASpec } from "../../envs/metamathqa/env.ts"
import { searchQASpec } from "../../envs/searchqa/env.ts"
import { sokobanSpec } from "../../envs/sokoban/env.ts"
import { webShopSpec } from "../../envs/webshop/env.ts"

export const SPECS: ReadonlyArray<EnvSpec<any>> = [sokobanSpec, frozenLakeSpec, countdownSpec, metaMathQASpec, searchQASpec, webShopSpec]

export const catalogOf = (specs: ReadonlyArray<EnvSpec<any>> = SPECS): EnvCatalog => ({
  resolve: (id) => {
    const s = specs.find((x) => x.id === id || x.id.replace(/-v\d+$/, "") === id)
    return s ? { ok: true, id: s.id, spec: s } : { ok: false, message: `unknown env "${id.slice(0, 60)}"` }
  },
  list: () => specs.map((s) => ({ id: s.id, description: s.description }))
})

export const makeServer = (resources: Resources = new Map(), maxSessions = 16): Server => ({
  catalog: catalogOf(),
  sessions: new SessionStore({ maxSessions, ttlMs: 60_000 }),
  resources
})

export interface Running {
  readonly srv: Server
  readonly server: HttpServer
  readonly url: string
  readonly port: number
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>
  close(): Promise<void>
}

export const start = async (srv: Server, options: HttpOptions = {}): Promise<Running> => {
  const { server, url } = await startHttp(srv, 0, "127.0.0.1", options)
  const port = Number(new URL(url).port)
  return {
    srv,
    server,
    url,
    port,
    post: async (path, body, headers = {}) => {
      const r = await fetch(url + path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json", ...headers } })
      const text = await r.text()
      let json: unknown = text
      try {
        json = JSON.parse(text)
      } catch {
        // left as text
      }
      return { status: r.status, body: json }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections?.()
      })
  }
}

/**
 * Send raw bytes on a new connection; resolve with what came back and when the connection
 * closed (or after `waitMs`, whichever is first).
 */
export const raw = (port: number, text: string | Uint8Array, waitMs = 3000): Promise<{ reply: string; closed: boolean; ms: number }> =>
  new Promise((resolve) => {
    const t0 = performance.now()
    const s = connect(port, "127.0.0.1", () => s.write(text))
    let reply = ""
    let done = false
    const finish = (closed: boolean) => {
      if (done) return
      done = true
      clearTimeout(timer)
      s.destroy()
      resolve({ reply, closed, ms: performance.now() - t0 })
    }
    const timer = setTimeout(() => finish(false), waitMs)
    s.on("data", (d) => (reply += String(d)))
    s.on("close", () => finish(true))
    s.on("error", () => finish(true))
  })

export const statusOf = (reply: string): number => Number(/^HTTP\/1\.[01] (\d{3})/.exec(reply)?.[1] ?? 0)

/**
 * A temporary root removed after the file's tests, and `fresh(name)`: a new folder under it.
 * Call at a test file's top level (it registers the afterAll).
 */
export const tempRoot = (prefix: string): { root: string; fresh: (name: string) => string } => {
  const root = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const fresh = (name: string): string => {
    const d = join(root, name)
    mkdirSync(d, { recursive: true })
    return d
  }
  return { root, fresh }
}
