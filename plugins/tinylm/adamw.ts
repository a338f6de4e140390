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

/**
 * The AdamW update of one tensor (four views of one length), bias corrections bc1, bc2 given: the
 * spec of the kernel adamw_update (kernels/wasm/pointwise.c), which computes these bits natively.
 * Float64 arithmetic; a moment is stored rounded to float32 but used unrounded in this step.
 */
export function adamwUpdate(
  params: Float32Array,
  grads: Float32Array,
  m: Float32Array,
  v: Float32Array,
  lr: number,
  beta1: number,
  beta2: number,
  eps: number,
  wd: number,
  bc1: number,
  bc2: number,
  gradScale: number
): void {
  for (let i = 0; i < params.length; i++) {
    const g = grads[i]! * gradScale
    const mi = (m[i] = beta1 * m[i]! + (1 - beta1) * g)
    const vi = (v[i] = beta2 * v[i]! + (1 - beta2) * g * g)
    const mhat = mi / bc1
    const vhat = vi / bc2
    params[i] = params[i]! - lr * (mhat / (Math.sqrt(vhat) + eps) + wd * params[i]!)
  }
}

/** One AdamW step at step t (1-based) with gradients scaled by `gradScale` (clipping); `update` runs each tensor's update. */
export function adamwStep(
  params: Float32Array,
  grads: Float32Array,
  m: Float32Array,
  v: Float32Array,
  tensors: ReadonlyArray<TensorInfo>,
  lr: number,
  t: number,
  gradScale: number,
  c: AdamWConfig,
  update: typeof adamwUpdate = adamwUpdate
): void {
  const bc1 = 1 - Math.pow(c.beta1, t)
  const bc2 = 1 - Math.pow(c.beta2, t)
  for (const ts of tensors) {
    const wd = DECAYED.has(ts.name) ? c.weightDecay : 0
    const s = ts.offset,
      e = ts.offset + ts.size
    update(params.subarray(s, e), grads.subarray(s, e), m.subarray(s, e), v.subarray(s, e), lr, c.beta1, c.beta2, c.eps, wd, bc1, bc2, gradScale)
  }
}
