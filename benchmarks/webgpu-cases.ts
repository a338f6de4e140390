/**
 * The model and batches that benchmarks/webgpu-vs-torch.ts and webgpu-dispatches.ts share:
 * tinylm `tiny` on FrozenLake's vocabulary with its seed-1 initial weights (`--weights init`, the
 * default: the shapes of benchmarks/webgpu-scoring.ts and docs/decisions.md#issue-29's figures, e.g. stress =
 * 65,536 sequences) or the shipped FrozenLake warm start (`--weights warmstart`: a trained
 * policy repeats its reasonings, so far fewer distinct rows), FrozenLake prompts, the policy's
 * own samples as reasonings, and the cross-scoring rows (plugins/webgpu/cross.ts: every
 * distinct reasoning against every distinct prompt).
 */
import { buildPrompt, parseResponse } from "../core/prompt.ts"
import { Rng } from "../core/rng.ts"
import { projectRoot } from "../core/runtime.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { frozenLakeSpec } from "../envs/frozenlake/env.ts"
import { makeTinyLM, TinyLMOptions } from "../plugins/tinylm/spec.ts"
import { crossBatch } from "../plugins/webgpu/cross.ts"
import type { ScoreRow } from "../plugins/webgpu/layout.ts"
import { modelView } from "../plugins/webgpu/view.ts"
import { join } from "node:path"

const envOptions = decodeSync(frozenLakeSpec.options, { successRate: 1 })
if (!envOptions.ok) throw new Error(envOptions.message)
const argv = typeof process !== "undefined" ? process.argv : []
export const weights = argv.includes("--weights") ? argv[argv.indexOf("--weights") + 1]! : "init"
if (weights !== "init" && weights !== "warmstart") throw new Error(`--weights ${weights}: use init or warmstart`)
const warm = join(projectRoot, "plugins", "tinylm", "warmstarts", "frozenlake-tiny.safetensors")
const tiny = decodeSync(TinyLMOptions, { preset: "tiny", ...(weights === "warmstart" ? { init: warm } : {}) })
if (!tiny.ok) throw new Error(tiny.message)
export const policy = await makeTinyLM(tiny.value, { vocabulary: frozenLakeSpec.vocabulary(envOptions.value), seed: 1 })
const v = modelView(policy)
if ("reason" in v) throw new Error(v.reason)
export const view = v

export const CASES = [
  { key: "tiny", name: "tiny P=4 G=4 x4", P: 4, G: 4, cols: 4 },
  { key: "p8", name: "P=8 G=16", P: 8, G: 16, cols: 8 },
  { key: "p32", name: "P=32 G=8", P: 32, G: 8, cols: 32 },
  { key: "stress", name: "stress 1024x64", P: 64, G: 16, cols: 64 }
] as const

/** P prompts, G samples of each as reasonings, the first `cols` prompts as columns, and the rows. */
export const caseBatch = async (c: { P: number; G: number; cols: number }): Promise<{ prompts: string[]; reasonings: string[]; rows: ScoreRow[] }> => {
  const all = Array.from({ length: c.P }, (_, i) => buildPrompt({ observation: frozenLakeSpec.make(envOptions.value).reset(20000 + i) }))
  const samples = await policy.sample(
    all.flatMap((p) => Array(c.G).fill(p)),
    { temperature: 1, topP: 1, minP: 0, maxTokens: 64 },
    new Rng(c.P * 1000 + c.G)
  )
  const prompts = all.slice(0, c.cols)
  const reasonings = samples.map((s) => parseResponse(s.text).reasoning)
  const rows = crossBatch(reasonings, prompts, { ctx: view.config.ctx, sharePrefix: view.sharePrefix, encodePrompt: view.encodePrompt, encode: view.encode }).rows
  return { prompts, reasonings, rows }
}
