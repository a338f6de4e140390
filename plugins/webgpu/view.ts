/**
 * A policy as the WGSL forward sees it, from the policy's own typed capability
 * (core/contracts/policy.ts `exportForScoring`): a GPT-2 config, the flat parameters in
 * layout.ts's order, the tokenizer and a version that changes with the weights.
 * The parameters are a view of the policy's own buffer when its tensors already sit there in
 * that order (tinylm's do: no copy); otherwise they are gathered into a copy once per version.
 */
import type { Policy, ScoringExport } from "../../core/contracts/index.ts"
import { checkConfig, type ModelConfig } from "../tinylm/index.ts"
import { parameterLayout } from "./layout.ts"

export interface ModelView {
  readonly config: ModelConfig
  readonly sharePrefix: boolean
  /** The flat parameters of the current version (parameterLayout order). */
  params(): Float32Array
  encodePrompt(prompt: string): Int32Array
  encode(text: string): Int32Array
  /** Changes whenever the weights do. */
  version(): string
}

const SIZES = ["vocab", "ctx", "d", "layers", "heads"] as const

const configOf = (x: ScoringExport): ModelConfig | string => {
  const c: Record<string, number> = {}
  for (const k of SIZES) {
    const v = x.config[k]
    if (!Number.isInteger(v)) return `config.${k} is ${v}, not an integer`
    c[k] = v!
  }
  const config = c as unknown as ModelConfig
  const bad = checkConfig(config)
  return bad ? `config.${bad.field}: ${bad.message}` : config
}

/** The flat parameters without a copy, when every tensor is a view of one buffer at its layout offset. */
const inPlace = (x: ScoringExport, config: ModelConfig): Float32Array | undefined => {
  const { slots, total } = parameterLayout(config)
  const first = x.weights.get("wte")
  if (!first) return undefined
  for (const s of slots.values()) {
    const t = x.weights.get(s.name)!
    if (t.buffer !== first.buffer || t.byteOffset - first.byteOffset !== s.offset * 4) return undefined
  }
  if (first.byteOffset + total * 4 > first.buffer.byteLength) return undefined
  return new Float32Array(first.buffer, first.byteOffset, total)
}

/** The view, or why this policy cannot run on the GPU (one line). */
export const modelView = (policy: Policy): ModelView | { reason: string } => {
  const x = policy.exportForScoring?.()
  if (!x) return { reason: `policy ${policy.id} exports no weights for scoring (Policy.exportForScoring)` }
  if (x.architecture !== "gpt2") return { reason: `policy ${policy.id}: architecture "${x.architecture}" is not the WGSL forward's (gpt2)` }
  const config = configOf(x)
  if (typeof config === "string") return { reason: `policy ${policy.id}: ${config}` }
  const { slots, total } = parameterLayout(config)
  for (const s of slots.values()) {
    const n = x.weights.get(s.name)?.length
    if (n !== s.size) return { reason: `policy ${policy.id}: tensor ${s.name} has ${n ?? "no"} values, the gpt2 layout needs ${s.size}` }
  }
  const direct = inPlace(x, config)
  let copy: { version: string; params: Float32Array } | undefined
  return {
    config,
    sharePrefix: x.sharePrefix,
    encodePrompt: (s) => x.encodePrompt(s),
    encode: (s) => x.encode(s),
    version: () => x.version(),
    params: () => {
      if (direct) return direct
      const v = x.version()
      if (copy?.version !== v) {
        const flat = new Float32Array(total)
        for (const s of slots.values()) flat.set(x.weights.get(s.name)!, s.offset)
        copy = { version: v, params: flat }
      }
      return copy.params
    }
  }
}
