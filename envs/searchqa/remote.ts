/**
 * Adapter to an external retrieval server over HTTP (the SearchQA `retriever` option).
 *
 * Two wire formats:
 * - "search-r1" (PeterGriffinJin/Search-R1, search_r1/search/retrieval_server.py):
 *     POST <url> {"queries": [q], "topk": k, "return_scores": true}
 *     → {"result": [[{"document": {"contents": "..."}, "score": s}, ...]]}
 *   (without scores the inner items are the documents themselves; both decode).
 * - "ragen" (RAGEN's search env): POST <url> {"query": q, "top_k": k}
 *     → a list of passages, or {"results": [...]}.
 * A passage decodes from a string, {contents}, {text} or {document: {contents}}. Every
 * response goes through a Schema; one that does not decode is a RetrieverError (not retried).
 * Each attempt has its own AbortController timeout; network errors, timeouts and 5xx answers
 * are retried `retries` times with exponential backoff (50 ms, 100 ms, ...). A reply must be
 * application/json of at most MAX_RETRIEVER_BYTES (cut off while read, not buffered whole), and
 * redirects are followed only within the URL's origin (common/fetch.ts); an error message never
 * carries the reply's body.
 */
import { Effect, Schedule, Schema } from "effect"
import { decodeSync } from "../../core/host.ts"
import { fetchCapped, FetchRefused } from "../common/fetch.ts"

export const RetrieverFormat = Schema.Literals(["search-r1", "ragen"])
export type RetrieverFormat = typeof RetrieverFormat.Type

export interface RetrieverSettings {
  readonly url: string
  readonly format: RetrieverFormat
  readonly timeoutMs: number
  readonly retries: number
}

/** The retrieval server failed: down, timed out, an error status, or a malformed response. */
export class RetrieverError extends Schema.TaggedError<RetrieverError>()("RetrieverError", {
  url: Schema.String,
  /** Worth retrying (network error, timeout, 5xx). */
  transient: Schema.Boolean,
  message: Schema.String
}) {}

const Passage = Schema.Union([
  Schema.String,
  Schema.Struct({ document: Schema.Struct({ contents: Schema.String }) }),
  Schema.Struct({ contents: Schema.String }),
  Schema.Struct({ text: Schema.String })
])
type Passage = typeof Passage.Type

const SearchR1Response = Schema.Struct({ result: Schema.Array(Schema.Array(Passage)) })
const RagenResponse = Schema.Union([Schema.Array(Passage), Schema.Struct({ results: Schema.Array(Passage) })])

const passageText = (p: Passage): string => (typeof p === "string" ? p : "document" in p ? p.document.contents : "contents" in p ? p.contents : p.text)

/** How to get a server or do without one (appended to connection errors). */
export const RETRIEVER_HINT =
  "start a retrieval server (the shipped one: `bun envs/searchqa/serve.ts --port 8000`, then url http://127.0.0.1:8000/retrieve; " +
  "or Search-R1's search_r1/search/retrieval_server.py) or drop the `retriever` option to use the built-in BM25"

const describe = (e: unknown): string => {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } }
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e)
}

/** A top-k reply is a few kilobytes; a larger answer is refused while it is read. */
export const MAX_RETRIEVER_BYTES = 1 << 20

const post = (s: RetrieverSettings, body: unknown): Effect.Effect<unknown, RetrieverError> =>
  Effect.tryPromise({
    try: async () => {
      const ac = new AbortController()
      const timer = setTimeout(() => ac.abort(), s.timeoutMs)
      try {
        const res = await fetchCapped(
          s.url,
          { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: ac.signal },
          { maxBytes: MAX_RETRIEVER_BYTES, contentTypes: ["application/json"] }
        )
        if (res.status < 200 || res.status > 299) throw new RetrieverError({ url: s.url, transient: res.status >= 500, message: `retrieval server ${s.url} answered HTTP ${res.status}` })
        try {
          return JSON.parse(res.text) as unknown
        } catch {
          throw new RetrieverError({ url: s.url, transient: false, message: `retrieval server ${s.url} sent a response that is not JSON` })
        }
      } catch (e) {
        if (e instanceof RetrieverError) throw e
        if (e instanceof FetchRefused) throw new RetrieverError({ url: s.url, transient: false, message: `retrieval server ${s.url}: ${e.message}` })
        const why = ac.signal.aborted ? `timed out after ${s.timeoutMs} ms` : `is not reachable (${describe(e)})`
        throw new RetrieverError({ url: s.url, transient: true, message: `retrieval server ${s.url} ${why}` })
      } finally {
        clearTimeout(timer)
      }
    },
    catch: (e) => (e instanceof RetrieverError ? e : new RetrieverError({ url: s.url, transient: true, message: `retrieval server ${s.url}: ${describe(e)}` }))
  })

/** The top-k passage texts for a query, best first. */
export const retrieve = (s: RetrieverSettings, query: string, k: number): Effect.Effect<string[], RetrieverError> => {
  const body = s.format === "search-r1" ? { queries: [query], topk: k, return_scores: true } : { query, top_k: k }
  return post(s, body).pipe(
    Effect.retry({ times: s.retries, schedule: Schedule.exponential("50 millis"), while: (e: RetrieverError) => e.transient }),
    Effect.mapError((e) => (e.transient ? new RetrieverError({ url: s.url, transient: true, message: `${e.message} after ${s.retries + 1} attempt(s); ${RETRIEVER_HINT}` }) : e)),
    Effect.flatMap((json) => {
      if (s.format === "search-r1") {
        const r = decodeSync(SearchR1Response, json, { strict: false })
        if (!r.ok)
          return Effect.fail(new RetrieverError({ url: s.url, transient: false, message: `retrieval server ${s.url} sent a response that is not Search-R1's {"result": [[...]]}: ${r.message}` }))
        return Effect.succeed((r.value.result[0] ?? []).slice(0, k).map(passageText))
      }
      const r = decodeSync(RagenResponse, json, { strict: false })
      if (!r.ok)
        return Effect.fail(
          new RetrieverError({ url: s.url, transient: false, message: `retrieval server ${s.url} sent a response that is neither a passage list nor {"results": [...]}: ${r.message}` })
        )
      const list = Array.isArray(r.value) ? r.value : (r.value as { results: ReadonlyArray<Passage> }).results
      return Effect.succeed(list.slice(0, k).map(passageText))
    })
  )
}
