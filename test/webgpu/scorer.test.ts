/**
 * The plugin's scorers under Bun, the default CLI runtime: Bun has no navigator.gpu and Dawn
 * (the `webgpu` package) refuses Mesa lavapipe, so on this machine `scorer: webgpu` runs through
 * the Deno child backend. Checks the scores against the CPU scorer, a re-upload after the
 * weights change, the one-warning fallbacks (device lost, out of memory) and `auto`'s log line.
 */
import { afterAll, describe, expect, test } from "bun:test"
import { makeCpuScorer } from "../../plugins/scorers/cpu.ts"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { GpuBackend } from "../../plugins/webgpu/backend.ts"
import { DenoChildBackend } from "../../plugins/webgpu/child.ts"
import { GpuFailure } from "../../plugins/webgpu/engine.ts"
import plugin, { WebGpuOptions } from "../../plugins/webgpu/plugin.ts"
import { makeWebGpuScorer, type WebGpuScorer } from "../../plugins/webgpu/scorer.ts"
import { modelView } from "../../plugins/webgpu/view.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { fixtureBatch, fixturePolicy } from "./fixture.ts"
import { compare } from "./kernel-parity.ts"
import { requireAdapter, scorerCtx } from "./helpers.ts"

const enabled = requireAdapter("the WebGPU scorer test")
const spec = (id: string) => plugin.scorers.find((s) => s.id === id)!
/** The scorer `id` for a fresh fixture policy, as the trainer makes it (the registry's context). */
const make = (id: string, o: WebGpuOptions) => {
  const policy = fixturePolicy()
  return spec(id).make(o, policy, scorerCtx(policy))
}
const options = (o: unknown) => {
  const r = decodeSync(WebGpuOptions, o)
  if (!r.ok) throw new Error(r.message)
  return r.value
}
/** Capture console.error lines while f runs. */
const captureErr = async <T>(f: () => Promise<T>): Promise<{ value: T; lines: string[] }> => {
  const lines: string[] = []
  const old = console.error
  console.error = (...a: unknown[]) => lines.push(a.map(String).join(" "))
  try {
    return { value: await f(), lines }
  } finally {
    console.error = old
  }
}
const open: WebGpuScorer[] = []
afterAll(() => open.forEach((s) => s.close()))

describe("options", () => {
  test("unknown keys are rejected with the nearest key", () => {
    const r = decodeSync(WebGpuOptions, { backnd: "deno" }, { field: "scorerOptions" })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toContain("did you mean backend?")
    expect(options({})).toEqual({ backend: "auto", maxPositions: 16384, batchSize: 64 })
  })
})

describe("fallback on typed GPU failures (no adapter needed)", () => {
  const failing = (kind: "out-of-memory" | "device-lost"): GpuBackend => ({
    via: "fake",
    adapter: "test",
    setWeights: async () => true,
    loseDevice: async () => {},
    close: () => {},
    score: async () => {
      throw new GpuFailure(kind, `webgpu: simulated ${kind}`)
    }
  })
  for (const kind of ["out-of-memory", "device-lost"] as const) {
    test(`${kind}: one warning, the CPU scorer's numbers`, async () => {
      const policy = fixturePolicy()
      const view = modelView(policy)
      if ("reason" in view) throw new Error(view.reason)
      const warnings: string[] = []
      const s = makeWebGpuScorer(view, failing(kind), makeCpuScorer(policy), (l) => warnings.push(l))
      const b = fixtureBatch(6, 3)
      const got = await s.score(b.reasonings, b.prompts)
      await s.score(b.reasonings, b.prompts)
      const want = await makeCpuScorer(policy).score(b.reasonings, b.prompts)
      expect(Array.from(got.sum)).toEqual(Array.from(want.sum))
      expect(Array.from(got.tokenMean)).toEqual(Array.from(want.tokenMean))
      expect(warnings.length).toBe(1)
      expect(warnings[0]).toContain(kind === "out-of-memory" ? "WebGpuOutOfMemory" : "WebGpuDeviceLost")
      expect(s.backendName()).toContain("cpu")
    })
  }

  test("a Deno binary that does not start is a reason, not a crash", async () => {
    const r = await DenoChildBackend.start({ maxPositions: 1024, deno: join(tmpdir(), "no-such-deno-binary") })
    expect("reason" in r).toBe(true)
    if ("reason" in r) expect(r.reason).toMatch(/deno child: .*(could not start|exited)/)
  })

  test("a policy without exported weights: auto says why and uses the CPU; webgpu is a usage error", async () => {
    const policy = { id: "echo", sample: async () => [], score: async (r: ReadonlyArray<unknown>) => r.map(() => ({ tokens: [], logprobs: new Float32Array(0) })) } as any
    const { value, lines } = await captureErr(() => spec("auto").make(options({}), policy, scorerCtx(policy)))
    expect(value.id).toBe("cpu")
    expect(lines.join("\n")).toContain("scorer auto: cpu, because policy echo exports no weights for scoring")
    await expect(spec("webgpu").make(options({}), policy, scorerCtx(policy))).rejects.toMatchObject({ _tag: "UsageError", field: "scorer" })
  })
})

