/**
 * End to end: the remote policy against `serve` (a real HTTP server on 127.0.0.1 holding a
 * tinylm policy). For the same seed, samples and scores through HTTP equal the in-process
 * ones: the remote policy sends each prompt a seed drawn from its Rng, and the server samples
 * that prompt with `new Rng(seed)`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { Server } from "node:http"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { buildPrompt } from "../../core/prompt.ts"
import envsPlugin from "../../envs/plugin.ts"
import { TinyLMServer } from "../../plugins/openai/serve.ts"
import { startServe } from "../../plugins/openai/serve-http.ts"
import type { TinyLMPolicy } from "../../plugins/tinylm/policy.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { remotePolicy } from "./fake-server.ts"

const dec = <T>(s: any, x: unknown): T => {
  const r = decodeSync<T>(s, x)
  if (!r.ok) throw new Error(r.message)
  return r.value
}

const spec = envsPlugin.envs!.find((e) => e.id.startsWith("frozenlake"))!
const envOptions = dec(spec.options, {})
let local: TinyLMPolicy
let server: Server
let url: string
const prompts: string[] = []

beforeAll(async () => {
  local = await makeTinyLM(dec(TinyLMOptions, {}), { vocabulary: spec.vocabulary(envOptions), seed: 3 })
  const s = await startServe(new TinyLMServer(local, { model: "tiny", maxBodyBytes: 4096 }), 0)
  server = s.server
  url = s.url
  const env = spec.make(envOptions)
  for (const seed of [123, 124, 125]) prompts.push(buildPrompt({ observation: env.reset(seed) }))
})
afterAll(() => {
  server.closeAllConnections?.()
  server.close()
})

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!))
  return m
}

describe("remote policy ↔ serve", () => {
  test("samples through HTTP equal in-process samples with the same per-prompt seed", async () => {
    const remote = remotePolicy({ baseUrl: url, model: "tiny" })
    const o = { temperature: 1, topP: 0.95, minP: 0.02, maxTokens: 24 }
    const got = await remote.sample(prompts, o, new Rng(99))
    const seeds = new Rng(99)
    for (let i = 0; i < prompts.length; i++) {
      const [want] = await local.sample([prompts[i]!], o, new Rng(seeds.nextU32()))
      expect(got[i]!.text).toBe(want!.text)
      expect(got[i]!.tokens.length).toBe(want!.tokens.length) // ids stay −1: the legacy logprobs shape carries token strings
      expect(maxAbsDiff(got[i]!.logprobs, want!.rawLogprobs)).toBe(0)
      expect(got[i]!.finishReason).toBe(want!.finishReason === "eos" ? "eos" : want!.finishReason)
    }
  }, 120_000)

  test("scores through HTTP (echo, text_offset alignment) equal in-process teacher-forced scores", async () => {
    const remote = remotePolicy({ baseUrl: url, model: "tiny" })
    const conts = ["player 1 2 goal 3 3", "player 0 0 hole 1 1 path Down Right", "Left"]
    const reqs = prompts.flatMap((p) => conts.map((c) => ({ prompt: p, continuation: c })))
    const got = await remote.score(reqs)
    const want = await local.score(reqs)
    for (let i = 0; i < reqs.length; i++) {
      expect(got[i]!.logprobs.length).toBe(want[i]!.logprobs.length)
      expect(maxAbsDiff(got[i]!.logprobs, want[i]!.logprobs)).toBeLessThan(1e-6)
    }
    await remote.checkScoring()
    // scoreMaxTokens 0 (vLLM's echo-only form) gives the same numbers
    const zero = await remotePolicy({ baseUrl: url, model: "tiny", scoreMaxTokens: 0 }).score(reqs.slice(0, 2))
    expect(maxAbsDiff(zero[0]!.logprobs, want[0]!.logprobs)).toBeLessThan(1e-6)
  }, 120_000)

  test("chat endpoint, /v1/models, and the server's refusals (unknown model, n > 1, body over the cap)", async () => {
    const [c] = await remotePolicy({ baseUrl: url, model: "tiny", endpoint: "chat" }).sample([prompts[0]!], { temperature: 1, topP: 1, minP: 0, maxTokens: 16 }, new Rng(5))
    const [w] = await local.sample([`${prompts[0]!.replace(/\n<think>$/, "")}\n<think>`], { temperature: 1, topP: 1, minP: 0, maxTokens: 16 }, new Rng(new Rng(5).nextU32()))
    expect(c!.text).toBe(w!.text)
    await remotePolicy({ baseUrl: url, model: "tiny" }).checkModel()
    const wrong = await remotePolicy({ baseUrl: url, model: "other" })
      .checkModel()
      .then(
        () => "",
        (e) => String(e.message)
      )
    expect(wrong).toContain(`serves "tiny", not "other"`)
    const post = (body: unknown) => fetch(`${url}/completions`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } })
    expect((await post({ prompt: "x", n: 2 })).status).toBe(400)
    expect((await post({ prompt: "x", model: "nope" })).status).toBe(404)
    expect((await post({ prompt: "x ".repeat(5000) })).status).toBe(413)
    expect((await fetch(`${url}/nowhere`)).status).toBe(404)
  }, 120_000)
})
