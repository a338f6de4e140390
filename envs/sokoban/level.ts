/**
 * Sokoban levels: layout, state keys and the reverse-play generator.
 *
 * The generator follows gym-sokoban's `generate_room` (mpSchrader/gym-sokoban, envs/room_utils.py),
 * which RAGEN uses, in our own code:
 * 1. Room topology: a random walk of `genSteps` steps (default 1.7·(w+h), as RAGEN passes
 *    `num_gen_steps`) that changes direction w.p. 0.35 and stamps a random small mask of floor
 *    around each position; the border stays wall.
 * 2. Targets and the player at random floor cells; boxes start on the targets (the solved state).
 * 3. Reverse play: a breadth-first search of player moves that may pull a box (the reverse of a
 *    push) up to `searchDepth` moves; keep the most scrambled state (largest total distance of
 *    boxes from the nearest target, ties broken by depth). Each reverse move is a legal forward
 *    move backwards, so the kept level is solvable in at most its depth in moves.
 * Rooms whose best score is 0 are discarded and redrawn (as RAGEN retries on score 0).
 */
import type { Rng } from "../../core/host.ts"

export const WALL = 0
export const FLOOR = 1
export const TARGET = 2

/** Action order of the RAGEN reference (1 Up, 2 Down, 3 Left, 4 Right). */
export const UP = 0
export const DOWN = 1
export const LEFT = 2
export const RIGHT = 3
export const delta = (dim: number, a: number): number => (a === UP ? -dim : a === DOWN ? dim : a === LEFT ? -1 : 1)

export interface Level {
  readonly dim: number
  /** (dim*dim) WALL | FLOOR | TARGET, row-major; the border is wall. */
  readonly tiles: Uint8Array
  /** Box cells, sorted ascending. */
  readonly boxes: ReadonlyArray<number>
  readonly player: number
  /** Moves of the reverse play that built it (an upper bound on the shortest solution). */
  readonly depth: number
}

export interface GeneratorOptions {
  readonly dim: number
  readonly numBoxes: number
  readonly genSteps: number
  readonly searchDepth: number
  /** Safety cap on states the reverse search visits (multi-box rooms). */
  readonly maxStates?: number
}

/** State key: player + N·(sorted boxes in base N), exact below 2^53 for N^(k+1). */
export const stateKey = (n: number, player: number, boxes: ReadonlyArray<number>): number => {
  let k = 0
  for (let i = boxes.length - 1; i >= 0; i--) k = k * n + boxes[i]!
  return k * n + player
}

export const decodeKey = (n: number, key: number, numBoxes: number, outBoxes: number[]): number => {
  const player = key % n
  let rest = (key - player) / n
  for (let i = 0; i < numBoxes; i++) {
    const b = rest % n
    outBoxes[i] = b
    rest = (rest - b) / n
  }
  return player
}

// gym-sokoban's masks (3×3 floor stamps around the walker).
const MASKS: ReadonlyArray<ReadonlyArray<number>> = [
  [0, 0, 0, 1, 1, 1, 0, 0, 0],
  [0, 1, 0, 0, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 1, 1, 0],
  [0, 0, 0, 0, 1, 1, 0, 1, 0]
]
const DIRS: ReadonlyArray<readonly [number, number]> = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1]
]

export const carveRoom = (rng: Rng, dim: number, steps: number, out: Uint8Array): void => {
  out.fill(WALL)
  let [dr, dc] = rng.pick(DIRS)
  let r = rng.range(1, dim - 2)
  let c = rng.range(1, dim - 2)
  for (let s = 0; s < steps; s++) {
    if (rng.float() < 0.35) [dr, dc] = rng.pick(DIRS)
    r = Math.max(1, Math.min(dim - 2, r + dr))
    c = Math.max(1, Math.min(dim - 2, c + dc))
    const mask = rng.pick(MASKS)
    for (let i = 0; i < 9; i++) {
      if (!mask[i]) continue
      const rr = r - 1 + Math.floor(i / 3)
      const cc = c - 1 + (i % 3)
      // The border stays wall, as gym-sokoban zeroes it after the walk.
      if (rr >= 1 && rr <= dim - 2 && cc >= 1 && cc <= dim - 2) out[rr * dim + cc] = FLOOR
    }
  }
}

const sortSmall = (xs: number[]): void => {
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i]!
    let j = i - 1
    while (j >= 0 && xs[j]! > x) {
      xs[j + 1] = xs[j]!
      j--
    }
    xs[j + 1] = x
  }
}

