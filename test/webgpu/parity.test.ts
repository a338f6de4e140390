/**
 * Parity of the WGSL forward with the CPU kernels, on real WebGPU: Deno's navigator.gpu (Mesa
 * lavapipe here), driven by test/webgpu/deno-parity.ts. Prints every error with its tolerance.
 * Tolerances (float32 GPU sums against float64 CPU sums, inputs of order 1):
 *   each kernel           max abs ≤ 1e-5, max rel ≤ 2e-3 (rel = |Δ| / max(|cpu|, 1e-3))
 *   token log-probs       max abs ≤ 1e-4
 *   per-token mean        max abs ≤ 1e-4
 *   sum (≤ 127 tokens)    max abs ≤ 1e-3
 *   MI proxies            max abs ≤ 1e-4, the retrieval/recall counts and the regime equal
 *   teacher forcing       log-probs, entropies, values (policy.forward) and the reference's
 *                         log-probs and entropies (snapshot.score): max abs ≤ 1e-4
 */
import { describe, expect, test } from "bun:test"
import { requireAdapter, runDeno } from "./helpers.ts"
import { KERNEL_TOLERANCE } from "./kernel-parity.ts"

const enabled = requireAdapter("the WebGPU parity test")

describe("WGSL kernels against their CPU twins (Deno WebGPU)", () => {
  test("per kernel, whole model, MI proxies, device-loss fallback", () => {
    if (!enabled) return // reason printed above
    const r = runDeno("test/webgpu/deno-parity.ts")
    if (!r.json) throw new Error(`deno-parity produced no JSON (status ${r.status}): ${r.stderr.slice(-2000)}`)
    const j = r.json
    expect(j.skip).toBeUndefined()
    const table: string[] = [`adapter: ${j.adapter} (${j.backend})`]
    for (const [k, e] of Object.entries(j.kernels) as [string, { maxAbs: number; maxRel: number; n: number }][]) {
      table.push(`${k.padEnd(44)} max abs ${e.maxAbs.toExponential(2)} (tol ${KERNEL_TOLERANCE.abs})  max rel ${e.maxRel.toExponential(2)} (tol ${KERNEL_TOLERANCE.rel})  n=${e.n}`)
      expect(e.maxAbs).toBeLessThanOrEqual(KERNEL_TOLERANCE.abs)
      expect(e.maxRel).toBeLessThanOrEqual(KERNEL_TOLERANCE.rel)
    }
    expect(Object.keys(j.kernels).length).toBe(18)
    const m = j.model
    table.push(`model token log-probs  max abs ${m.tokenLogprobs.maxAbs.toExponential(2)} (tol 1e-4) n=${m.tokenLogprobs.n}`)
    table.push(`model per-token mean   max abs ${m.tokenMean.maxAbs.toExponential(2)} (tol 1e-4) n=${m.tokenMean.n}`)
    table.push(`model sum              max abs ${m.sum.maxAbs.toExponential(2)} (tol 1e-3) n=${m.sum.n}`)
    // each dispatch list (plan.ts Fuse) on the same rows
    for (const [fuse, u] of Object.entries(j.lists) as [string, { tokenLogprobs: { maxAbs: number; n: number }; dispatches: number; engine: unknown; plan: unknown }][]) {
      table.push(`fuse ${fuse.padEnd(9)} token log-probs max abs ${u.tokenLogprobs.maxAbs.toExponential(2)} (tol 1e-4) n=${u.tokenLogprobs.n}, ${u.dispatches} dispatches`)
      expect(u.tokenLogprobs.n).toBe(m.tokenLogprobs.n)
      expect(u.tokenLogprobs.maxAbs).toBeLessThanOrEqual(1e-4)
      // what the engine counted for the call is what plan.ts planStats counts on the host
      expect(u.engine).toEqual(u.plan)
    }
    // the profiler times every planned dispatch once and changes no number (lavapipe has timestamp-query)
    if (typeof j.profile === "string") console.log(`profile: ${j.profile}`)
    else {
      table.push(`profile: ${j.profile.timed} dispatches timed (${j.profile.planned} planned), ${(j.profile.totalNs / 1e6).toFixed(1)} ms`)
      expect(j.profile.timed).toBe(j.profile.planned)
      expect(j.profile.totalNs).toBeGreaterThan(0)
      expect(j.profile.sumDiff).toBe(0)
    }
    expect(j.lists.all.dispatches).toBeLessThan(j.lists.epilogues.dispatches)
    expect(j.lists.epilogues.dispatches).toBeLessThan(j.lists.none.dispatches)
    expect(m.tokenLogprobs.n).toBeGreaterThan(300)
    expect(m.tokenLogprobs.maxAbs).toBeLessThanOrEqual(1e-4)
    expect(m.tokenMean.maxAbs).toBeLessThanOrEqual(1e-4)
    expect(m.sum.maxAbs).toBeLessThanOrEqual(1e-3)
    for (const [k, e] of Object.entries(j.mi) as [string, { maxAbs: number }][]) {
      table.push(`MI ${k.padEnd(20)} |Δ| ${e.maxAbs.toExponential(2)}`)
      if (/^(retrieval|recall|chance|rows|cols)/.test(k)) expect(e.maxAbs).toBe(0)
      else expect(e.maxAbs).toBeLessThanOrEqual(1e-4)
    }
    // teacher forcing on the GPU (policy.forward and the reference's score), same tolerance as the token log-probs
    for (const [k, e] of Object.entries(j.teacher) as [string, { maxAbs: number; n: number } | number][]) {
      if (typeof e === "number") continue
      table.push(`teacher forcing ${k.padEnd(12)} max abs ${e.maxAbs.toExponential(2)} (tol 1e-4) n=${e.n}`)
      expect(e.n).toBeGreaterThan(300)
      expect(e.maxAbs).toBeLessThanOrEqual(1e-4)
    }
    expect(Object.keys(j.teacher).length).toBe(6)
    expect(j.regimes[0]).toBe(j.regimes[1])
    expect(j.reupload).toBe(false) // same weights version: nothing uploaded
    // device loss: one typed warning, then the CPU scorer's numbers exactly
    expect(j.fallback.exact).toBe(true)
    expect(j.fallback.warnings.length).toBe(1)
    expect(j.fallback.warnings[0]).toContain("WebGpuDeviceLost")
    expect(j.fallback.backend).toContain("cpu")
    console.log(table.join("\n"))
  }, 300_000)
})
