import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Server as HttpServer } from "node:http"
import { PassThrough } from "node:stream"
import type { EnvCatalog } from "../../envs/server/catalog.ts"
import { countdownSpec } from "../../envs/countdown/env.ts"
import { metaMathQASpec } from "../../envs/metamathqa/env.ts"
import { startHttp } from "../../envs/server/http.ts"
import { handle } from "../../envs/server/protocol.ts"
import { FORMAT_NOTE } from "../../core/prompt.ts"
import { SessionStore } from "../../envs/server/sessions.ts"
import { handleLine, serveStdio } from "../../envs/server/stdio.ts"

const specs = [countdownSpec, metaMathQASpec]
const catalog: EnvCatalog = {
  resolve: (id) => {
    const s = specs.find((x) => x.id === id || x.id.replace(/-v\d+$/, "") === id)
    return s ? { ok: true, id: s.id, spec: s } : { ok: false, message: `unknown env "${id}"` }
  },
  list: () => specs.map((s) => ({ id: s.id, description: s.description }))
}
const mk = (maxSessions = 8, ttlMs = 60_000, now?: () => number) => ({ catalog, sessions: new SessionStore({ maxSessions, ttlMs, now }) })

describe("protocol", () => {
  test("create → step → reset round trip, same seed same observation", () => {
    const srv = mk()
    const c = handle(srv, "create", { env: "countdown", seed: 3 })
    expect(c.status).toBe(200)
    const id = c.body.id as string
    expect(c.body.observation).toContain("target")
    const s = handle(srv, "step", { id, action: "<answer>1 + 2</answer>" })
    expect(s.status).toBe(200)
    expect(s.body).toMatchObject({ terminated: true, truncated: false })
    expect(handle(srv, "step", { id, action: "1" }).status).toBe(400) // episode over
    const r = handle(srv, "reset", { id, seed: 3 })
    expect(r.body.observation).toBe(c.body.observation)
  })
  test("sessions are time-limited at the env's action budget, or the one the client asks for", () => {
    const srv = mk()
    // MetaMathQA's budget follows its options: maxAttempts 3 gives 3 actions (actionBudgetOf).
    const c = handle(srv, "create", { env: "metamathqa", seed: 1, options: { maxAttempts: 3 } })
    expect(c.body.actionBudget).toBe(3)
    expect(handle(srv, "step", { id: c.body.id, action: "<answer>123456</answer>" }).body).toMatchObject({ terminated: false, truncated: false })
    expect(handle(srv, "create", { env: "metamathqa", seed: 1 }).body.actionBudget).toBe(1)
    // A client may ask for another budget.
    const k = handle(srv, "create", { env: "metamathqa", seed: 1, actionBudget: 1, options: { maxAttempts: 3 } })
    expect(k.body.actionBudget).toBe(1)
    expect(handle(srv, "step", { id: k.body.id, action: "<answer>123456</answer>" }).body).toMatchObject({ terminated: false, truncated: true })
    expect(handle(srv, "create", { env: "metamathqa", actionBudget: 0 }).status).toBe(400)
  })
  test("a reply is played as the trainer plays a turn: parsed, the format penalty, the format note, the turn limit", () => {
    const srv = mk()
    const c = handle(srv, "create", { env: "metamathqa", seed: 1, options: { maxAttempts: 3 } })
    expect(c.body).toMatchObject({ maxTurns: metaMathQASpec.maxTurns, formatPenalty: -0.1 })
    const id = c.body.id as string
    // A bare action does not parse (nor does it for the trainer): −0.1, the env is not stepped, the same observation with the note.
    const bare = handle(srv, "step", { id, action: "123456" }).body
    expect(bare).toMatchObject({ reward: -0.1, terminated: false, truncated: false, info: { valid: false, formatValid: false } })
    expect(bare.observation).toBe(`${FORMAT_NOTE}\n${c.body.observation}`)
    // The note is not stacked on a second bad reply.
    expect(handle(srv, "step", { id, action: "<think>no answer</think>" }).body.observation).toBe(bare.observation)
    // "<answer>…</answer>" alone and the trainer's "<think>…</think><answer>…</answer>" both reach the env.
    const wrong = handle(srv, "step", { id, action: "<answer>123456</answer>" }).body
    expect(wrong).toMatchObject({ reward: 0, info: { valid: true, formatValid: true } })
    expect(String(wrong.observation).startsWith(FORMAT_NOTE)).toBe(false)
    expect(handle(srv, "step", { id, action: "<think>sum it</think> <answer>123457</answer>" }).body.info).toMatchObject({ valid: true, formatValid: true })
    // maxTurns replies, parsed or not, end the episode: truncated, as the trainer's rollout stops.
    expect(metaMathQASpec.maxTurns).toBe(5)
    expect(handle(srv, "step", { id, action: "?" }).body).toMatchObject({ truncated: true, terminated: false })
    // A client may set the trainer's maxTurns and formatPenalty.
    const k = handle(srv, "create", { env: "countdown", seed: 0, maxTurns: 1, formatPenalty: -0.5 })
    expect(k.body).toMatchObject({ maxTurns: 1, formatPenalty: -0.5 })
    expect(handle(srv, "step", { id: k.body.id, action: "Up" }).body).toMatchObject({ reward: -0.5, truncated: true })
    expect(handle(srv, "step", { id: k.body.id, action: "Up" }).status).toBe(400) // ended
    // An action the env rejects costs the penalty on top of its reward (0 here).
    handle(srv, "reset", { id: k.body.id, seed: 0 })
    expect(handle(srv, "step", { id: k.body.id, action: "<answer>garbage</answer>" }).body).toMatchObject({ reward: -0.5, info: { valid: false, formatValid: true } })
    expect(handle(srv, "create", { env: "countdown", maxTurns: 0 }).status).toBe(400)
    expect(handle(srv, "create", { env: "countdown", formatPenalty: "x" }).status).toBe(400)
  })
  test("bad bodies are 400 with a message; unknown ids 404", () => {
    const srv = mk()
    expect(handle(srv, "create", { seed: 1 }).status).toBe(400)
    expect(handle(srv, "create", { env: "countdown", seed: -1 }).status).toBe(400)
    expect(handle(srv, "create", { env: "countdown", options: { maxCount: 99 } }).status).toBe(400)
    expect(handle(srv, "create", { env: "nope" }).status).toBe(404)
    expect(handle(srv, "step", { id: "x" }).status).toBe(400)
    expect(handle(srv, "step", { id: "x", action: "1" }).status).toBe(404)
    expect(typeof handle(srv, "step", null).body.error).toBe("string")
  })
  test("sessions are bounded (LRU eviction) and expire after the TTL", () => {
    let t = 0
    const srv = mk(2, 1000, () => t)
    const a = handle(srv, "create", { env: "countdown" }).body.id as string
    const b = handle(srv, "create", { env: "countdown" }).body.id as string
    handle(srv, "reset", { id: a }) // a is now the most recent
    const c = handle(srv, "create", { env: "countdown" }).body.id as string
    expect(handle(srv, "reset", { id: b }).status).toBe(404) // b was least recently used
    expect(handle(srv, "reset", { id: a }).status).toBe(200)
    t = 5000
    expect(handle(srv, "reset", { id: c }).status).toBe(404)
    expect(srv.sessions.size).toBe(0)
  })
})

