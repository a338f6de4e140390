import { describe, expect, test } from "bun:test"
import type { Policy, ScoreRequest } from "../../core/contracts/index.ts"
import { miProxies } from "../../core/diagnostics/mi.ts"
import { makeCpuScorer } from "../../plugins/scorers/cpu.ts"

/** A fake policy: one token per character; log-prob −0.1 if the char occurs in the prompt, else −2. */
const fakePolicy = (calls: number[], seen: ScoreRequest[]): Policy => ({
  id: "fake",
  sample: async () => [],
  score: async (reqs) => {
    calls.push(reqs.length)
    seen.push(...reqs)
    return reqs.map((q) => {
      const text = String(q.continuation)
      const lp = Float32Array.from(text, (c) => (q.prompt.includes(c) ? -0.1 : -2))
      return { tokens: Int32Array.from(text, (c) => c.charCodeAt(0)), logprobs: lp, entropy: new Float32Array(lp.length) }
    })
  }
})

describe("CPU CrossScorer", () => {
  test("scores every (reasoning, prompt) pair in batches: per-token mean and sum", async () => {
    const calls: number[] = []
    const seen: ScoreRequest[] = []
    const s = makeCpuScorer(fakePolicy(calls, seen), { batchSize: 4 })
    const out = await s.score(["ab", "xyz", ""], ["<p>ab<think>", "<p>xyq<think>"])
    expect(out.rows).toBe(3)
    expect(out.cols).toBe(2)
    expect(calls).toEqual([4, 2])
    // The continuation is exactly the reasoning text (no closing tag).
    expect(seen.map((q) => q.continuation)).toEqual(["ab", "ab", "xyz", "xyz", "", ""])
    expect(seen.map((q) => q.prompt)).toEqual(["<p>ab<think>", "<p>xyq<think>", "<p>ab<think>", "<p>xyq<think>", "<p>ab<think>", "<p>xyq<think>"])
    const f = (x: number) => Math.fround(x)
    expect(out.sum[0]).toBeCloseTo(2 * f(-0.1), 6)
    expect(out.tokenMean[0]).toBeCloseTo(f(-0.1), 6)
    expect(out.sum[1]).toBeCloseTo(2 * f(-2), 6)
    expect(out.sum[3]).toBeCloseTo(2 * f(-0.1) + f(-2), 6)
    expect(out.tokenMean[3]).toBeCloseTo((2 * f(-0.1) + f(-2)) / 3, 6)
    expect(out.tokenMean[4]).toBe(0)
    expect(out.sum[5]).toBe(0)
  })
  test("feeds miProxies: input-dependent reasoning retrieves its prompt", async () => {
    const s = makeCpuScorer(fakePolicy([], []), { batchSize: 64 })
    const prompts = ["aaa", "bbb", "ccc"]
    const scores = await s.score(["aa", "bb", "cc", "ab"], prompts)
    const p = miProxies({ ...scores, column: Int32Array.from([0, 1, 2, 0]) })
    expect(p.retrievalAcc).toBeCloseTo(0.75 + 0.25 / 2, 12)
    expect(p.miEst).toBeGreaterThan(0)
  })
})
