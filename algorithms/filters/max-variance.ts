/**
 * The size-m subset of a group's returns with the largest variance, used by `within-group`
 * and `pods`. For a fixed m the maximising subset is always the j lowest plus the m−j highest
 * returns for some j (PODS, Xu et al. 2025, "max-variance down-sampling"), so we search j in
 * 0..m with running sums: O(G log G).
 */

/** Trajectory indices (ascending) of the max-variance subset of size m; ties: smallest j. */
export const maxVarianceSubset = (returns: ReadonlyArray<number>, m: number): number[] => {
  const G = returns.length
  if (m >= G) return returns.map((_, i) => i)
  if (m <= 0) return []
  const order = returns.map((_, i) => i).sort((a, b) => returns[a]! - returns[b]! || a - b)
  const v = order.map((i) => returns[i]!)
  // Prefix sums of values and squares over the ascending order.
  const s = new Float64Array(G + 1)
  const q = new Float64Array(G + 1)
  for (let i = 0; i < G; i++) {
    s[i + 1] = s[i]! + v[i]!
    q[i + 1] = q[i]! + v[i]! * v[i]!
  }
  let bestJ = 0
  let best = -Infinity
  for (let j = 0; j <= m; j++) {
    const hi = m - j
    const sum = s[j]! + (s[G]! - s[G - hi]!)
    const sq = q[j]! + (q[G]! - q[G - hi]!)
    const ss = sq - (sum * sum) / m // m·(population variance); same argmax as any variance
    if (ss > best + 1e-12) {
      best = ss
      bestJ = j
    }
  }
  const picked = [...order.slice(0, bestJ), ...order.slice(G - (m - bestJ))]
  return picked.sort((a, b) => a - b)
}
