/** Small statistics shared by the algorithms (mean and unbiased std live in core/stats.ts). */
export { mean, stdUnbiased, varianceUnbiased } from "../../core/host.ts"

/** Whiten in place over all entries of all arrays: (x − mean)/(std + 1e-8), std unbiased (verl masked_whiten). */
export const whitenInPlace = (arrays: ReadonlyArray<Float32Array>): void => {
  let n = 0
  let s = 0
  for (const a of arrays) for (let i = 0; i < a.length; i++) (s += a[i]!), n++
  if (n < 2) return
  const m = s / n
  let v = 0
  for (const a of arrays) for (let i = 0; i < a.length; i++) v += (a[i]! - m) ** 2
  const sd = Math.sqrt(v / (n - 1))
  for (const a of arrays) for (let i = 0; i < a.length; i++) a[i] = (a[i]! - m) / (sd + 1e-8)
}
