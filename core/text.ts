/** Small text helpers shared by error messages. */

/** Damerau–Levenshtein distance (optimal string alignment): a swap of two letters costs 1. */
export const editDistance = (a: string, b: string): number => {
  const m = a.length,
    n = b.length
  const d: number[][] = Array.from({ length: m + 1 }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[m]![n]!
}

/** The candidate closest to `word` (case-insensitive), when it is close enough to be a likely typo. */
export const nearest = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestD = Infinity
  for (const c of candidates) {
    const dist = editDistance(word.toLowerCase(), c.toLowerCase())
    if (dist < bestD) (best = c), (bestD = dist)
  }
  const limit = Math.max(2, Math.floor(word.length / 3))
  if (best !== undefined && bestD <= limit) return best
  // A shortened key ("clip" for clipLow): the first candidate it begins.
  const w = word.toLowerCase()
  return w.length >= 3 ? [...candidates].sort().find((c) => c.toLowerCase().startsWith(w)) : undefined
}

/** Strip control and escape sequences from text bound for a terminal. */
export const terminalSafe = (s: string): string => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "?")
