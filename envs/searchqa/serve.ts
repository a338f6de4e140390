/**
 * A retrieval server over the shipped SearchQA corpus (BM25), speaking both wire formats of
 * remote.ts, so the `retriever` option can be tried without Search-R1's Python stack:
 *
 *   node_modules/.bin/bun envs/searchqa/serve.ts [--port 8000] [--host 127.0.0.1]
 *   → POST http://127.0.0.1:8000/retrieve
 *
 * {"queries": [...], "topk": k, "return_scores": b} gets Search-R1's
 * {"result": [[{"document": {"id", "contents"}, "score"}, ...], ...]} (documents alone when
 * return_scores is false); {"query": q, "top_k": k} gets RAGEN's {"results": [{"contents"}, ...]}.
 * Bad requests get a 400 with {"error": "..."}.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Schema } from "effect"
import { decodeSync } from "../../core/host.ts"
import type { BM25 } from "./bm25.ts"
import { CORPUS } from "./corpus.ts"
import { sharedIndex } from "./retriever.ts"

const TopK = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))
const Request = Schema.Struct({
  queries: Schema.optional(Schema.Array(Schema.String.check(Schema.isMaxLength(2000)))),
  topk: Schema.optional(TopK),
  return_scores: Schema.optional(Schema.Boolean),
  query: Schema.optional(Schema.String.check(Schema.isMaxLength(2000))),
  top_k: Schema.optional(TopK)
})

const MAX_BODY = 1 << 20

export interface RunningServer {
  readonly url: string
  readonly server: Server
  close(): Promise<void>
}

/** Answer one decoded request body (exported for tests). */
export const answer = (index: BM25, body: unknown): { status: number; json: unknown } => {
  const r = decodeSync(Request, body)
  if (!r.ok) return { status: 400, json: { error: `bad request: ${r.message}` } }
  const q = r.value
  if (q.queries !== undefined) {
    const k = q.topk ?? 3
    const result = q.queries.map((text) =>
      Array.from(index.searchScored(text, k), ({ doc, score }) => {
        const document = { id: String(doc), contents: CORPUS.passages[doc]! }
        return q.return_scores === false ? document : { document, score }
      })
    )
    return { status: 200, json: { result } }
  }
  if (q.query !== undefined) {
    const k = q.top_k ?? 3
    return { status: 200, json: { results: index.searchScored(q.query, k).map(({ doc, score }) => ({ contents: CORPUS.passages[doc]!, score })) } }
  }
  return { status: 400, json: { error: 'bad request: send {"queries": [...], "topk": k} (Search-R1) or {"query": "...", "top_k": k} (RAGEN)' } }
}

export const startRetrievalServer = (port = 0, host = "127.0.0.1", index: BM25 = sharedIndex()): Promise<RunningServer> =>
  new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify(json))
      }
      if (req.method !== "POST" || (req.url ?? "").split("?")[0] !== "/retrieve") return send(404, { error: "POST /retrieve only" })
      const chunks: Buffer[] = []
      let size = 0
      req.on("data", (c: Buffer) => {
        size += c.length
        if (size > MAX_BODY) {
          send(413, { error: "request body over 1 MB" })
          req.destroy()
        } else chunks.push(c)
      })
      req.on("end", () => {
        if (res.headersSent) return
        let body: unknown
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        } catch {
          return send(400, { error: "request body is not JSON" })
        }
        const a = answer(index, body)
        send(a.status, a.json)
      })
    })
    server.on("error", reject)
    server.listen(port, host, () => {
      const addr = server.address() as AddressInfo
      resolve({
        url: `http://${host}:${addr.port}/retrieve`,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            // Idle keep-alive connections (fetch keeps them) would hold close() open.
            server.closeAllConnections?.()
          })
      })
    })
  })

if ((import.meta as { main?: boolean }).main) {
  const argv = process.argv.slice(2)
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`)
    return i >= 0 ? argv[i + 1] : undefined
  }
  const port = Number(flag("port") ?? 8000)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`error: --port must be an integer in 0..65535, got "${flag("port")}"`)
    process.exit(2)
  }
  const s = await startRetrievalServer(port, flag("host") ?? "127.0.0.1")
  console.log(`SearchQA retrieval server (BM25 over ${CORPUS.passages.length} passages) at POST ${s.url}`)
}
