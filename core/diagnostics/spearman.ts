/**
 * Spearman rank correlation with average ranks for ties (Pearson correlation of the ranks),
 * and a percentile bootstrap interval over resampled pairs, driven by our seeded Rng: the one
 * implementation, used by `ragen-bench analyze` (the paper's Fig. 8: MI proxies vs final success)
 * and by the leaderboard's statistics (plugins/leaderboard/statistics/spearman.ts: its intervals
 * count an undefined resample as 0 instead of leaving it out).
 */
import { Rng } from "../rng.ts"

/** 1-based ranks; tied values share the mean of the ranks they span. */
export const averageRanks = (x: ArrayLike<number>): Float64Array => {
  const n = x.length
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a]! - x[b]! || a - b)
  const ranks = new Float64Array(n)
  let i = 0
  while (i < n) {
    let j = i
    while (j + 1 < n && x[idx[j + 1]!] === x[idx[i]!]) j++
    const r = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) ranks[idx[k]!] = r
    i = j + 1
  }
  return ranks
}

const pearson = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  const n = a.length
  let ma = 0,
    mb = 0
  for (let i = 0; i < n; i++) {
    ma += a[i]!
    mb += b[i]!
  }
  ma /= n
  mb /= n
  let sab = 0,
    saa = 0,
    sbb = 0
  for (let i = 0; i < n; i++) {
    const da = a[i]! - ma
    const db = b[i]! - mb
    sab += da * db
    saa += da * da
    sbb += db * db
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : Number.NaN
}

/** Spearman's ρ; NaN when n < 2 or either side is constant. */
export const spearman = (x: ArrayLike<number>, y: ArrayLike<number>): number => {
  if (x.length !== y.length) throw new RangeError(`spearman: lengths differ (${x.length} vs ${y.length})`)
  if (x.length < 2) return Number.NaN
  return pearson(averageRanks(x), averageRanks(y))
}

export interface BootstrapInterval {
  readonly lo: number
  readonly hi: number
  /** Resamples that gave a defined statistic (constant resamples are left out). */
  readonly valid: number
}

/** The values of `xs` at the indices `idx` (one resample). */
export const pick = (xs: ArrayLike<number>, idx: ArrayLike<number>): Float64Array => {
  const out = new Float64Array(idx.length)
  for (let i = 0; i < idx.length; i++) out[i] = xs[idx[i]!]!
  return out
}

/**
 * The one pair-resampling loop of every Spearman interval (bootstrapSpearman here, and the
 * leaderboard's spearmanInterval and spearmanContrastInterval): B resamples of the n pair indices
 * with replacement, drawn from `rng`, and the statistic of each, in draw order (unsorted). What an
 * undefined statistic counts as is the caller's choice.
 */
export const resamplePairs = (n: number, statistic: (idx: Int32Array) => number, resamples: number, rng: Rng): Float64Array => {
  const out = new Float64Array(resamples)
  const idx = new Int32Array(n)
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) idx[i] = rng.int(n)
    out[b] = statistic(idx)
  }
  return out
}

/** Percentile bootstrap (2.5%, 97.5% by default) of Spearman's ρ over resampled pairs; a constant resample is left out. */
export const bootstrapSpearman = (x: ArrayLike<number>, y: ArrayLike<number>, options: { readonly resamples?: number; readonly seed?: number; readonly level?: number } = {}): BootstrapInterval => {
  const B = options.resamples ?? 1000
  const rng = new Rng(options.seed ?? 12345)
  const level = options.level ?? 0.95
  const n = x.length
  const stats = n >= 2 ? Array.from(resamplePairs(n, (idx) => spearman(pick(x, idx), pick(y, idx)), B, rng)).filter((s) => !Number.isNaN(s)) : []
  if (stats.length === 0) return { lo: Number.NaN, hi: Number.NaN, valid: 0 }
  stats.sort((a, b) => a - b)
  const q = (p: number) => {
    const pos = p * (stats.length - 1)
    const lo = Math.floor(pos)
    const hi = Math.ceil(pos)
    return stats[lo]! + (stats[hi]! - stats[lo]!) * (pos - lo)
  }
  const a = (1 - level) / 2
  return { lo: q(a), hi: q(1 - a), valid: stats.length }
}
