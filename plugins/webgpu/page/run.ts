/**
 * What the browser page runs (and, where a browser has no adapter, what Deno runs in its place):
 * a tinylm checkpoint (safetensors bytes) and a scores request {prompts, reasonings} in, the
 * cross-score matrices out, through the same engine and WGSL kernels as the scorer.
 */
import type { CrossScores } from "../../../core/host.ts"
import { type ModelConfig, Tokenizer, type TokenizerJson } from "../../tinylm/index.ts"
import { decodeCheckpoint } from "./checkpoint.ts"
import { requestDevice } from "../adapter.ts"
import { crossBatch } from "../cross.ts"
import { ForwardEngine } from "../engine.ts"
import { flattenParameters } from "../layout.ts"

export interface ScoresRequest {
  readonly prompts: ReadonlyArray<string>
  readonly reasonings: ReadonlyArray<string>
}

export interface PageResult {
  readonly adapter: string
  readonly scores: { readonly sum: number[]; readonly tokenMean: number[]; readonly rows: number; readonly cols: number }
  readonly ms: number
}

export const scoreRequest = async (gpu: GPU, checkpoint: Uint8Array, request: ScoresRequest): Promise<PageResult> => {
  const file = decodeCheckpoint(checkpoint)
  if (file.metadata.format !== "ragen-bench-tinylm-1") throw new Error(`not a tinylm checkpoint (format ${file.metadata.format ?? "missing"})`)
  const config = JSON.parse(file.metadata.config!) as ModelConfig
  const tok = Tokenizer.fromJson(JSON.parse(file.metadata.tokenizer!) as TokenizerJson)
  const got = await requestDevice(gpu, "navigator.gpu")
  if ("reason" in got) throw new Error(got.reason)
  const t0 = performance.now()
  const engine = await ForwardEngine.create(got.device, config)
  engine.setWeights(flattenParameters(config, file.tensors), "checkpoint")
  // the policy's prompt encoding (policy.ts encodePrompt): an empty prompt is one newline
  const encodePrompt = (p: string) => {
    const t = tok.encode(p)
    return t.length > 0 ? t : Int32Array.of(tok.newline)
  }
  const batch = crossBatch(request.reasonings, request.prompts, { ctx: config.ctx, sharePrefix: true, encodePrompt, encode: (s) => tok.encode(s) })
  const s = await engine.score(batch.rows)
  const L: CrossScores = batch.assemble(s.sum, s.mean)
  const ms = performance.now() - t0
  engine.destroy()
  got.device.destroy()
  return { adapter: got.adapter, scores: { sum: Array.from(L.sum), tokenMean: Array.from(L.tokenMean), rows: L.rows, cols: L.cols }, ms }
}
