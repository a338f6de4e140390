/**
 * Redis with a password, and with TLS (rediss://, a self-signed certificate trusted through
 * RAGEN_REDIS_CA): the sweep works, and the password appears nowhere — not in the worker's or the
 * coordinator's output, `sweep status`, `sweep collect`, error messages, the results folder or
 * the leaderboard site.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { join } from "node:path"
import { fixturePlugin, smallSpec, tempDir, writeSpec } from "../sweep/helpers.ts"
import { fakeTrainEnv } from "../helpers/fake-train.ts"
import { cli, type Proc, readTree, redisAvailable, type RedisHandle, selfSignedCert, startCli, startRedis, stopProc } from "./helpers.ts"

// A slash and a plus: the URL carries it percent-encoded; neither form may leak.
const PASSWORD = "pw/Very+Secret-9431"
const forms = [PASSWORD, encodeURIComponent(PASSWORD)]
const fake = fakeTrainEnv(5)
const spec2 = () => smallSpec({ axes: { env: ["frozenlake"], filter: ["none"], seeds: [1, 2] } })

const expectNoPassword = (texts: ReadonlyArray<string>): void => {
  for (const t of texts) for (const f of forms) expect(t.includes(f)).toBe(false)
}

const cert = redisAvailable ? selfSignedCert() : undefined
if (redisAvailable && !cert) {
  if (process.env.CI === "true") throw new Error("openssl is missing: .ci/run must apt-get install openssl (the rediss:// test makes a self-signed certificate)")
  console.log("skipping the rediss:// test: openssl could not make a self-signed certificate")
}

describe.skipIf(!redisAvailable)("a password-protected Redis, and TLS", () => {
  const procs: Proc[] = []
  const servers: RedisHandle[] = []
  afterAll(async () => {
    await Promise.all(procs.map((p) => stopProc(p, "SIGKILL")))
    await Promise.all(servers.map((s) => s.stop()))
  })

  const sweepThrough = async (redis: RedisHandle, env: Record<string, string>): Promise<{ dir: string; texts: string[] }> => {
    const dir = tempDir("bullmq-sec")
    const w = startCli(["worker", "--queue", redis.url, "--plugin", fixturePlugin, "--work-dir", join(dir, "work")], { ...fake, ...env })
    procs.push(w)
    const args = ["--plugin", fixturePlugin, "--out", join(dir, "results"), "--leaderboard", join(dir, "site")]
    const r = await cli(["sweep", writeSpec(dir, spec2()), "--queue", redis.url, ...args], { ...fake, ...env })
    expect(r.code).toBe(0)
    expect(r.out).toContain("2 done, 0 already complete, 0 failed")
    const st = await cli(["sweep", "status", "--queue", redis.url, ...args], env)
    expect(st.code).toBe(0)
    expect(st.out).toContain("sweep small: 2/2 done")
    expect(st.out).toContain(":***@127.0.0.1")
    const col = await cli(["sweep", "collect", "--queue", redis.url, ...args], env)
    expect(col.out).toContain("0 new, 2 already there")
    await stopProc(w)
    return { dir, texts: [w.output(), r.out, st.out, col.out] }
  }

  test("redis:// with a password: the sweep runs; the password is in no output, result or page", async () => {
    const redis = await startRedis({ password: PASSWORD })
    servers.push(redis)
    const { dir, texts } = await sweepThrough(redis, {})
    // a wrong password is a one-line error that does not echo it either
    const wrong = await cli(["sweep", "status", "--queue", `redis://:${encodeURIComponent(PASSWORD + "x")}@127.0.0.1:${redis.port}`])
    expect(wrong.code).toBe(2)
    expect(wrong.out).toContain("WRONGPASS")
    expectNoPassword([...texts, wrong.out, ...readTree(dir).values()])
  }, 180_000)

  test.skipIf(!cert)(
    "rediss:// (TLS) with a password, the CA from RAGEN_REDIS_CA; without the CA it is refused",
    async () => {
      const redis = await startRedis({ password: PASSWORD, tls: cert! })
      servers.push(redis)
      expect(redis.url.startsWith("rediss://")).toBe(true)
      const untrusted = await cli(["sweep", "status", "--queue", redis.url])
      expect(untrusted.code).toBe(2)
      expect(untrusted.out).toContain("self signed certificate")
      const { dir, texts } = await sweepThrough(redis, { RAGEN_REDIS_CA: cert!.cert })
      expectNoPassword([...texts, untrusted.out, ...readTree(dir).values()])
    },
    180_000
  )
})
