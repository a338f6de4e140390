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
    const s = makeCpuScorer(fakePolicy(calls, seen), { batchSize: 3 })
    const out = await s.score(["xyz", "ab", ""], ["<p>ab<think>", "<p>xyq<think>"])
    expect(out.rows).toBe(3)
    expect(out.cols).toBe(2)
    // Shortest reasoning first, each against all prompts; the empty one needs no call.
    expect(calls).toEqual([3, 1])
    // The continuation is exactly the reasoning text (no closing tag).
    expect(seen.map((q) => q.continuation)).toEqual(["ab", "ab", "xyz", "xyz"])
    expect(seen.map((q) => q.prompt)).toEqual(["<p>ab<think>", "<p>xyq<think>", "<p>ab<think>", "<p>xyq<think>"])
    const f = (x: number) => Math.fround(x)
    // Row 1 ("ab"): both chars in prompt 0, none in prompt 1.
    expect(out.sum[2]).toBeCloseTo(2 * f(-0.1), 6)
    expect(out.tokenMean[2]).toBeCloseTo(f(-0.1), 6)
    expect(out.sum[3]).toBeCloseTo(2 * f(-2), 6)
    // Row 0 ("xyz") against prompt 1: x, y in it, z not.
    expect(out.sum[1]).toBeCloseTo(2 * f(-0.1) + f(-2), 6)
    expect(out.tokenMean[1]).toBeCloseTo((2 * f(-0.1) + f(-2)) / 3, 6)
    expect(out.tokenMean[4]).toBe(0)
    expect(out.sum[5]).toBe(0)
  })
  test("repeated reasonings and prompts are scored once; L equals the pair-by-pair matrix", async () => {
    const calls: number[] = []
    const seen: ScoreRequest[] = []
    const policy = fakePolicy(calls, seen)
    const reasonings = ["ba", "qq", "ba", "", "abc", "qq", "ba"]
    const prompts = ["<a>", "<bq>", "<a>", "<c>"]
    const out = await makeCpuScorer(policy, { batchSize: 5 }).score(reasonings, prompts)
    // 3 distinct non-empty reasonings × 3 distinct prompts.
    expect(seen.length).toBe(9)
    expect(new Set(seen.map((q) => `${q.continuation}|${q.prompt}`)).size).toBe(9)
    const naive = await policy.score(reasonings.flatMap((r) => prompts.map((p) => ({ prompt: p, continuation: r }))))
    naive.forEach((x, i) => {
      const s = x.logprobs.reduce((a, b) => a + b, 0)
      expect(out.sum[i]).toBe(s)
      expect(out.tokenMean[i]).toBe(x.logprobs.length > 0 ? s / x.logprobs.length : 0)
    })
  })
  test("feeds miProxies: input-dependent reasoning retrieves its prompt", async () => {
    const s = makeCpuScorer(fakePolicy([], []), { batchSize: 64 })
    const prompts = ["aaa", "bbb", "ccc"]
    const scores = await s.score(["aa", "bb", "cc", "ab"], prompts)
    const p = miProxies({ ...scores, column: Int32Array.from([0, 1, 2, 0]) })
    expect(p.retrievalAcc).toBeCloseTo(0.75 + 0.25 / 2, 12)
    // Per-token means: own −0.1 (float32) vs −2 for "aa", "bb", "cc"; "ab" scores −1.05, −1.05, −2.
    const hi = Math.fround(-0.1)
    const lme = (xs: number[]) => Math.log(xs.reduce((a, x) => a + Math.exp(x), 0) / xs.length)
    const clear = hi - lme([hi, -2, -2])
    const mixed = (hi - 2) / 2 - lme([(hi - 2) / 2, (hi - 2) / 2, -2])
    expect(p.miEst).toBeCloseTo((3 * clear + mixed) / 4, 12)
  })
})
