/**
 * Exact Sokoban solver: breadth-first search over (player, boxes) states with moves as edges,
 * so the first solved state found gives a shortest solution in moves. Used by tests (every
 * generated level is solvable) and by the teacher (its plan). `maxStates` bounds the work;
 * `null` means unsolvable (dead state) or, when `exhausted` is false, over the bound.
 */
import { decodeKey, delta, stateKey, TARGET, WALL } from "./level.ts"

export interface Solution {
  /** Shortest move sequence (action indices, 0 Up 1 Down 2 Left 3 Right), or null. */
  readonly moves: number[] | null
  /** True when the search space was fully explored (a null is then a proof of unsolvability). */
  readonly exhausted: boolean
  readonly visited: number
}

const allOnTargets = (tiles: Uint8Array, boxes: ReadonlyArray<number>): boolean => {
  for (const b of boxes) if (tiles[b] !== TARGET) return false
  return true
}

export const solve = (dim: number, tiles: Uint8Array, boxes0: ReadonlyArray<number>, player0: number, maxStates = 500_000): Solution => {
  const n = dim * dim
  const k = boxes0.length
  const sorted = [...boxes0].sort((a, b) => a - b)
  if (allOnTargets(tiles, sorted)) return { moves: [], exhausted: true, visited: 1 }
  const start = stateKey(n, player0, sorted)
  // parent key and move per visited state, for path reconstruction
  const parent = new Map<number, number>([[start, -1]])
  const how = new Map<number, number>()
  let frontier = [start]
  const boxes: number[] = new Array(k)
  const moved: number[] = new Array(k)
  while (frontier.length > 0) {
    const next: number[] = []
    for (const key of frontier) {
      const p = decodeKey(n, key, k, boxes)
      for (let a = 0; a < 4; a++) {
        const d = delta(dim, a)
        const np = p + d
        if (tiles[np] === WALL) continue
        for (let i = 0; i < k; i++) moved[i] = boxes[i]!
        const bi = boxes.indexOf(np)
        if (bi >= 0) {
          const nb = np + d
          if (tiles[nb] === WALL || boxes.includes(nb)) continue
          moved[bi] = nb
          moved.sort((x, y) => x - y)
        }
        const nk = stateKey(n, np, moved)
        if (parent.has(nk)) continue
        parent.set(nk, key)
        how.set(nk, a)
        if (bi >= 0 && allOnTargets(tiles, moved)) {
          const path: number[] = []
          for (let x = nk; x !== start; x = parent.get(x)!) path.push(how.get(x)!)
          return { moves: path.reverse(), exhausted: false, visited: parent.size }
        }
        next.push(nk)
      }
      if (parent.size > maxStates) return { moves: null, exhausted: false, visited: parent.size }
    }
    frontier = next
  }
  return { moves: null, exhausted: true, visited: parent.size }
}
