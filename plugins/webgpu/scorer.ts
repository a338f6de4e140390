/**
 * The WebGPU CrossScorer: L[r, j] = log p(z_r | x_j) as the CPU scorer computes it
 * (plugins/scorers/cpu.ts: each distinct reasoning against each distinct prompt once, empty
 * reasoning 0 without a forward, the continuation exactly the reasoning's tokens), with every
 * pair of a call in one engine submission and the weights uploaded once per policy version.
 *
 * Backend choice (`backend: auto`): the runtime's navigator.gpu (Deno) → Dawn (the `webgpu`
 * package, Node/Bun) → a Deno child process running the engine on Deno's navigator.gpu; each
 * step's reason for passing is kept, so `scorer: auto` can say why it chose the CPU.
 * A failure while scoring (device lost, out of memory, a rejected dispatch, a dead child) is a
 * typed error (errors.ts): one warning, then this call and every later one go to the CPU scorer.
 */
import type { CrossScorer, CrossScores, Policy } from "../../core/contracts/index.ts"
import { makeCpuScorer } from "../scorers/cpu.ts"
import type { ModelConfig } from "../tinylm/config.ts"
import { isSoftwareAdapter, navigatorGpu, requestDevice } from "./adapter.ts"
import { type GpuBackend, InProcessBackend } from "./backend.ts"
import { DenoChildBackend } from "./child.ts"
import { dawnGpu } from "./dawn.ts"
import { GpuFailure } from "./engine.ts"
import { fromFailure, WebGpuRejected, type WebGpuError } from "./errors.ts"
import { crossBatch } from "./cross.ts"
import { parameterLayout, type ScoreRow } from "./layout.ts"

export type BackendChoice = "auto" | "navigator" | "dawn" | "deno"

export interface WebGpuScorerOptions {
  /** Where the engine runs (auto: navigator.gpu, then Dawn, then a Deno child). */
  readonly backend: BackendChoice
  /** Positions per GPU chunk (lowered to the device's storage-buffer limit). */
  readonly maxPositions: number
  /** Requests per policy.score call of the CPU fallback. */
  readonly batchSize: number
  /** The Deno binary for the child backend (default node_modules/.bin/deno, or $RAGEN_DENO). */
  readonly deno?: string | undefined
}

export const defaultWebGpuOptions: WebGpuScorerOptions = { backend: "auto", maxPositions: 16384, batchSize: 64 }

/** What the scorer reads from a tinylm policy (plugins/tinylm/policy.ts TinyLMPolicy). */
export interface TinyLMView {
  readonly config: ModelConfig
  readonly params: Float32Array
  readonly sharePrefix: boolean
  encodePrompt(prompt: string): Int32Array
  encode(text: string): Int32Array
  /** Changes whenever the weights do. */
  version(): string
}

/**
 * The tinylm policy's weights, config and tokenizer, or why this policy cannot be scored on the
 * GPU. Read by shape (no import of the CPU model, which pulls in its WASM kernels): a policy
 * object with `model.params`, `model.config`, `model.tensors` in GPT's layout and a tokenizer.
 * The version is the policy's `weightsVersion` counter when it has one, else its optimizer step
 * and a 32-bit hash of the weights (a full pass: ≈ 1 ms per million parameters, far below a
 * scoring call), so a checkpoint loaded at the same step is still seen as new weights.
 */
export const tinylmView = (policy: Policy): TinyLMView | { reason: string } => {
  const p = policy as unknown as {
    model?: { params?: unknown; config?: ModelConfig; tensors?: ReadonlyArray<{ name: string; offset: number; size: number }> }
    tokenizer?: { encode?: (s: string) => Int32Array }
    encodePrompt?: (s: string) => Int32Array
    settings?: { sharePrefix?: boolean }
    t?: number
    weightsVersion?: number
  }
  const m = p.model
  if (!m || !(m.params instanceof Float32Array) || !m.config || !m.tensors || typeof p.tokenizer?.encode !== "function" || typeof p.encodePrompt !== "function") {
    return { reason: `policy ${policy.id} has no tinylm weights to run on the GPU` }
  }
  const { slots, total } = parameterLayout(m.config)
  const same = m.tensors.length === slots.size && m.tensors.every((t) => slots.get(t.name)?.offset === t.offset && slots.get(t.name)?.size === t.size)
  if (!same || m.params.length < total) return { reason: `policy ${policy.id}: parameter layout differs from plugins/webgpu/layout.ts` }
  const params = m.params.subarray(0, total)
  const words = new Uint32Array(params.buffer, params.byteOffset, params.length)
  const tok = p.tokenizer
  return {
    config: m.config,
    params,
    sharePrefix: p.settings?.sharePrefix !== false,
    encodePrompt: (s) => p.encodePrompt!.call(policy, s),
    encode: (s) => tok.encode!.call(tok, s),
    version: () => {
      if (typeof p.weightsVersion === "number") return `v${p.weightsVersion}`
      let h = 0x811c9dc5
      for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i]!, 16777619)
      return `t${p.t ?? 0}:${(h >>> 0).toString(16)}`
    }
  }
}

