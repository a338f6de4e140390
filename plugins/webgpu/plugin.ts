/**
 * The "webgpu" plugin (docs/decisions.md#issue-18): CrossScorers running the tinylm forward pass in WGSL.
 *   scorer: webgpu  the GPU or a one-line UsageError naming every backend's reason;
 *   scorer: auto    the GPU when a hardware adapter is found, else the CPU scorer (a software
 *                   adapter such as lavapipe is slower than the CPU); logs its choice and why.
 * Both fall back to the CPU scorer with one warning when the device is lost or out of memory.
 */
import { Schema } from "effect"
import { noteRuntime, UsageError, withDefault as dflt } from "../../core/host.ts"
import { definePlugin } from "../../core/contracts/index.ts"
import type { CrossScorer, Policy, ScorerContext, ScorerSpec } from "../../core/contracts/index.ts"
import { probeOnce } from "./doctor.ts"
import { makeWebGpuScorer, openBackend, type WebGpuScorer, type WebGpuScorerOptions } from "./scorer.ts"
import { modelView } from "./view.ts"

export const WebGpuOptions = Schema.Struct({
  /** Where the forward runs: auto (navigator.gpu, then Dawn, then a Deno child), or one of them only. */
  backend: dflt(Schema.Literals(["auto", "navigator", "dawn", "deno"]), "auto"),
  /** Positions per GPU chunk (lowered to fit the device's storage-buffer limit). */
  maxPositions: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(256)), 16384),
  /** Requests per policy.score call when scoring falls back to the CPU. */
  batchSize: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), 64),
  /** Deno binary for the child backend (default node_modules/.bin/deno, or $RAGEN_DENO). */
  deno: Schema.optional(Schema.String)
})
export type WebGpuOptions = typeof WebGpuOptions.Type

const log = (line: string) => console.error(line)

/** The registry's CPU scorer for the policy: the fallback after a GPU failure, and auto's choice without a GPU. */
const cpuOf = (o: WebGpuScorerOptions, ctx: ScorerContext): Promise<CrossScorer> => ctx.scorer("cpu", { batchSize: o.batchSize })

/** The GPU scorer, or the reasons there is none. */
const tryGpu = async (o: WebGpuScorerOptions, policy: Policy, ctx: ScorerContext, hardwareOnly: boolean): Promise<WebGpuScorer | { why: string }> => {
  const view = modelView(policy)
  if ("reason" in view) return { why: view.reason }
  const { backend, reasons, diagnosis } = await openBackend(o.backend, o, hardwareOnly)
  if (!backend) return { why: `${diagnosis} [tried ${reasons.join("; ")}]` }
  const s = makeWebGpuScorer(view, backend, await cpuOf(o, ctx))
  noteRuntime("scorer", `webgpu: ${s.backendName()}`)
  return s
}

export const webgpuScorerSpec: ScorerSpec<WebGpuOptions> = {
  id: "webgpu",
  probe: async () => (await probeOnce()).line,
  description: "Cross-scores on WebGPU (WGSL forward of the tinylm policy): navigator.gpu, Dawn, or a Deno child",
  options: WebGpuOptions,
  make: async (o, policy, ctx) => {
    const s = await tryGpu(o, policy, ctx, false)
    if ("why" in s) throw new UsageError({ field: "scorer", message: `scorer webgpu: no WebGPU device: ${s.why}; or use scorer: auto (falls back to the CPU) or scorer: cpu` })
    log(`scorer webgpu: ${s.backendName()}`)
    return s
  }
}

export const autoScorerSpec: ScorerSpec<WebGpuOptions> = {
  id: "auto",
  probe: async () => (await probeOnce()).line,
  description: "WebGPU cross-scoring when an adapter is found, else the CPU scorer (logs which and why)",
  options: WebGpuOptions,
  make: async (o, policy, ctx) => {
    const s = await tryGpu(o, policy, ctx, true)
    if ("why" in s) {
      noteRuntime("scorer", "cpu (auto)")
      log(`scorer auto: cpu, because ${s.why}`)
      return cpuOf(o, ctx)
    }
    log(`scorer auto: webgpu, ${s.backendName()}`)
    return s
  }
}

export default definePlugin({ name: "webgpu", version: "0.1.0", scorers: [webgpuScorerSpec, autoScorerSpec] })