/** Reverse play from the solved state; returns the most scrambled level or null (score 0). */
export const reversePlay = (tiles: Uint8Array, dim: number, targets: ReadonlyArray<number>, player: number, searchDepth: number, maxStates: number): Level | null => {
  const n = dim * dim
  const k = targets.length
  const boxes0 = [...targets]
  sortSmall(boxes0)
  const start = stateKey(n, player, boxes0)
  const depthOf = new Map<number, number>([[start, 0]])
  let frontier = [start]
  let bestKey = start
  let bestScore = 0
  let bestDepth = 0
  const boxes: number[] = new Array(k)
  const moved: number[] = new Array(k)
  const tr = targets.map((t) => Math.floor(t / dim))
  const tc = targets.map((t) => t % dim)
  const scoreOf = (bs: ReadonlyArray<number>): number => {
    let s = 0
    for (const b of bs) {
      const br = Math.floor(b / dim)
      const bc = b % dim
      let m = Infinity
      for (let i = 0; i < k; i++) m = Math.min(m, Math.abs(br - tr[i]!) + Math.abs(bc - tc[i]!))
      s += m
    }
    return s
  }
  for (let depth = 1; depth <= searchDepth && frontier.length > 0 && depthOf.size < maxStates; depth++) {
    const next: number[] = []
    for (const key of frontier) {
      const p = decodeKey(n, key, k, boxes)
      for (let a = 0; a < 4; a++) {
        const d = delta(dim, a)
        const np = p + d
        if (tiles[np] === WALL || boxes.includes(np)) continue
        const behind = p - d
        const bi = boxes.indexOf(behind)
        // Walk without pulling, and (when a box is behind) walk pulling it along.
        for (let pull = 0; pull < (bi >= 0 ? 2 : 1); pull++) {
          for (let i = 0; i < k; i++) moved[i] = boxes[i]!
          if (pull) {
            moved[bi] = p
            sortSmall(moved)
          }
          const nk = stateKey(n, np, moved)
          if (depthOf.has(nk)) continue
          depthOf.set(nk, depth)
          next.push(nk)
          const s = scoreOf(moved)
          if (s > bestScore || (s === bestScore && s > 0 && depth > bestDepth)) {
            bestScore = s
            bestDepth = depth
            bestKey = nk
          }
        }
      }
    }
    frontier = next
  }
  if (bestScore === 0) return null
  const outBoxes: number[] = new Array(k)
  const p = decodeKey(n, bestKey, k, outBoxes)
  return { dim, tiles, boxes: outBoxes, player: p, depth: bestDepth }
}

/** A solvable level; throws RangeError when no room works after many tries (options too tight). */
export const generateLevel = (rng: Rng, o: GeneratorOptions): Level => {
  const n = o.dim * o.dim
  const maxStates = o.maxStates ?? 200_000
  for (let attempt = 0; attempt < 1000; attempt++) {
    const tiles = new Uint8Array(n)
    carveRoom(rng, o.dim, o.genSteps, tiles)
    const floor: number[] = []
    for (let i = 0; i < n; i++) if (tiles[i] === FLOOR) floor.push(i)
    if (floor.length < o.numBoxes + 2) continue
    // Partial shuffle: the first numBoxes cells are targets, the next one the player.
    for (let i = 0; i <= o.numBoxes; i++) {
      const j = i + rng.int(floor.length - i)
      const t = floor[i]!
      floor[i] = floor[j]!
      floor[j] = t
    }
    const targets = floor.slice(0, o.numBoxes)
    for (const t of targets) tiles[t] = TARGET
    const level = reversePlay(tiles, o.dim, targets, floor[o.numBoxes]!, o.searchDepth, maxStates)
    if (level) return level
  }
  throw new RangeError(`sokoban: no solvable level found for dim ${o.dim}, numBoxes ${o.numBoxes}, searchDepth ${o.searchDepth}; raise dim or searchDepth, or lower numBoxes`)
}

/** A level from rows of gym-sokoban symbols (# _ O X √ P S), for tests and hand-made puzzles. */
export const levelFromRows = (rows: ReadonlyArray<string>): Level => {
  const dim = rows.length
  const tiles = new Uint8Array(dim * dim)
  const boxes: number[] = []
  let player = -1
  for (let r = 0; r < dim; r++) {
    const cells = [...rows[r]!.replace(/\s+/g, "")]
    if (cells.length !== dim) throw new RangeError(`levelFromRows: row ${r} has ${cells.length} cells, expected ${dim}`)
    cells.forEach((ch, c) => {
      const i = r * dim + c
      tiles[i] = ch === "#" ? WALL : ch === "O" || ch === "√" || ch === "S" ? TARGET : FLOOR
      if (ch === "X" || ch === "√") boxes.push(i)
      if (ch === "P" || ch === "S") player = i
    })
  }
  if (player < 0) throw new RangeError("levelFromRows: no player (P or S)")
  return { dim, tiles, boxes, player, depth: 0 }
}
