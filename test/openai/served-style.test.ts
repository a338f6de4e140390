/**
 * docs/decisions.md#issue-30, the pieces: `--instructions auto` follows a served model's prompt_style as the
 * trainer resolves it per env, and "prompt too long" replies (ours and vLLM's) are read.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { followServed, resolveAgent } from "../../plugins/openai/agent-flags.ts"
import { promptTooLong } from "../../plugins/openai/policy.ts"

const agent = (env: string, instructions?: string) =>
  Effect.runPromise(
    resolveAgent({ env, policy: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m", ...(instructions ? { instructions } : {}) }, { temperature: 0.5 }).pipe(
      Effect.provide(registryLayerFrom(builtinPlugins))
    )
  )

const style = { context: "auto", historyTurns: 2, instructions: "auto" } as const

describe("--instructions auto and a served prompt style", () => {
  test("a Markov env: markov context, no task description (as the trainer renders for tinylm)", async () => {
    const a = await agent("frozenlake")
    expect(a.rollout.instructions).toBeDefined() // a served LLM without a style sees it
    const b = followServed(a, { maxModelLen: 128, promptStyle: style })
    expect(b.rollout.context).toBe("markov")
    expect(b.rollout.instructions).toBeUndefined()
  })

  test("a non-Markov env: full context, task description shown; explicit styles win", async () => {
    const a = await agent("metamathqa-v1")
    expect(followServed(a, { promptStyle: style }).rollout).toMatchObject({ context: "full", instructions: a.spec.instructions(a.envOptions) })
    expect(followServed(a, { promptStyle: { context: "last-k", historyTurns: 3, instructions: "never" } }).rollout).toMatchObject({ context: "last-k", historyTurns: 3, instructions: undefined })
  })

  test("--instructions always or never, or a server without a style: unchanged", async () => {
    for (const a of [await agent("frozenlake", "always"), await agent("frozenlake", "never")]) expect(followServed(a, { promptStyle: style })).toBe(a)
    const a = await agent("frozenlake")
    expect(followServed(a, { maxModelLen: 4096 })).toBe(a)
  })
})

describe("prompt too long", () => {
  test("serve's and vLLM's wordings give the prompt's length and the context", () => {
    expect(promptTooLong("status 400: the prompt is 138 tokens; this model's context is 128 (max_model_len)")).toEqual({ prompt: 138, context: 128 })
    expect(
      promptTooLong(
        "status 400: This model's maximum context length is 4096 tokens. However, you requested 4200 tokens (4136 in the messages, 64 in the completion). Please reduce the length of the messages or completion."
      )
    ).toEqual({ prompt: 4136, context: 4096 })
    expect(promptTooLong("status 400: n must be 1")).toBeUndefined()
  })
})
