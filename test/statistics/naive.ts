/**
 * Deliberately naive, test-only statistics: exact enumeration where the library samples, double
 * loops where it sorts and ranks. Slow and only for tiny inputs; written independently of
 * plugins/leaderboard/statistics so that the tests compare two ways of computing the same thing.
 */

/** Every index tuple of length n over [0, n): the n^n equally likely bootstrap resamples. */
export const allResamples = (n: number): number[][] => {
  let out: number[][] = [[]]
  for (let k = 0; k < n; k++) out = out.flatMap((t) => Array.from({ length: n }, (_, i) => [...t, i]))
  return out
}

/** Exact bootstrap distribution of the mean: atoms (ascending) with their probabilities. */
export const exactBootstrapMean = (xs: number[]): Array<{ value: number; prob: number }> => {
  const tuples = allResamples(xs.length)
  const counts = new Map<string, { value: number; count: number }>()
  for (const t of tuples) {
    let s = 0
    for (const i of t) s += xs[i]!
    const value = s / xs.length
    const key = value.toFixed(12)
    const c = counts.get(key) ?? { value, count: 0 }
    c.count++
    counts.set(key, c)
  }
  return [...counts.values()].sort((a, b) => a.value - b.value).map((c) => ({ value: c.value, prob: c.count / tuples.length }))
}

/** CDF of a discrete distribution at x. */
export const cdf = (atoms: Array<{ value: number; prob: number }>, x: number): number => atoms.filter((a) => a.value <= x + 1e-12).reduce((s, a) => s + a.prob, 0)

/** The smallest atom whose CDF reaches q (the q-quantile of a discrete distribution). */
export const exactQuantile = (atoms: Array<{ value: number; prob: number }>, q: number): number => {
  let c = 0
  for (const a of atoms) {
    c += a.prob
    if (c >= q - 1e-12) return a.value
  }
  return atoms[atoms.length - 1]!.value
}

/** Holm by the textbook loop: walk p ascending, reject while p_(k) ≤ α/(m − k). */
export const naiveHolmRejects = (ps: number[], alpha: number): boolean[] => {
  const m = ps.length
  const sorted = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p)
  const out = ps.map(() => false)
  for (let k = 0; k < m; k++) {
    if (sorted[k]!.p <= alpha / (m - k)) out[sorted[k]!.i] = true
    else break
  }
  return out
}

/** P(X > Y) + ½P(X = Y) by comparing every pair. */
export const naiveProbGreater = (x: number[], y: number[]): number => {
  let s = 0
  for (const a of x) for (const b of y) s += a > b ? 1 : a === b ? 0.5 : 0
  return s / (x.length * y.length)
}

/** Trimmed mean by repeatedly removing the current min and max, ⌊N/4⌋ times. */
export const naiveIqm = (xs: number[]): number => {
  const rest = [...xs]
  const cut = Math.floor(xs.length / 4)
  for (let k = 0; k < cut; k++) {
    rest.splice(rest.indexOf(Math.min(...rest)), 1)
    rest.splice(rest.indexOf(Math.max(...rest)), 1)
  }
  return rest.reduce((a, b) => a + b, 0) / rest.length
}

/**
 * Exact stratified bootstrap distribution of a statistic: every combination of one resample per
 * task (each task's n^n index tuples), all equally likely.
 */
export const exactStratified = (tasks: number[][], statistic: (tasks: number[][]) => number): Array<{ value: number; prob: number }> => {
  let combos: number[][][] = [[]]
  for (const t of tasks) {
    const res = allResamples(t.length).map((idx) => idx.map((i) => t[i]!))
    combos = combos.flatMap((c) => res.map((r) => [...c, r]))
  }
  const counts = new Map<string, { value: number; count: number }>()
  for (const c of combos) {
    const value = statistic(c)
    const key = value.toFixed(12)
    const e = counts.get(key) ?? { value, count: 0 }
    e.count++
    counts.set(key, e)
  }
  return [...counts.values()].sort((a, b) => a.value - b.value).map((e) => ({ value: e.value, prob: e.count / combos.length }))
}

/** Largest gap between the empirical CDF of sorted samples and a discrete distribution's, at its atoms. */
export const ksDistance = (sortedSamples: ArrayLike<number>, atoms: Array<{ value: number; prob: number }>): number => {
  let worst = 0
  for (const a of atoms) {
    let below = 0
    for (let i = 0; i < sortedSamples.length; i++) if (sortedSamples[i]! <= a.value + 1e-12) below++
    worst = Math.max(worst, Math.abs(below / sortedSamples.length - cdf(atoms, a.value)))
  }
  return worst
}
