/**
 * The remote policy against replies shaped as vLLM and llama.cpp document them
 * (test/fixtures/openai/README.md): sampling log-probs in both shapes, scoring by echo and by
 * prompt_logprobs with the boundary rule of plugins/openai/align.ts, and the clear error of a
 * server that cannot return prompt log-probs.
 */
import { afterEach, describe, expect, test } from "bun:test"
import { Rng } from "../../core/rng.ts"
import { alignEcho, alignPromptLogprobs } from "../../plugins/openai/align.ts"
import { type FakeServer, fixture, remotePolicy, startFake } from "./fake-server.ts"

const PROMPT = "Grid:\n#P_#\n<think>"
const CONT = "The player is at 1 1"
const TEXT = `${PROMPT} ${CONT}`
const BOUNDARY = PROMPT.length + 1 // the joiner " " is on the prompt's side
const sampling = { temperature: 1, topP: 1, minP: 0, maxTokens: 32 }

let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe("boundary alignment", () => {
  test("echo: a token straddling the boundary counts for the continuation; the generated token is left out", () => {
    const lp = fixture("vllm-completions-echo.json").choices[0].logprobs
    const r = alignEcho(lp, TEXT, BOUNDARY)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    // " The" starts on the joiner space (before the boundary) and ends inside the continuation
    expect(r.value.tokens).toEqual([" The", " player", " is", " at", " 1", " 1"])
    expect(r.value.logprobs).toEqual([-1.5, -0.25, -0.375, -0.875, -2.0, -0.625])
    expect(r.value.straddling).toBe(1)
    // the same reply split one character later: " The" now ends after the boundary too, still counted once
    const later = alignEcho(lp, TEXT, BOUNDARY + 1)
    expect(later.ok && later.value.tokens[0]).toBe(" The")
    // a boundary exactly on a token edge: no straddler
    const edge = alignEcho(lp, TEXT, BOUNDARY - 1)
    expect(edge.ok && edge.value.straddling).toBe(0)
    expect(edge.ok && edge.value.tokens.length).toBe(6)
  })

  test("echo: a continuation token without a log-prob, or offsets missing, is refused with a reason", () => {
    const lp = structuredClone(fixture("vllm-completions-echo.json").choices[0].logprobs)
    lp.token_logprobs[10] = null
    const r = alignEcho(lp, TEXT, BOUNDARY)
    expect(r.ok).toBe(false)
    expect(!r.ok && r.message).toContain("has no log-prob")
    const { text_offset: _, ...noOffsets } = fixture("vllm-completions-echo.json").choices[0].logprobs
    const r2 = alignEcho(noOffsets, TEXT, BOUNDARY)
    expect(!r2.ok && r2.message).toContain("text_offset")
  })

  test("prompt_logprobs: spans rebuilt from decoded tokens right to left, the matching entry picked", () => {
    const pl = fixture("vllm-completions-prompt-logprobs.json").choices[0].prompt_logprobs
    const r = alignPromptLogprobs(pl, TEXT, BOUNDARY)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.value.tokens).toEqual([" The", " player", " is", " at", " 1", " 1"])
    expect(r.value.logprobs).toEqual([-1.5, -0.25, -0.375, -0.875, -2.0, -0.625])
    expect(r.value.straddling).toBe(1)
    // a decoded token that is not the text at its place is refused, not guessed
    const bad = alignPromptLogprobs(pl, TEXT.replace("player", "playre"), BOUNDARY)
    expect(!bad.ok && bad.message).toContain("is not the text at that place")
  })
})

