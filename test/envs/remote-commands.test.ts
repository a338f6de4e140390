/**
 * Remote-backed envs (async reset/step) through every caller besides the rollout: `env show`
 * (with --teacher), `play`, and the env server over HTTP. Uses the WebShop fixture server.
 * The CLI is spawned asynchronously: spawnSync would block the in-process fixture server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { spawn } from "node:child_process"
import { Effect, Exit } from "effect"
import { loadResources } from "../../envs/server/operator.ts"
import { parsePairs } from "../../core/cli/kv.ts"
import { startHttp } from "../../envs/server/http.ts"
import { handleAsync } from "../../envs/server/protocol.ts"
import { SessionStore } from "../../envs/server/sessions.ts"
import { collectTeacherTurns } from "../../core/train/teacher-turns.ts"
import { frozenLakeSpec } from "../../envs/frozenlake/env.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { bunBin, mainTs, root } from "../helpers/cli.ts"
import { startFixture, type Fixture } from "../fixtures/webshop-server.ts"
import type { EnvCatalog } from "../../envs/server/catalog.ts"
import { webShopSpec } from "../../envs/webshop/env.ts"

let fx: Fixture
beforeAll(async () => {
  fx = await startFixture()
})
afterAll(async () => {
  await fx.close()
})

const cli = (args: string[], input = ""): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const p = spawn(bunBin, [mainTs, ...args], { cwd: root, env: { ...process.env, NO_COLOR: "1" } })
    let stdout = ""
    let stderr = ""
    p.stdout.on("data", (d) => (stdout += d))
    p.stderr.on("data", (d) => (stderr += d))
    p.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }))
    p.stdin.end(input)
  })

describe("--option parsing", () => {
  test("a dotted key sets a nested field; clashes, empty segments and __proto__ are errors", () => {
    const parse = (pairs: string[]) => Effect.runSyncExit(parsePairs(pairs, "--option"))
    const ok = parse(["server.url=http://h:1", "server.timeoutMs=50", "binaryReward=true"])
    expect(Exit.isSuccess(ok) && ok.value).toEqual({ server: { url: "http://h:1", timeoutMs: 50 }, binaryReward: true })
    expect(Exit.isFailure(parse(["server=3", "server.url=x"]))).toBe(true)
    expect(Exit.isFailure(parse(["server..url=x"]))).toBe(true)
    expect(Exit.isFailure(parse(["__proto__.x=1"]))).toBe(true)
  })

  test("an unknown option key is a UsageError naming it (exit 2), not silently dropped", async () => {
    const r = await cli(["env", "show", "frozenlake", "--option", "nosuch.key=1"])
    expect(r.code).toBe(2)
    expect(r.stderr + r.stdout).toContain("--option nosuch: unknown option")
    const near = await cli(["env", "show", "--env", "frozenlake", "--option", "succesRate=0.8"])
    expect(near.code).toBe(2)
    expect(near.stderr.trim()).toBe("error: envs/frozenlake-v1: --option succesRate: unknown option; did you mean successRate?")
  })
})

describe("remote-backed webshop through the CLI", () => {
  test("env show --teacher awaits resetAsync/stepAsync and reaches the reward", async () => {
    const r = await cli(["env", "show", "webshop", "--seed", "7", "--teacher", "--option", `server.url=${fx.url}`, "--option", "server.timeoutMs=2000"])
    expect(r.stderr).not.toContain("resetAsync")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("instruction : i need a cotton t-shirt in size m and color red")
    expect(r.stdout).toContain("step 1")
    expect(r.stdout).toMatch(/return \d/)
    expect(fx.requests.some((q) => q.startsWith("/search_results/"))).toBe(true)
  }, 20_000)

  test("play awaits stepAsync for each line", async () => {
    const r = await cli(["play", "webshop", "--seed", "7", "--option", `server.url=${fx.url}`], "search[cotton t-shirt]\n")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("[b01abc]")
    expect(r.stdout).toContain("after 1 action(s)")
  }, 20_000)
})

describe("env server on a remote-backed env", () => {
  test("create/step/reset over HTTP await the remote env", async () => {
    const catalog: EnvCatalog = {
      resolve: (id) => (id === "webshop" || id === webShopSpec.id ? { ok: true, id: webShopSpec.id, spec: webShopSpec } : { ok: false, message: `unknown env "${id}"` }),
      list: () => [{ id: webShopSpec.id, description: webShopSpec.description }]
    }
    // Server URLs are operator settings: the client names one the server offers (operator.ts).
    const resources = await loadResources([
      { name: "fixture", kind: "url", value: fx.url },
      { name: "dead", kind: "url", value: "http://127.0.0.1:1" }
    ])
    const srv = { catalog, sessions: new SessionStore({ maxSessions: 8, ttlMs: 60_000 }), resources }
    const started = await startHttp(srv, 0, "127.0.0.1")
    try {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${started.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } })
        return { status: res.status, body: (await res.json()) as Record<string, any> }
      }
      const c = await post("/create", { env: "webshop", seed: 7, options: { server: { url: "fixture", timeoutMs: 2000 } } })
      expect(c.status).toBe(200)
      expect(c.body.observation).toContain("search page")
      const s = await post("/step", { id: c.body.id, action: "<answer>search[cotton t-shirt]</answer>" })
      expect(s.status).toBe(200)
      expect(s.body.observation).toContain("[b01abc]")
      expect(s.body.info.valid).toBe(true)
      const r = await post("/reset", { id: c.body.id, seed: 7 })
      expect(r.status).toBe(200)
      expect(r.body.observation).toContain("search page")
      // A dead backend is the server's problem, not the client's: 502 with the message.
      const dead = await handleAsync(srv, "create", { env: "webshop", options: { server: { url: "dead", timeoutMs: 200, retries: 0 } } })
      expect(dead.status).toBe(502)
    } finally {
      started.server.close()
      started.server.closeAllConnections?.()
    }
  }, 20_000)
})

describe("SFT teacher turns", () => {
  test("collectTeacherTurns drives a remote env; on a sync env it is deterministic", async () => {
    const opts = decodeSync(webShopSpec.options, { server: { url: fx.url, timeoutMs: 2000 } })
    if (!opts.ok) throw new Error(opts.message)
    const before = fx.requests.length
    const turns = await collectTeacherTurns(webShopSpec, opts.value, { turns: 6, epsilon: 0, reasoningNoise: 0, seed: 0 })
    expect(turns.length).toBe(6)
    expect(turns[0]!.prompt).toContain("search page")
    expect(fx.requests.length).toBeGreaterThan(before)
    const fl = decodeSync(frozenLakeSpec.options, {})
    if (!fl.ok) throw new Error(fl.message)
    const o = { turns: 30, epsilon: 0.1, reasoningNoise: 0.1, seed: 3 }
    const a = await collectTeacherTurns(frozenLakeSpec, fl.value, o)
    expect(a.length).toBe(30)
    expect(await collectTeacherTurns(frozenLakeSpec, fl.value, o)).toEqual(a)
  }, 20_000)
})