describe("stdio", () => {
  test("JSON lines in, JSON lines out", async () => {
    const srv = mk()
    const input = new PassThrough()
    const output = new PassThrough()
    const chunks: string[] = []
    output.on("data", (d) => chunks.push(String(d)))
    const done = serveStdio(srv, input, output)
    input.write(JSON.stringify({ op: "envs" }) + "\n")
    input.write(JSON.stringify({ op: "create", env: "metamathqa", seed: 1 }) + "\n")
    input.write("not json\n\n")
    input.end()
    await done
    const lines = chunks
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines.length).toBe(3)
    expect(lines[0].envs.map((e: { id: string }) => e.id)).toEqual(["countdown-v1", "metamathqa-v1"])
    expect(lines[1].status).toBe(200)
    expect(typeof lines[1].observation).toBe("string")
    expect(lines[2].status).toBe(400)
    expect(handleLine(srv, JSON.stringify({ op: "fly" })).status).toBe(400)
  })
})

describe("http (loopback, ephemeral port)", () => {
  let server: HttpServer
  let url = ""
  beforeAll(async () => {
    const s = await startHttp(mk(), 0, "127.0.0.1", 4096)
    server = s.server
    url = s.url
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))
  const post = (path: string, body: unknown) => fetch(url + path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json" } })

  test("routes, errors and the body limit", async () => {
    const envs = await (await fetch(url + "/envs")).json()
    expect(envs.envs.length).toBe(2)
    const c = await post("/create", { env: "countdown-v1", seed: 0 })
    expect(c.status).toBe(200)
    const { id, observation } = await c.json()
    expect(observation).toContain("numbers")
    const s = await post("/step", { id, action: "<answer>garbage</answer>" })
    expect(await s.json()).toMatchObject({ reward: -0.1, truncated: true, info: { valid: false, formatValid: true } })
    expect((await post("/reset", { id, seed: 0 })).status).toBe(200)
    expect((await post("/step", { id: "nope", action: "1" })).status).toBe(404)
    const badJson = await post("/create", "{not json")
    expect(badJson.status).toBe(400)
    expect(typeof (await badJson.json()).error).toBe("string")
    expect((await post("/create", { env: "countdown", pad: "x".repeat(10_000) })).status).toBe(413)
    expect((await fetch(url + "/nowhere")).status).toBe(404)
    expect((await fetch(url + "/create")).status).toBe(405)
    expect((await fetch(url + `/session/${id}`, { method: "DELETE" })).status).toBe(200)
    expect((await post("/reset", { id })).status).toBe(404)
  })
})
