/**
 * The bounded HTTP client of the remote policy: at most `concurrency` requests in flight, a
 * timeout per attempt, retries with exponential backoff on 429, 5xx and network failures
 * (Retry-After honoured, capped), a cap on response bytes (the remote is untrusted input),
 * and errors that name the server and the status but never the API key.
 * The key travels only in the Authorization header. A server's words reach an error message
 * only through `safeText`: JSON escapes undone first (a key sent as `sk\u002d…` is still the
 * key), every copy of the key masked, and only then cut, so a key straddling the cut cannot
 * leave its prefix behind.
 */
import { terminalSafe, UsageError } from "../../core/host.ts"

export interface HttpLimits {
  readonly concurrency: number
  readonly timeoutMs: number
  /** Retries after the first attempt (0: one attempt only). */
  readonly retries: number
  /** First backoff; doubles each retry. */
  readonly backoffMs: number
  readonly maxBackoffMs: number
  readonly maxResponseBytes: number
}

/** A counting semaphore (FIFO). */
export class Limiter {
  private active = 0
  private readonly waiting: Array<() => void> = []
  constructor(readonly max: number) {}
  async run<T>(f: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r))
    this.active++
    try {
      return await f()
    } finally {
      this.active--
      this.waiting.shift()?.()
    }
  }
}