describe("scorer: webgpu from Bun (Dawn, else the Deno child)", () => {
  test("matches the CPU scorer, re-uploads changed weights, falls back once on device loss", async () => {
    if (!enabled) return // reason printed above
    const policy = fixturePolicy()
    const { value, lines } = await captureErr(() => spec("webgpu").make(options({ maxPositions: 512 }), policy, scorerCtx(policy)))
    const s = value as WebGpuScorer
    open.push(s)
    expect(lines.join("\n")).toMatch(/scorer webgpu: (dawn|deno child)/)
    const cpu = makeCpuScorer(policy)
    const b = fixtureBatch(16, 8)
    const check = async () => {
      const g = await s.score(b.reasonings, b.prompts)
      const c = await cpu.score(b.reasonings, b.prompts)
      expect(g.rows).toBe(16)
      expect(g.cols).toBe(8)
      expect(compare(g.sum, c.sum).maxAbs).toBeLessThanOrEqual(1e-3)
      expect(compare(g.tokenMean, c.tokenMean).maxAbs).toBeLessThanOrEqual(1e-4)
      return g
    }
    const first = await check()
    // teacher forcing through the child (per-token log-probs, entropies, values over the frames)
    const items = b.reasonings.map((r, i) => ({ prompt: b.prompts[i % b.prompts.length]!, tokens: policy.tokenizer.encode(r) }))
    const fg = await s.forward(policy, items)
    const fc = await policy.forward(items)
    if (!fg) throw new Error("the WebGPU forward fell back")
    for (const k of ["logprobs", "entropy", "values"] as const) {
      expect(fg.map((f) => f[k].length)).toEqual(fc.map((f) => f[k].length))
      expect(
        compare(
          fg.flatMap((f) => Array.from(f[k])),
          fc.flatMap((f) => Array.from(f[k]))
        ).maxAbs
      ).toBeLessThanOrEqual(1e-4)
    }
    // a training step changes the weights: the scorer sees a new version and uploads it
    const x = policy.model.params
    for (let i = 0; i < x.length; i += 7) x[i] = x[i]! * 1.1
    policy.weightsVersion++ // as TinyLMPolicy.step does
    const second = await check()
    expect(compare(first.sum, second.sum).maxAbs).toBeGreaterThan(1e-2)
    expect(s.backendName()).not.toContain("cpu")
    const warnings = await captureErr(async () => {
      await s.loseDevice()
      const g = await s.score(b.reasonings, b.prompts)
      const c = await cpu.score(b.reasonings, b.prompts)
      expect(Array.from(g.sum)).toEqual(Array.from(c.sum))
      await s.score(b.reasonings, b.prompts)
    })
    expect(warnings.lines.filter((l) => l.includes("warning: webgpu scorer")).length).toBe(1)
    expect(warnings.lines[0]).toContain("WebGpuDeviceLost")
  }, 180_000)

  test("scorer: auto takes a hardware adapter, passes a software one (slower than the CPU), and says which", async () => {
    if (!enabled) return // reason printed above
    const { value, lines } = await captureErr(() => make("auto", options({ backend: "deno" })))
    const log = lines.join("\n")
    if (value.id === "webgpu") {
      open.push(value as WebGpuScorer)
      expect(log).toMatch(/scorer auto: webgpu, deno child \(navigator\.gpu\) on .+/)
    } else {
      // this machine: Deno's only adapter is Mesa's llvmpipe
      expect(value.id).toBe("cpu")
      expect(log).toMatch(
        /scorer auto: cpu, because only a software adapter \(.*(llvmpipe|swiftshader).*; on an NVIDIA server: .*VK_DRIVER_FILES.* \[tried .*deno child \(navigator\.gpu\): adapter .*(llvmpipe|swiftshader).* rejected: a software rasterizer/i
      )
      expect(log.split("\n").filter((l) => l.startsWith("scorer auto:")).length).toBe(1)
    }
  }, 120_000)

  test("scorer: webgpu uses a software adapter when asked", async () => {
    if (!enabled) return // reason printed above
    const { value, lines } = await captureErr(() => make("webgpu", options({ backend: "deno" })))
    open.push(value as WebGpuScorer)
    expect(value.id).toBe("webgpu")
    expect(lines.join("\n")).toMatch(/scorer webgpu: deno child \(navigator\.gpu\) on .+/)
  }, 120_000)
})
