/** Redis URL parsing, password redaction and the worker's refusal rule (no Redis needed). */
import { describe, expect, test } from "bun:test"
import { refusal } from "../../plugins/bullmq/compat.ts"
import { connectionOptions, parseRedisUrl, redactText, scrub } from "../../plugins/bullmq/url.ts"

const ok = (url: string, env: Record<string, string> = {}) => {
  const t = parseRedisUrl(url, env)
  if (!("host" in t)) throw new Error(t.message)
  return t
}

describe("redis URLs", () => {
  test("host, port, db, TLS; the password hidden in the shown form", () => {
    expect(ok("redis://127.0.0.1:6380/2")).toMatchObject({ host: "127.0.0.1", port: 6380, db: 2, tls: false, shown: "redis://127.0.0.1:6380/2" })
    const t = ok("rediss://user:p%40ss%2Fw@redis.lab:6390")
    expect(t).toMatchObject({ host: "redis.lab", port: 6390, db: 0, tls: true, username: "user", password: "p@ss/w", shown: "rediss://user:***@redis.lab:6390" })
    expect(ok("redis://localhost").port).toBe(6379)
    expect(connectionOptions(t)).toMatchObject({ password: "p@ss/w", tls: { servername: "redis.lab" }, maxRetriesPerRequest: null })
  })

  test("the password may come from RAGEN_REDIS_PASSWORD", () => {
    expect(ok("redis://10.0.0.5:6379", { RAGEN_REDIS_PASSWORD: "envpw" })).toMatchObject({ password: "envpw", shown: "redis://:***@10.0.0.5:6379" })
  })

  test("mistakes are one-line errors that name --queue and never echo a password", () => {
    for (const [url, part] of [
      ["http://a:secretpw@h:1", "redis:// or rediss://"],
      ["redis://:secretpw@h:1/x", "database"],
      ["not a url secretpw", "Redis URL"],
      ["redis://:secretpw@h:1/0?x=1", "no query"]
    ] as const) {
      const r = parseRedisUrl(url, {})
      expect("field" in r && r.field).toBe("--queue")
      expect((r as { message: string }).message).toContain(part)
      expect((r as { message: string }).message).not.toContain("secretpw")
    }
  })

  test("scrub removes the password in plain and URL-encoded form", () => {
    const t = ok("redis://:a%2Fb@h:1")
    expect(scrub(t, "auth a/b failed for redis://:a%2Fb@h:1")).toBe("auth *** failed for redis://:***@h:1")
    expect(redactText("see rediss://u:zz@host:5/1 now")).toBe("see rediss://u:***@host:5/1 now")
  })
})

describe("worker refusal", () => {
  const worker = {
    codeVersion: "0.1.0+abc",
    plugins: [
      { name: "envs", version: "1.0.0", hash: "h1" },
      { name: "mine", version: "0.2.0", hash: "h2" }
    ]
  }
  test("same code and plugins: accepted", () => {
    expect(refusal({ codeVersion: "0.1.0+abc", plugins: [{ name: "mine", version: "0.2.0", hash: "h2" }] }, worker)).toBeUndefined()
  })
  test("another code version, a missing plugin, another version or content: refused, naming it", () => {
    expect(refusal({ codeVersion: "0.1.0+def", plugins: [] }, worker)).toContain("code version 0.1.0+abc of this worker differs from the coordinator's 0.1.0+def")
    expect(refusal({ codeVersion: "0.1.0+abc", plugins: [{ name: "theirs", version: "1.0.0", hash: "x" }] }, worker)).toContain(`plugin "theirs" 1.0.0, which this worker lacks`)
    expect(refusal({ codeVersion: "0.1.0+abc", plugins: [{ name: "mine", version: "0.3.0", hash: "h2" }] }, worker)).toContain("this worker has version 0.2.0")
    expect(refusal({ codeVersion: "0.1.0+abc", plugins: [{ name: "mine", version: "0.2.0", hash: "zz" }] }, worker)).toContain("differs in content (hash h2 here, zz at the coordinator)")
  })
})