/** The server as errors show it: scheme, host, port and path, no credentials or query. */
export const serverLabel = (baseUrl: string): string => {
  try {
    const u = new URL(baseUrl)
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`
  } catch {
    return "(invalid URL)"
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Read a body up to `cap` bytes; "too-large" beyond (the rest is not read). */
const readCapped = async (res: Response, cap: number): Promise<string | "too-large"> => {
  const declared = Number(res.headers.get("content-length") ?? NaN)
  if (Number.isFinite(declared) && declared > cap) {
    await res.body?.cancel()
    return "too-large"
  }
  if (!res.body) return ""
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > cap) {
      await reader.cancel()
      return "too-large"
    }
    chunks.push(value)
  }
  const all = new Uint8Array(size)
  let off = 0
  for (const c of chunks) all.set(c, off), (off += c.byteLength)
  return new TextDecoder().decode(all)
}

/** Text with JSON string escapes undone (\uXXXX, \/), so that an escaped key is seen as the key. */
const unescapeJson = (s: string): string => s.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))).replace(/\\\//g, "/")

/** A piece of the key this long (or the whole of a shorter key) is masked wherever it appears. */
const KEY_PIECE = 8

/**
 * The forms a key may come back in: as is, URL-encoded, hex, and base64 / base64url at each of the
 * three byte alignments (the key inside "user:key" or "Bearer key" encoded whole), each cut to the
 * characters that depend on the key's bytes alone.
 */
const keyForms = (key: string): string[] => {
  const bytes = new TextEncoder().encode(key)
  const out = [key, encodeURIComponent(key), Buffer.from(bytes).toString("hex")]
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length)
    padded.set(bytes, shift)
    const b64 = Buffer.from(padded)
      .toString("base64")
      .slice(Math.ceil((shift * 8) / 6), Math.floor(((shift + bytes.length) * 8) / 6))
    out.push(b64, b64.replace(/\+/g, "-").replace(/\//g, "_"))
  }
  return out
}

/** Characters a key or its encodings are made of: a masked piece takes its whole token with it. */
const KEY_CHAR = /[A-Za-z0-9+/=_\-.~%]/

/**
 * `t` with every near-copy of the key masked: any piece of KEY_PIECE characters of the key, or of
 * one of its encodings (keyForms), found in any case, and the rest of the token it sits in — so a
 * key one character short, upper-cased, or base64-encoded is masked like the key itself.
 */
export const maskKey = (apiKey: string, t: string): string => {
  const forms = keyForms(apiKey).map((f) => f.toLowerCase())
  const m = Math.min(KEY_PIECE, apiKey.length)
  const pieces = new Set<string>()
  for (const f of forms) for (let i = 0; i + m <= f.length; i++) pieces.add(f.slice(i, i + m))
  const low = t.toLowerCase()
  const masked = new Uint8Array(t.length)
  for (let i = 0; i + m <= low.length; i++) if (pieces.has(low.slice(i, i + m))) masked.fill(1, i, i + m)
  let out = ""
  for (let i = 0; i < t.length; ) {
    if (!masked[i]) {
      out += t[i++]
      continue
    }
    // The masked run, widened over the key characters around it (what is left of the token).
    let j = i
    while (j < t.length && (masked[j] || KEY_CHAR.test(t[j]!))) j++
    let k = out.length
    while (k > 0 && KEY_CHAR.test(out[k - 1]!)) k--
    out = `${out.slice(0, k)}***`
    i = j
  }
  return out
}

/** A server's text as an error may show it: decoded, every near-copy of the key masked, then cut to `max` characters, terminal-safe. */
export const safeText = (apiKey: string | undefined, s: string, max = Infinity): string => {
  let t = unescapeJson(s)
  if (apiKey && apiKey.length > 0) t = maskKey(apiKey, t)
  return terminalSafe(t.length > max ? t.slice(0, max) : t)
}

const retryable = (status: number): boolean => status === 429 || status >= 500

export interface JsonClient {
  /** POST a JSON body to `path` (relative to baseUrl); the parsed JSON reply or a UsageError thrown. */
  post(path: string, body: unknown): Promise<unknown>
  get(path: string): Promise<unknown>
  readonly server: string
  /** A server's text for an error message (safeText with this client's key). */
  safe(s: string, max?: number): string
}

export const makeClient = (baseUrl: string, apiKey: string | undefined, limits: HttpLimits, field = "policyOptions.baseUrl"): JsonClient => {
  const server = serverLabel(baseUrl)
  const limiter = new Limiter(limits.concurrency)
  const safe = (s: string, max?: number): string => safeText(apiKey, s, max)
  const fail = (message: string): never => {
    throw new UsageError({ field, message: safe(message) })
  }
  const url = (path: string) => `${baseUrl.replace(/\/+$/, "")}${path}`
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" }
  if (apiKey) headers.authorization = `Bearer ${apiKey}`

  const once = async (method: "GET" | "POST", path: string, body: unknown): Promise<{ status: number; text: string | "too-large"; retryAfter: number | undefined }> => {
    const res = await fetch(url(path), {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(limits.timeoutMs),
      redirect: "error"
    })
    const ra = Number(res.headers.get("retry-after") ?? NaN)
    return { status: res.status, text: await readCapped(res, limits.maxResponseBytes), retryAfter: Number.isFinite(ra) ? ra * 1000 : undefined }
  }

  const request = (method: "GET" | "POST", path: string, body: unknown): Promise<unknown> =>
    limiter.run(async () => {
      let last = ""
      let retryAfter: number | undefined
      for (let attempt = 0; attempt <= limits.retries; attempt++) {
        if (attempt > 0) await sleep(Math.min(limits.maxBackoffMs, retryAfter ?? limits.backoffMs * 2 ** (attempt - 1)))
        let r
        try {
          r = await once(method, path, body)
        } catch (e) {
          const err = e as Error
          last = err.name === "TimeoutError" || err.name === "AbortError" ? `no reply within ${limits.timeoutMs} ms` : `connection failed (${err.message})`
          retryAfter = undefined
          continue
        }
        if (r.text === "too-large")
          return fail(`${server}${path} sent a reply over ${limits.maxResponseBytes} bytes (status ${r.status}); raise policyOptions.maxResponseBytes if the server is trusted`)
        if (r.status >= 200 && r.status < 300) {
          try {
            return JSON.parse(r.text)
          } catch {
            return fail(`${server}${path} replied status ${r.status} with a body that is not JSON: ${safe(r.text, 200)}`)
          }
        }
        last = `status ${r.status}: ${safe(r.text, 300)}`
        retryAfter = r.retryAfter
        if (!retryable(r.status)) return fail(`${server}${path} replied ${last}`)
      }
      return fail(`${server}${path} failed after ${limits.retries + 1} attempts; last: ${last}`)
    })
  return { server, safe, post: (path, body) => request("POST", path, body), get: (path) => request("GET", path, undefined) }
}
