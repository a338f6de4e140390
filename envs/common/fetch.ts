/**
 * HTTP for the remote adapters (WebShop pages, SearchQA retrievers): the server is the
 * operator's, but what it answers is still untrusted. A response must have an expected content
 * type and at most `maxBytes` of body (read as a stream and cut off, never buffered whole);
 * redirects are followed by hand and only within the first URL's origin, so a server (or
 * whoever answers in its place) cannot point the adapter at another host.
 */

export interface FetchLimits {
  /** Largest response body accepted. */
  readonly maxBytes: number
  /** Content types accepted (matched against the media type, without parameters). */
  readonly contentTypes: ReadonlyArray<string>
  /** Redirects followed at most (same origin only). */
  readonly maxRedirects?: number
}

/** The answer was refused; `transient` says whether trying again may help. */
export class FetchRefused extends Error {
  override readonly name = "FetchRefused"
  constructor(
    message: string,
    readonly transient: boolean,
    readonly status?: number
  ) {
    super(message)
  }
}

export interface Fetched {
  readonly status: number
  /** The body when the status is 2xx; "" otherwise (an error page is not read). */
  readonly text: string
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])

const readCapped = async (res: Response, url: string, maxBytes: number): Promise<string> => {
  const declared = Number(res.headers.get("content-length"))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {})
    throw new FetchRefused(`${url} answered ${declared} bytes, over the limit of ${maxBytes}`, false)
  }
  if (!res.body) return ""
  const reader = res.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      throw new FetchRefused(`${url} answered more than the limit of ${maxBytes} bytes`, false)
    }
    parts.push(value)
  }
  const all = new Uint8Array(size)
  let off = 0
  for (const p of parts) {
    all.set(p, off)
    off += p.byteLength
  }
  return new TextDecoder().decode(all)
}

/**
 * Fetch `url` with the limits. Network errors and aborts propagate as thrown by fetch (the
 * caller retries them); a refused answer is a FetchRefused; a non-2xx status is returned with
 * an empty text.
 */
export const fetchCapped = async (url: string, init: RequestInit, limits: FetchLimits): Promise<Fetched> => {
  const origin = new URL(url).origin
  let current = url
  let req: RequestInit = { ...init, redirect: "manual" }
  for (let hop = 0; ; hop++) {
    const res = await fetch(current, req)
    if (REDIRECTS.has(res.status)) {
      await res.body?.cancel().catch(() => {})
      const loc = res.headers.get("location")
      let next: URL
      try {
        next = new URL(loc ?? "", current)
      } catch {
        throw new FetchRefused(`${current} redirected to an invalid location`, false, res.status)
      }
      if (!loc || next.origin !== origin)
        throw new FetchRefused(`${current} redirected to another origin (${loc ? next.origin : "no location"}); only same-origin redirects are followed`, false, res.status)
      if (hop >= (limits.maxRedirects ?? 5)) throw new FetchRefused(`${url}: more than ${limits.maxRedirects ?? 5} redirects`, false, res.status)
      // 303 (and 301/302 after a POST, as browsers do) continue as GET without a body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && (req.method ?? "GET") !== "GET")) req = { ...req, method: "GET", body: undefined }
      current = next.href
      continue
    }
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => {})
      return { status: res.status, text: "" }
    }
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
    if (!limits.contentTypes.includes(type)) {
      await res.body?.cancel().catch(() => {})
      throw new FetchRefused(`${current} answered content type "${type.slice(0, 60) || "(none)"}", expected ${limits.contentTypes.join(" or ")}`, false, res.status)
    }
    return { status: res.status, text: await readCapped(res, current, limits.maxBytes) }
  }
}