/**
 * Try the backends in order; the first device wins, each miss leaves its reason. With
 * `hardwareOnly` (scorer: auto) a software adapter is a miss too.
 */
export const openBackend = async (choice: BackendChoice, options: WebGpuScorerOptions, hardwareOnly = false): Promise<{ backend?: GpuBackend; reasons: string[] }> => {
  const reasons: string[] = []
  const bo = { maxPositions: options.maxPositions }
  const accept = (b: GpuBackend): boolean => {
    if (!hardwareOnly || !isSoftwareAdapter(b.adapter)) return true
    reasons.push(`${b.via}: adapter ${b.adapter} rejected: a software rasterizer, slower than the CPU scorer (scorer: webgpu uses it anyway)`)
    b.close()
    return false
  }
  if (choice === "auto" || choice === "navigator") {
    const gpu = navigatorGpu()
    if (gpu) {
      const got = await requestDevice(gpu, "navigator.gpu")
      if ("device" in got) {
        const b = new InProcessBackend(got, bo)
        if (accept(b)) return { backend: b, reasons }
        got.device.destroy()
      } else reasons.push(got.reason)
    } else reasons.push("navigator.gpu: this runtime has none")
  }
  const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined
  if ((choice === "auto" && !isDeno) || choice === "dawn") {
    const gpu = await dawnGpu()
    if ("reason" in gpu) reasons.push(gpu.reason)
    else {
      const got = await requestDevice(gpu, "dawn")
      if ("device" in got) {
        const b = new InProcessBackend(got, bo)
        if (accept(b)) return { backend: b, reasons }
        got.device.destroy()
      } else reasons.push(got.reason)
    }
  }
  if ((choice === "auto" && !isDeno) || choice === "deno") {
    const b = await DenoChildBackend.start({ ...bo, deno: options.deno })
    if ("reason" in b) reasons.push(b.reason)
    else if (accept(b)) return { backend: b, reasons }
  }
  return { reasons }
}

export interface WebGpuScorer extends CrossScorer {
  /** "deno child (navigator.gpu) on llvmpipe …", or "cpu (fallback: …)" after a failure. */
  readonly backendName: () => string
  /** Test hook: lose the device (the next call falls back). */
  readonly loseDevice: () => Promise<void>
  /** Score with per-token log-probs too (parity tests). */
  readonly scoreRows: (rows: ReadonlyArray<ScoreRow>) => Promise<{ sum: Float32Array; mean: Float32Array; tokens: Float32Array[] }>
  readonly close: () => void
}

export const makeWebGpuScorer = (policy: Policy, view: TinyLMView, backend: GpuBackend, options: WebGpuScorerOptions, warn: (line: string) => void = (l) => console.error(l)): WebGpuScorer => {
  const cpu = makeCpuScorer(policy, { batchSize: options.batchSize })
  let failed: WebGpuError | undefined
  const name = `${backend.via} on ${backend.adapter}`
  const fail = (e: unknown): WebGpuError => {
    const err = e instanceof GpuFailure ? fromFailure(name, e) : new WebGpuRejected({ backend: name, message: `webgpu: ${(e as Error)?.message ?? String(e)}` })
    failed = err
    warn(`warning: webgpu scorer: ${err._tag}: ${err.message}; scoring continues on the CPU`)
    backend.close()
    return err
  }
  const upload = () => backend.setWeights(view.config, view.params, view.version())
  const gpuScore = async (reasonings: ReadonlyArray<string>, prompts: ReadonlyArray<string>): Promise<CrossScores> => {
    const batch = crossBatch(reasonings, prompts, { ctx: view.config.ctx, sharePrefix: view.sharePrefix, encodePrompt: view.encodePrompt, encode: view.encode })
    await upload()
    const s = await backend.score(batch.rows)
    const L = batch.assemble(s.sum, s.mean)
    for (let i = 0; i < L.sum.length; i++) if (!Number.isFinite(L.sum[i]!)) throw new GpuFailure("validation", `webgpu: a non-finite score (${L.sum[i]}) at entry ${i}`)
    return L
  }
  return {
    id: "webgpu",
    backendName: () => (failed ? `cpu (fallback after ${failed._tag})` : name),
    score: async (reasonings, prompts) => {
      if (failed) return cpu.score(reasonings, prompts)
      try {
        return await gpuScore(reasonings, prompts)
      } catch (e) {
        fail(e)
        return cpu.score(reasonings, prompts)
      }
    },
    loseDevice: () => backend.loseDevice(),
    scoreRows: async (rows) => {
      await upload()
      const s = await backend.score(rows, { tokenLogprobs: true })
      return { sum: s.sum, mean: s.mean, tokens: s.tokens ?? [] }
    },
    close: () => backend.close()
  }
}
