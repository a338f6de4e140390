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
import { isSoftwareAdapter, navigatorGpu, requestDevice } from "./adapter.ts"
import { type GpuBackend, InProcessBackend } from "./backend.ts"
import { DenoChildBackend } from "./child.ts"
import { dawnGpu } from "./dawn.ts"
import { probeWebGpu } from "./doctor.ts"
import { GpuFailure } from "./engine.ts"
import { fromFailure, WebGpuRejected, type WebGpuError } from "./errors.ts"
import { crossBatch } from "./cross.ts"
import type { ScoreRow } from "./layout.ts"
import { FUSE_DEFAULT, type Fuse, TILE_DEFAULT, type Tile } from "./plan.ts"
import { gpuForward } from "./teacher.ts"
import { type ModelView, modelView } from "./view.ts"

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
  /** plan.ts's dispatch list (default epilogues; benchmarks compare the others). */
  readonly fuse?: Fuse
  /** plan.ts's matmul tile edge (default 64). */
  readonly tile?: Tile
}

export const defaultWebGpuOptions: WebGpuScorerOptions = { backend: "auto", maxPositions: 16384, batchSize: 64 }

/**
 * Try the backends in order; the first device wins, each miss leaves its reason. With
 * `hardwareOnly` (scorer: auto) a software adapter is a miss too. When none is taken, the
 * adapter probe (doctor.ts) says why in one line and names the fix.
 */
export const openBackend = async (choice: BackendChoice, options: WebGpuScorerOptions, hardwareOnly = false): Promise<{ backend?: GpuBackend; reasons: string[]; diagnosis?: string }> => {
  const got = await tryBackends(choice, options, hardwareOnly)
  if (got.backend) return got
  return { ...got, diagnosis: (await probeWebGpu({ deno: options.deno })).line }
}

const tryBackends = async (choice: BackendChoice, options: WebGpuScorerOptions, hardwareOnly: boolean): Promise<{ backend?: GpuBackend; reasons: string[] }> => {
  const reasons: string[] = []
  const bo = { maxPositions: options.maxPositions, fuse: options.fuse ?? FUSE_DEFAULT, tile: options.tile ?? TILE_DEFAULT }
  const accept = (b: GpuBackend): boolean => {
    if (!hardwareOnly || !isSoftwareAdapter(b.adapter)) return true
    reasons.push(`${b.via}: adapter ${b.adapter} rejected: a software rasterizer, slower than the CPU scorer (scorer: webgpu uses it anyway)`)
    b.close()
    return false
  }
  const inProcess = async (gpu: GPU, via: "navigator.gpu" | "dawn"): Promise<GpuBackend | undefined> => {
    const got = await requestDevice(gpu, via)
    if (!("device" in got)) return void reasons.push(got.reason)
    const b = new InProcessBackend(got, bo)
    if (accept(b)) return b
    got.device.destroy()
    return undefined
  }
  if (choice === "auto" || choice === "navigator") {
    const gpu = navigatorGpu()
    const b = gpu ? await inProcess(gpu, "navigator.gpu") : void reasons.push("navigator.gpu: this runtime has none")
    if (b) return { backend: b, reasons }
  }
  const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined
  if ((choice === "auto" && !isDeno) || choice === "dawn") {
    const gpu = await dawnGpu()
    const b = "reason" in gpu ? void reasons.push(gpu.reason) : await inProcess(gpu, "dawn")
    if (b) return { backend: b, reasons }
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
  readonly forward: NonNullable<CrossScorer["forward"]>
}

/** The scorer on `backend`; `cpu` (the registry's CPU scorer for the same policy) answers after a GPU failure. */
export const makeWebGpuScorer = (view: ModelView, backend: GpuBackend, cpu: CrossScorer, warn: (line: string) => void = (l) => console.error(l)): WebGpuScorer => {
  let failed: WebGpuError | undefined
  const name = `${backend.via} on ${backend.adapter}`
  const fail = (e: unknown): WebGpuError => {
    const err = e instanceof GpuFailure ? fromFailure(name, e) : new WebGpuRejected({ backend: name, message: `webgpu: ${(e as Error)?.message ?? String(e)}` })
    failed = err
    warn(`warning: webgpu scorer: ${err._tag}: ${err.message}; scoring continues on the CPU`)
    backend.close()
    return err
  }
  const upload = () => backend.setWeights(view.config, view.params(), view.version())
  // teacher forcing runs whichever policy it is given (the live one, the KL reference): a view each
  const views = new WeakMap<Policy, ModelView | null>()
  const viewOf = (p: Policy): ModelView | undefined => {
    if (!views.has(p)) {
      const v = modelView(p)
      views.set(p, "reason" in v ? null : v)
    }
    return views.get(p) ?? undefined
  }
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
    forward: async (policy, items) => {
      const v = failed ? undefined : viewOf(policy)
      if (!v) return undefined
      try {
        return await gpuForward(v, backend, items)
      } catch (e) {
        fail(e)
        return undefined
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
