/** Finite-difference helpers for the tinylm kernel tests (float32 kernels, float64 losses). */
import type { LossFn } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/rng.ts"

export const randn = (n: number, rng: Rng, s = 1): Float32Array => {
  const x = new Float32Array(n)
  for (let i = 0; i < n; i++) x[i] = rng.normal() * s
  return x
}

export const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!
  return s
}

/**
 * Max relative error |analytic − numeric| / max(floor, |analytic| + |numeric|) over (up to `limit`)
 * coordinates of x, with central differences of step h.
 */
export const fdMaxRelError = (x: Float32Array, analytic: Float32Array, loss: () => number, h = 1e-2, limit = 64, floor = 1e-2): number => {
  let worst = 0
  const stride = Math.max(1, Math.floor(x.length / limit))
  for (let i = 0; i < x.length; i += stride) {
    const old = x[i]!
    x[i] = old + h
    const up = loss()
    x[i] = old - h
    const down = loss()
    x[i] = old
    const num = (up - down) / (2 * h)
    const err = Math.abs(analytic[i]! - num) / Math.max(floor, Math.abs(analytic[i]!) + Math.abs(num))
    if (err > worst) worst = err
  }
  return worst
}

// a loss that uses all three heads: weighted logprobs, entropy bonus, value regression
export const mixedLoss: LossFn = (fwd) => {
  let loss = 0
  const grads = fwd.map((f, k) => {
    const n = f.logprobs.length
    const dl = new Float32Array(n),
      de = new Float32Array(n),
      dv = new Float32Array(n)
    for (let i = 0; i < n; i++) {
      const w = ((k + i) % 3) - 1
      loss += -w * f.logprobs[i]! - 0.1 * f.entropy[i]! + 0.5 * (f.values[i]! - 1) ** 2
      dl[i] = -w
      de[i] = -0.1
      dv[i] = f.values[i]! - 1
    }
    return { dLogprobs: dl, dEntropy: de, dValues: dv }
  })
  return { loss, grads, stats: {} }
}

/**
 * Whole-model finite-difference check: max relative error between the gradient `g` (a copy of the
 * model's grads after accumulate) and central differences of `loss` on `perTensor` coordinates of
 * every parameter tensor (step h, floor for the relative error).
 */
export const wholeModelFdError = async (
  model: { readonly tensors: ReadonlyArray<{ readonly name: string; readonly offset: number; readonly size: number }>; readonly p: Record<string, Float32Array> },
  g: Float32Array,
  loss: () => Promise<number>,
  o: { readonly h: number; readonly perTensor: number; readonly floor: number }
): Promise<number> => {
  let worst = 0
  for (const t of model.tensors) {
    const x = model.p[t.name]!
    const stride = Math.max(1, Math.floor(t.size / o.perTensor))
    for (let i = 0; i < t.size; i += stride) {
      const old = x[i]!
      x[i] = old + o.h
      const up = await loss()
      x[i] = old - o.h
      const down = await loss()
      x[i] = old
      const num = (up - down) / (2 * o.h),
        ga = g[t.offset + i]!
      worst = Math.max(worst, Math.abs(num - ga) / Math.max(o.floor, Math.abs(num) + Math.abs(ga)))
    }
  }
  return worst
}