describe("remote policy against fixture replies", () => {
  test("vLLM: sampling keeps per-token log-probs and puts back the stop string named in stop_reason", async () => {
    server = await startFake(() => ({ body: fixture("vllm-completions-sample.json") }))
    const p = remotePolicy({ baseUrl: server.url, template: "qwen2.5" })
    const [c] = await p.sample([PROMPT], sampling, new Rng(1))
    expect(c!.text).toBe(" The player is at 1 1. </think> <answer> Right</answer>")
    expect(c!.logprobs.length).toBe(14)
    expect(c!.logprobs[0]).toBeCloseTo(-0.5, 6)
    expect(Array.from(c!.tokens).every((t) => t === -1)).toBe(true) // legacy shape carries no ids
    expect(c!.finishReason).toBe("stop")
    const req = server.requests[0]!.body
    expect(req.prompt).toBe(
      "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nGrid:\n#P_#<|im_end|>\n<|im_start|>assistant\n<think>"
    )
    expect(req.stop).toEqual(["</answer>"])
    expect(req.logprobs).toBe(1)
    expect(typeof req.seed).toBe("number")
    expect(req.min_p).toBeUndefined() // min-p 0 is not sent
  })

  test("vLLM chat: content with a leading <think> is cut to the reasoning, logprobs from logprobs.content", async () => {
    server = await startFake(() => ({ body: fixture("vllm-chat.json") }))
    const p = remotePolicy({ baseUrl: server.url, endpoint: "chat", system: "Be brief." })
    const [c] = await p.sample([PROMPT], { ...sampling, minP: 0.05 }, new Rng(1))
    expect(c!.text).toBe(" The goal is below. </think> <answer> Down </answer>")
    expect(c!.logprobs.length).toBe(15)
    const req = server.requests[0]!.body
    expect(req.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Grid:\n#P_#" }
    ])
    expect(req.logprobs).toBe(true)
    expect(req.min_p).toBe(0.05)
  })

  test("llama.cpp: chat-shaped completion logprobs with token ids; the cut </answer> is restored for an open <answer>", async () => {
    server = await startFake(() => ({ body: fixture("llamacpp-completions.json") }))
    const p = remotePolicy({ baseUrl: server.url, template: "llama3" })
    const [c] = await p.sample([PROMPT], sampling, new Rng(1))
    expect(c!.text).toBe(" player at 1 1 </think> <answer> Down </answer>")
    expect(Array.from(c!.tokens).slice(0, 3)).toEqual([2781, 518, 220])
    expect(c!.logprobs[1]).toBeCloseTo(-0.25, 6)
    expect(server.requests[0]!.body.prompt).toBe("<|start_header_id|>user<|end_header_id|>\n\nGrid:\n#P_#<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n<think>")
  })

  test("vLLM echo scoring: the request, and log-probs of the continuation only", async () => {
    server = await startFake(() => ({ body: fixture("vllm-completions-echo.json") }))
    const p = remotePolicy({ baseUrl: server.url })
    const [s] = await p.score([{ prompt: PROMPT, continuation: CONT }])
    expect(Array.from(s!.logprobs)).toEqual([-1.5, -0.25, -0.375, -0.875, -2.0, -0.625])
    expect(Number.isNaN(s!.entropy[0]!)).toBe(true) // not available remotely
    const req = server.requests[0]!.body
    expect(req).toMatchObject({ prompt: TEXT, echo: true, logprobs: 1, max_tokens: 1 })
    await p.checkScoring()
  })

  test("vLLM prompt_logprobs scoring", async () => {
    server = await startFake(() => ({ body: fixture("vllm-completions-prompt-logprobs.json") }))
    const p = remotePolicy({ baseUrl: server.url, scoring: "prompt_logprobs" })
    const [s] = await p.score([{ prompt: PROMPT, continuation: CONT }])
    expect(Array.from(s!.logprobs)).toEqual([-1.5, -0.25, -0.375, -0.875, -2.0, -0.625])
    expect(server.requests[0]!.body.prompt_logprobs).toBe(0)
  })

  test("llama.cpp cannot return prompt log-probs: checkScoring fails at once with a clear error", async () => {
    server = await startFake(() => ({ body: fixture("llamacpp-completions-echo.json") }))
    const p = remotePolicy({ baseUrl: server.url })
    const e = await p.checkScoring().then(
      () => undefined,
      (x) => x
    )
    expect(e?._tag).toBe("UsageError")
    expect(String(e.message)).toContain(`${server.url} cannot return prompt log-probs`)
    expect(String(e.message)).toContain("llama.cpp")
  })

  test("a reply of the wrong shape is a one-line error naming the server, never a crash later", async () => {
    server = await startFake(() => ({ body: { choices: [{ text: 3 }] } }))
    const p = remotePolicy({ baseUrl: server.url })
    const e = await p.sample([PROMPT], sampling, new Rng(1)).then(
      () => undefined,
      (x) => x
    )
    expect(e?._tag).toBe("UsageError")
    expect(String(e.message)).toContain("sent a reply of the wrong shape")
  })

  test("/v1/models: an unknown model name is an error listing the served ones", async () => {
    server = await startFake(() => ({ body: { object: "list", data: [{ id: "Qwen/Qwen2.5-7B-Instruct", object: "model" }] } }))
    const e = await remotePolicy({ baseUrl: server.url, model: "qwen" })
      .checkModel()
      .then(
        () => undefined,
        (x) => x
      )
    expect(String(e?.message)).toContain(`serves "Qwen/Qwen2.5-7B-Instruct", not "qwen"`)
    await remotePolicy({ baseUrl: server.url, model: "Qwen/Qwen2.5-7B-Instruct" }).checkModel()
  })
})

describe("templates", () => {
  test("custom template: placeholders replaced once, text in the prompt that looks like one is left alone", async () => {
    const { renderPrompt, userMessage } = await import("../../plugins/openai/template.ts")
    expect(userMessage("state {system}\n<think>")).toBe("state {system}")
    expect(renderPrompt("state {system}\n<think>", { template: "custom", customTemplate: "[INST] {system} | {user} [/INST]", system: "S" })).toBe("[INST] S | state {system} [/INST]<think>")
    expect(renderPrompt("x\n<think>", { template: "raw" })).toBe("x\n<think>")
  })
})
