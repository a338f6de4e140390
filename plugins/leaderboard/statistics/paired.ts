/**
 * Paired comparisons against a baseline: runs that share a seed share the warm start, the
 * training instances and the random streams, so a filter's run and the baseline's run of the
 * same seed form a pair, and the per-seed difference removes what the seed contributes. The
 * test and the interval of a comparison are in paired-tests.ts and verdicts.ts; here, the pairing
 * and Holm's step-down procedure over a family (Holm, "A simple sequentially rejective multiple
 * test procedure", Scand. J. Statist. 1979), which controls the chance of any false "separated" at α.
 */
import { checkLevel, checkSample } from "./check.ts"

export interface SeedScore {
  readonly seed: number
  readonly value: number
}

export interface Pairing {
  /** Seeds both sides have, ascending. */
  readonly seeds: number[]
  /** a − b per shared seed, in the order of `seeds`. */
  readonly deltas: number[]
  /** Seeds only one side has (left out of the comparison). */
  readonly onlyA: number[]
  readonly onlyB: number[]
}

/** Pairs two sets of per-seed scores by seed; a seed listed twice on one side is an error. */
export const pairBySeed = (a: ReadonlyArray<SeedScore>, b: ReadonlyArray<SeedScore>): Pairing => {
  const index = (xs: ReadonlyArray<SeedScore>, side: string): Map<number, number> => {
    const m = new Map<number, number>()
    for (const { seed, value } of xs) {
      if (m.has(seed)) throw new RangeError(`pairBySeed: seed ${seed} appears twice on side ${side}`)
      checkSample([value], `pairBySeed: side ${side}, seed ${seed}`)
      m.set(seed, value)
    }
    return m
  }
  const ma = index(a, "a")
  const mb = index(b, "b")
  const seeds = [...ma.keys()].filter((s) => mb.has(s)).sort((x, y) => x - y)
  return {
    seeds,
    deltas: seeds.map((s) => ma.get(s)! - mb.get(s)!),
    onlyA: [...ma.keys()].filter((s) => !mb.has(s)).sort((x, y) => x - y),
    onlyB: [...mb.keys()].filter((s) => !ma.has(s)).sort((x, y) => x - y)
  }
}

export interface HolmResult {
  readonly p: number
  /** Holm-adjusted p: max over ranks j ≤ k of min(1, (m − j)·p_(j)). */
  readonly adjusted: number
  readonly reject: boolean
  /** The coverage at which this comparison's interval is read: 1 − α/(m − k). */
  readonly level: number
}

/** Holm's step-down procedure over p-values (results in input order). */
export const holm = (ps: ReadonlyArray<number>, alpha = 0.05): HolmResult[] => {
  checkLevel(alpha, "holm: alpha")
  if (ps.length === 0) return []
  checkSample(ps, "holm: p-values")
  for (const p of ps) if (p < 0 || p > 1) throw new RangeError(`holm: p-value ${p} is outside [0, 1]`)
  const m = ps.length
  const order = ps.map((_, i) => i).sort((i, j) => ps[i]! - ps[j]! || i - j)
  const out = new Array<HolmResult>(m)
  let running = 0
  let rejecting = true
  order.forEach((i, k) => {
    const p = ps[i]!
    running = Math.max(running, Math.min(1, (m - k) * p))
    rejecting = rejecting && p <= alpha / (m - k)
    out[i] = { p, adjusted: running, reject: rejecting, level: 1 - alpha / (m - k) }
  })
  return out
}
