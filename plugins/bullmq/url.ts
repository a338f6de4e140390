/**
 * Redis URLs: `redis://[[user]:password@]host:port[/db]` and `rediss://…` (TLS). Parsed into
 * ioredis connection options; every message that shows a URL shows `redactUrl(url)`, and
 * `scrub` removes the password from any text (error messages of the driver included) before
 * it is printed or stored.
 *
 * The password can also come from RAGEN_REDIS_PASSWORD (a URL on a command line is visible to
 * other users of the machine in `ps`); a self-signed TLS server's CA from RAGEN_REDIS_CA (a PEM file).
 */
import { readFileSync } from "node:fs"
import { isIP } from "node:net"
import { UsageError } from "../../core/host.ts"

export interface RedisTarget {
  readonly host: string
  readonly port: number
  readonly db: number
  readonly username?: string
  readonly password?: string
  readonly tls: boolean
  /** The URL with the password replaced by "***", for messages. */
  readonly shown: string
}

export const PASSWORD_ENV = "RAGEN_REDIS_PASSWORD"
export const CA_ENV = "RAGEN_REDIS_CA"

const usage = (message: string): UsageError => new UsageError({ field: "--queue", message })

export const parseRedisUrl = (raw: string, env: Record<string, string | undefined> = process.env): RedisTarget | UsageError => {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    // Not echoed: where a password would be in text that does not parse is unknowable.
    return usage("--queue must be a Redis URL such as redis://127.0.0.1:6379 or rediss://host:6380/0; the value given does not parse as a URL")
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") {
    return usage(`--queue must start with redis:// or rediss:// (TLS), got "${u.protocol}//…"`)
  }
  if (u.hostname === "") return usage(`--queue ${redactText(raw)} names no host; e.g. redis://127.0.0.1:6379`)
  const port = u.port === "" ? 6379 : Number(u.port)
  const dbPart = u.pathname.replace(/^\//, "")
  const db = dbPart === "" ? 0 : Number(dbPart)
  if (!Number.isInteger(db) || db < 0) return usage(`--queue: the database after the port must be a number (redis://host:port/0), got "/${dbPart}"`)
  if (u.search !== "" || u.hash !== "") return usage(`--queue takes no query or fragment (${u.search}${u.hash}); the form is redis://[:password@]host:port[/db]`)
  const password = u.password !== "" ? decodeURIComponent(u.password) : env[PASSWORD_ENV] || undefined
  const username = u.username !== "" ? decodeURIComponent(u.username) : undefined
  const host = u.hostname.replace(/^\[(.*)\]$/, "$1")
  const shown = `${u.protocol}//${username || password ? `${username ?? ""}${password ? ":***" : ""}@` : ""}${u.host}${db !== 0 ? `/${db}` : ""}`
  return { host, port, db, tls: u.protocol === "rediss:", shown, ...(username ? { username } : {}), ...(password ? { password } : {}) }
}

/** A URL-looking text with any password hidden (for messages about a URL that did not parse). */
export const redactText = (s: string): string => s.replace(/(\w+:\/\/[^:@/\s]*:)[^@\s]*@/g, "$1***@")

/** The text with the target's password (raw and URL-encoded) replaced by "***". */
export const scrub = (target: RedisTarget | undefined, text: string): string => {
  let out = redactText(text)
  const pw = target?.password
  if (pw) for (const form of new Set([pw, encodeURIComponent(pw)])) out = out.split(form).join("***")
  return out
}

/** ioredis options for BullMQ (workers and blocking readers need maxRetriesPerRequest: null). */
export const connectionOptions = (t: RedisTarget, env: Record<string, string | undefined> = process.env): Record<string, unknown> => {
  const ca = env[CA_ENV]
  return {
    host: t.host,
    port: t.port,
    db: t.db,
    ...(t.username ? { username: t.username } : {}),
    ...(t.password ? { password: t.password } : {}),
    // SNI takes host names only (RFC 6066 §3); an IP address is checked against the certificate's IP SANs.
    ...(t.tls ? { tls: { ...(isIP(t.host) ? {} : { servername: t.host }), ...(ca ? { ca: readFileSync(ca, "utf8") } : {}) } } : {}),
    maxRetriesPerRequest: null,
    // Reconnect forever with a capped delay: a restarting Redis is waited for, not given up on.
    retryStrategy: (times: number) => Math.min(200 * times, 2000)
  }
}
