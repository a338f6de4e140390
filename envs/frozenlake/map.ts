/**
 * FrozenLake maps, their generator and transition table.
 *
 * Actions are gymnasium's order: 0 Left, 1 Down, 2 Right, 3 Up. A move off the grid keeps the
 * player in place (gymnasium toy_text/frozen_lake.py `inc`). Slipperiness follows gymnasium's
 * `success_rate` rule: the intended move w.p. s, each perpendicular move ((a−1) mod 4 and
 * (a+1) mod 4) w.p. (1−s)/2. Holes and the goal are absorbing.
 */
import type { Rng } from "../../core/host.ts"

export const FROZEN = 0
export const HOLE = 1
export const GOAL = 2

export const LEFT = 0
export const DOWN = 1
export const RIGHT = 2
export const UP = 3
const DR = [0, 1, 0, -1] as const
const DC = [-1, 0, 1, 0] as const

export interface LakeMap {
  readonly size: number
  /** (size*size) FROZEN | HOLE | GOAL, row-major. */
  readonly tiles: Uint8Array
  readonly start: number
  readonly goal: number
}

/** The cell reached by a deterministic move (walls keep the player in place). */
export const moveCell = (size: number, cell: number, a: number): number => {
  const r = Math.floor(cell / size) + DR[a]!
  const c = (cell % size) + DC[a]!
  return r < 0 || r >= size || c < 0 || c >= size ? cell : r * size + c
}

/** Parse "SFFF,FHFH,FFFH,HFFG" (rows by commas; S start, F frozen, H hole, G goal). */
export const parseMap = (text: string): LakeMap | string => {
  const rows = text.split(",").map((r) => r.trim().toUpperCase())
  const size = rows.length
  if (size < 2 || size > 10) return `map must have 2..10 rows, got ${size}`
  const tiles = new Uint8Array(size * size)
  let start = -1
  let goal = -1
  for (let r = 0; r < size; r++) {
    const row = rows[r]!
    if (row.length !== size) return `map row ${r + 1} ("${row}") has ${row.length} tiles; the map must be square (${size}×${size})`
    for (let c = 0; c < size; c++) {
      const ch = row[c]!
      const i = r * size + c
      if (ch === "S") {
        if (start >= 0) return "map has more than one S (start)"
        start = i
      } else if (ch === "G") {
        if (goal >= 0) return "map has more than one G (goal)"
        goal = i
        tiles[i] = GOAL
      } else if (ch === "H") tiles[i] = HOLE
      else if (ch !== "F") return `map tile "${ch}" at row ${r + 1} is not one of S F H G`
    }
  }
  if (start < 0 || goal < 0) return "map needs exactly one S (start) and one G (goal)"
  return { size, tiles, start, goal }
}

export const mapRows = (m: LakeMap): string => {
  const rows: string[] = []
  for (let r = 0; r < m.size; r++) {
    let s = ""
    for (let c = 0; c < m.size; c++) {
      const i = r * m.size + c
      s += i === m.start ? "S" : m.tiles[i] === HOLE ? "H" : m.tiles[i] === GOAL ? "G" : "F"
    }
    rows.push(s)
  }
  return rows.join(",")
}

/** BFS shortest deterministic path (action list) from `from` to the goal avoiding holes; null if none. */
export const shortestPath = (m: LakeMap, from: number): number[] | null => {
  const n = m.size * m.size
  if (from === m.goal) return []
  const prev = new Int32Array(n).fill(-1)
  const how = new Int8Array(n)
  const queue = new Int32Array(n)
  let head = 0
  let tail = 0
  queue[tail++] = from
  prev[from] = from
  while (head < tail) {
    const u = queue[head++]!
    for (let a = 0; a < 4; a++) {
      const v = moveCell(m.size, u, a)
      if (prev[v] !== -1 || m.tiles[v] === HOLE) continue
      prev[v] = u
      how[v] = a
      if (v === m.goal) {
        const path: number[] = []
        for (let x = v; x !== from; x = prev[x]!) path.push(how[x]!)
        return path.reverse()
      }
      queue[tail++] = v
    }
  }
  return null
}

/**
 * Random map as the RAGEN reference's `generate_random_map`: each tile frozen w.p. `p`,
 * start and goal at two distinct random cells, resampled until a path exists (BFS).
 */
export const generateMap = (rng: Rng, size: number, p: number): LakeMap => {
  const n = size * size
  for (;;) {
    const tiles = new Uint8Array(n)
    for (let i = 0; i < n; i++) tiles[i] = rng.float() < p ? FROZEN : HOLE
    const start = rng.int(n)
    let goal = rng.int(n - 1)
    if (goal >= start) goal++
    tiles[start] = FROZEN
    tiles[goal] = GOAL
    const m = { size, tiles, start, goal }
    if (shortestPath(m, start) !== null) return m
  }
}

/**
 * Gymnasium-style P[s][a] as flat arrays: outcome k ∈ {0 intended, 1 (a−1) mod 4, 2 (a+1) mod 4}
 * of action a in state s lives at index (s*4 + a)*3 + k. Absorbing states (hole, goal) map to
 * themselves with probability 1 and reward 0.
 */
export interface TransitionTable {
  readonly n: number
  readonly prob: Float64Array
  readonly next: Int32Array
  readonly reward: Float64Array
  readonly terminated: Uint8Array
}

export const transitionTable = (map: LakeMap | string, successRate: number): TransitionTable => {
  const m = typeof map === "string" ? parseMap(map) : map
  if (typeof m === "string") throw new RangeError(`transitionTable: ${m}`)
  if (!(successRate >= 0 && successRate <= 1)) throw new RangeError(`transitionTable: successRate must be in [0, 1], got ${successRate}`)
  const n = m.size * m.size
  const prob = new Float64Array(n * 12)
  const next = new Int32Array(n * 12)
  const reward = new Float64Array(n * 12)
  const terminated = new Uint8Array(n * 12)
  const side = (1 - successRate) / 2
  for (let s = 0; s < n; s++) {
    for (let a = 0; a < 4; a++) {
      const base = (s * 4 + a) * 3
      if (m.tiles[s] !== FROZEN) {
        prob[base] = 1
        for (let k = 0; k < 3; k++) {
          next[base + k] = s
          terminated[base + k] = 1
        }
        continue
      }
      const dirs = [a, (a + 3) % 4, (a + 1) % 4]
      for (let k = 0; k < 3; k++) {
        const t = moveCell(m.size, s, dirs[k]!)
        prob[base + k] = k === 0 ? successRate : side
        next[base + k] = t
        reward[base + k] = m.tiles[t] === GOAL ? 1 : 0
        terminated[base + k] = m.tiles[t] === FROZEN ? 0 : 1
      }
    }
  }
  return { n, prob, next, reward, terminated }
}
