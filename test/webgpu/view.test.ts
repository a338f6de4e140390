/**
 * The policy capability the WebGPU scorer reads (Policy.exportForScoring, docs/decisions.md#issue-24): tinylm's
 * export is viewed in place (no copy), an export whose tensors live apart is gathered into the
 * same flat parameters, anything else is a one-line reason; the CPU fallback comes from the
 * registry (core/services.ts scorerContext). No adapter needed.
 */
import { describe, expect, test } from "bun:test"
import type { Policy, ScoringExport } from "../../core/contracts/index.ts"
import { parameterLayout } from "../../plugins/webgpu/layout.ts"
import { modelView } from "../../plugins/webgpu/view.ts"
import { fixturePolicy } from "./fixture.ts"
import { scorerCtx } from "./helpers.ts"

/** A policy whose export holds copies of `base`'s tensors, each in its own buffer. */
const scattered = (base: ScoringExport, patch: Partial<ScoringExport> = {}): Policy => ({
  id: "scattered",
  sample: async () => [],
  score: async () => [],
  exportForScoring: () => ({ ...base, weights: new Map([...base.weights].map(([k, v]) => [k, v.slice()])), ...patch })
})

describe("modelView over Policy.exportForScoring", () => {
  test("tinylm: the parameters are the policy's own buffer, and the version follows its steps", () => {
    const policy = fixturePolicy()
    const view = modelView(policy)
    if ("reason" in view) throw new Error(view.reason)
    const p = view.params()
    expect(p.buffer).toBe(policy.model.params.buffer)
    expect(p.byteOffset).toBe(policy.model.params.byteOffset)
    const v0 = view.version()
    policy.weightsVersion++
    expect(view.version()).not.toBe(v0)
    expect(Array.from(view.encodePrompt(""))).toEqual([policy.tokenizer.newline])
  })

  test("a snapshot exports too, with a version of its own", async () => {
    const policy = fixturePolicy()
    const snap = await policy.snapshot()
    const a = modelView(policy),
      b = modelView(snap)
    if ("reason" in a || "reason" in b) throw new Error("no view")
    expect(b.version()).not.toBe(a.version())
    expect(Array.from(b.params())).toEqual(Array.from(a.params()))
  })

  test("tensors in separate buffers are gathered into the same flat parameters, once per version", () => {
    const policy = fixturePolicy()
    const base = policy.exportForScoring()
    const direct = modelView(policy)
    const other = modelView(scattered(base))
    if ("reason" in direct || "reason" in other) throw new Error("no view")
    const flat = other.params()
    expect(flat.buffer).not.toBe(policy.model.params.buffer)
    // the same tensors at the same offsets (the 16-byte alignment gaps between them are never read)
    const d = direct.params()
    expect(flat.length).toBe(d.length)
    for (const s of parameterLayout(direct.config).slots.values()) expect(Array.from(flat.subarray(s.offset, s.offset + s.size))).toEqual(Array.from(d.subarray(s.offset, s.offset + s.size)))
    expect(other.params()).toBe(flat) // same version: the same copy
  })

  test("what cannot run on the GPU says why in one line", () => {
    const base = fixturePolicy().exportForScoring()
    const plain: Policy = { id: "echo", sample: async () => [], score: async () => [] }
    const cases: Array<[Policy, RegExp]> = [
      [plain, /policy echo exports no weights for scoring/],
      [scattered(base, { architecture: "llama" }), /architecture "llama" is not the WGSL forward's \(gpt2\)/],
      [scattered(base, { config: { ...base.config, heads: 5 } }), /config\.heads/],
      [scattered(base, { weights: new Map([...base.weights].filter(([k]) => k !== "fcw")) }), /tensor fcw has no values/]
    ]
    for (const [p, re] of cases) {
      const v = modelView(p)
      expect("reason" in v ? v.reason : "").toMatch(re)
      if ("reason" in v) expect(v.reason).not.toContain("\n")
    }
  })
})

describe("the scorer context (the registry)", () => {
  test("makes the CPU scorer by id; an unknown id is the registry's typed error", async () => {
    const ctx = scorerCtx(fixturePolicy())
    expect((await ctx.scorer("cpu", { batchSize: 8 })).id).toBe("cpu")
    await expect(ctx.scorer("no-such-scorer")).rejects.toMatchObject({ _tag: "UnknownIdError" })
    await expect(ctx.scorer("cpu", { batchSze: 8 })).rejects.toMatchObject({ _tag: "UsageError" })
  })
})
