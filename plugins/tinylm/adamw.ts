/**
 * AdamW (Loshchilov & Hutter 2019; torch.optim.AdamW semantics): decoupled weight decay on
 * matrices only, bias-corrected moments, one flat loop per tensor. Global-norm clipping as
 * torch.nn.utils.clip_grad_norm_ (coef = max / (norm + 1e-6), capped at 1).
 */
import { DECAYED } from "./config.ts"
import type { TensorInfo } from "./model.ts"

export interface AdamWConfig {
  readonly beta1: number
  readonly beta2: number
  readonly eps: number
  readonly weightDecay: number
}

export type LrSchedule = { readonly kind: "constant" } | { readonly kind: "cosine"; readonly warmupSteps: number; readonly totalSteps: number; readonly minLrRatio: number }

/** Multiplier of the base lr at optimizer step t (1-based): linear warmup, then cosine to minLrRatio (nanoGPT get_lr). */
export const lrFactor = (s: LrSchedule, t: number): number => {
  if (s.kind === "constant") return 1
  if (t <= s.warmupSteps) return t / Math.max(1, s.warmupSteps)
  if (t >= s.totalSteps) return s.minLrRatio
  const progress = (t - s.warmupSteps) / Math.max(1, s.totalSteps - s.warmupSteps)
  return s.minLrRatio + (1 - s.minLrRatio) * 0.5 * (1 + Math.cos(Math.PI * progress))
}

/** Global L2 norm of `grads` (float64 sum). */
export const globalNorm = (grads: Float32Array): number => {
  let s = 0
  for (let i = 0; i < grads.length; i++) s += grads[i]! * grads[i]!
  return Math.sqrt(s)
}

/** One AdamW step at step t (1-based) with gradients scaled by `gradScale` (clipping). */
export function adamwStep(
  params: Float32Array,
  grads: Float32Array,
  m: Float32Array,
  v: Float32Array,
  tensors: ReadonlyArray<TensorInfo>,
  lr: number,
  t: number,
  gradScale: number,
  c: AdamWConfig
): void {
  const bc1 = 1 - Math.pow(c.beta1, t)
  const bc2 = 1 - Math.pow(c.beta2, t)
  for (const ts of tensors) {
    const wd = DECAYED.has(ts.name) ? c.weightDecay : 0
    const end = ts.offset + ts.size
    for (let i = ts.offset; i < end; i++) {
      const g = grads[i]! * gradScale
      const mi = (m[i] = c.beta1 * m[i]! + (1 - c.beta1) * g)
      const vi = (v[i] = c.beta2 * v[i]! + (1 - c.beta2) * g * g)
      const mhat = mi / bc1
      const vhat = vi / bc2
      params[i] = params[i]! - lr * (mhat / (Math.sqrt(vhat) + c.eps) + wd * params[i]!)
    }
  }
}
