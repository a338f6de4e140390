/** Small statistics shared by the algorithms and the trainer. */

export const mean = (xs: ArrayLike<number>): number => {
  if (xs.length === 0) return 0
  let s = 0
  for (let i = 0; i < xs.length; i++) s += xs[i]!
  return s / xs.length
}

/** Unbiased (n − 1) standard deviation, as torch.std and the RAGEN reference code use; 0 for n < 2. */
export const stdUnbiased = (xs: ArrayLike<number>): number => {
  const n = xs.length
  if (n < 2) return 0
  const m = mean(xs)
  let s = 0
  for (let i = 0; i < n; i++) s += (xs[i]! - m) ** 2
  return Math.sqrt(s / (n - 1))
}

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
