/**
 * Sokoban (sokoban-v1), text version of gym-sokoban as RAGEN uses it.
 *
 * Description: push every box onto a target in a small room. Levels are generated per seed by
 *   reverse play (envs/sokoban/level.ts), so every level is solvable.
 * Actions: Up, Down, Left, Right (case-insensitive; the RAGEN reference's numbers 1..4 in that
 *   order and "1 (Up)" are accepted too). Walking into a wall or pushing a box into a wall or
 *   another box leaves the state unchanged (the step still costs −0.1, as in gym-sokoban).
 * Observation: the grid as RAGEN renders it (ragen/env/sokoban/env.py `_render_text('grid')` with
 *   config.py's grid_lookup: each cell " # ", rows on their own lines) with symbols # wall,
 *   _ floor, O target, X box, √ box on target, P player, S player on target; a legend line and
 *   the action line; a first line "no valid action was taken" after an action that did not parse.
 * Start: the generated level (player, boxes off their targets).
 * Rewards (gym-sokoban exactly): −0.1 per step, +1 when a box is pushed onto a target, −1 when
 *   a box is pushed off one, +10 when all boxes are on targets. Unparsed actions get 0 here;
 *   the rollout applies the format penalty.
 * Episode end: terminated when all boxes are on targets (success); the harness truncates after
 *   `actionBudget` actions (core/env/time-limit.ts).
 * Arguments: dim (6), numBoxes (1), searchDepth (300, gym-sokoban/RAGEN's reverse-play depth),
 *   maxSolutionSteps (5 = maxTurns: one action per turn, so reverse play stops at this depth and
 *   every level is solvable within the turns — at 10, the action budget, only about 20% of levels
 *   can be solved in 5 turns; 0 = no cap), genSteps (0 = 1.7·2·dim as RAGEN).
 * Version history: v1 — first version.
 */
import { Schema } from "effect"
import type { Env, EnvSpec, ReasoningGrade, StepResult, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import { derive, type Rng, withDefault as dflt } from "../../core/host.ts"
import { makeActionParser } from "../common/actions.ts"
import { DIGITS, vocabularyOf } from "../common/text.ts"
import { delta, generateLevel, stateKey, TARGET, WALL, type GeneratorOptions, type Level } from "./level.ts"
import { solve } from "./solver.ts"
import { ACTIONS, gradeSokoban, teachSokoban, TEACHER_WORDS, type BoardView } from "./teacher.ts"

const IntIn = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

export const SokobanOptions = Schema.Struct({
  /** Room side (square rooms, border included). */
  dim: dflt(IntIn(5, 10), 6),
  numBoxes: dflt(IntIn(1, 4), 1),
  /** Reverse-play search depth (gym-sokoban / RAGEN: 300). */
  searchDepth: dflt(IntIn(1, 10_000), 300),
  /** Longest solution a level may need (0 = no cap); default = maxTurns (one action per turn). */
  maxSolutionSteps: dflt(IntIn(0, 10_000), 5),
  /** Random-walk steps of the room carver; 0 = round(1.7·(dim + dim)). */
  genSteps: dflt(IntIn(0, 10_000), 0)
})
export type SokobanOptions = typeof SokobanOptions.Type

/** What teachers and graders need. */
export interface SokobanState {
  /** Room rows joined by commas: # wall, _ floor, O target (boxes and player not drawn). */
  readonly room: string
  readonly boxes: ReadonlyArray<readonly [number, number]>
  readonly player: readonly [number, number]
}

export const MAX_TURNS = 5
export const ACTION_BUDGET = 10
// gym-sokoban SokobanEnv: penalty_for_step, penalty_box_off_target, reward_box_on_target, reward_finished
export const REWARD_STEP = -0.1
export const REWARD_BOX_OFF = -1
export const REWARD_BOX_ON = 1
export const REWARD_FINISHED = 10

const INVALID_LINE = "no valid action was taken"
const LEGEND = "# wall _ floor O target X box √ box on target P player S player on target"
const ACTION_LINE = "actions Up Down Left Right"
const parseAction = makeActionParser(ACTIONS)

export const generatorOptions = (o: SokobanOptions): GeneratorOptions => ({
  dim: o.dim,
  numBoxes: o.numBoxes,
  genSteps: o.genSteps > 0 ? o.genSteps : Math.round(1.7 * (o.dim + o.dim)),
  searchDepth: o.maxSolutionSteps > 0 ? Math.min(o.searchDepth, o.maxSolutionSteps) : o.searchDepth
})

export class SokobanEnv implements Env<SokobanState> {
  readonly id = "sokoban-v1"
  private readonly gen: GeneratorOptions
  private dim = 0
  private tiles: Uint8Array = new Uint8Array(0)
  private boxAt: Uint8Array = new Uint8Array(0)
  private player = 0
  private onTarget = 0
  private numBoxes = 0
  private terminated = false
  /** Teacher plans by state key, filled along each solved path and cleared on reset. */
  private plans = new Map<number, number[]>()

  constructor(options: SokobanOptions) {
    this.gen = generatorOptions(options)
    this.reset(0)
  }

  get done(): boolean {
    return this.terminated
  }

  reset(seed: number): string {
    return this.load(generateLevel(derive(seed, "sokoban", "level"), this.gen))
  }

  /** Start an episode on a given level (hand-made puzzles, tests); returns the observation. */
  load(level: Level): string {
    this.dim = level.dim
    this.tiles = level.tiles
    this.boxAt = new Uint8Array(level.tiles.length)
    this.onTarget = 0
    for (const b of level.boxes) {
      this.boxAt[b] = 1
      if (this.tiles[b] === TARGET) this.onTarget++
    }
    this.numBoxes = level.boxes.length
    this.player = level.player
    this.terminated = false
    this.plans.clear()
    return this.observe(true)
  }

  private observe(valid: boolean): string {
    const { dim, tiles, boxAt, player } = this
    let s = valid ? "" : INVALID_LINE + "\n"
    for (let r = 0; r < dim; r++) {
      for (let c = 0; c < dim; c++) {
        const i = r * dim + c
        const t = tiles[i]
        const sym = t === WALL ? "#" : i === player ? (t === TARGET ? "S" : "P") : boxAt[i] ? (t === TARGET ? "√" : "X") : t === TARGET ? "O" : "_"
        s += ` ${sym} `
      }
      s += "\n"
    }
    return s + LEGEND + "\n" + ACTION_LINE
  }

  step(action: string): StepResult {
    const a = parseAction(action)
    if (this.done) {
      return { observation: this.observe(true), reward: 0, terminated: true, truncated: false, info: { success: false, valid: a >= 0, effective: false } }
    }
    let reward = 0
    let effective = false
    let success = false
    if (a >= 0) {
      reward = REWARD_STEP
      const d = delta(this.dim, a)
      const np = this.player + d
      const { tiles, boxAt } = this
      if (tiles[np] !== WALL) {
        if (boxAt[np]) {
          const nb = np + d
          if (tiles[nb] !== WALL && !boxAt[nb]) {
            boxAt[np] = 0
            boxAt[nb] = 1
            const before = this.onTarget
            if (tiles[np] === TARGET) this.onTarget--
            if (tiles[nb] === TARGET) this.onTarget++
            if (this.onTarget > before) reward += REWARD_BOX_ON
            else if (this.onTarget < before) reward += REWARD_BOX_OFF
            this.player = np
            effective = true
          }
        } else {
          this.player = np
          effective = true
        }
      }
      if (this.onTarget === this.numBoxes) {
        reward += REWARD_FINISHED
        this.terminated = true
        success = true
      }
    }
    return { observation: this.observe(a >= 0), reward, terminated: this.terminated, truncated: false, info: { success, valid: a >= 0, effective } }
  }

  private boxList(): number[] {
    const out: number[] = []
    for (let i = 0; i < this.boxAt.length; i++) if (this.boxAt[i]) out.push(i)
    return out
  }

  state(): SokobanState {
    const dim = this.dim
    const rows: string[] = []
    for (let r = 0; r < dim; r++) {
      let s = ""
      for (let c = 0; c < dim; c++) {
        const t = this.tiles[r * dim + c]
        s += t === WALL ? "#" : t === TARGET ? "O" : "_"
      }
      rows.push(s)
    }
    const rc = (i: number) => [Math.floor(i / dim), i % dim] as const
    return { room: rows.join(","), boxes: this.boxList().map(rc), player: rc(this.player) }
  }

  /** Shortest plan from the current state (cached along the solved path). */
  private plan(board: BoardView): number[] {
    const n = this.dim * this.dim
    const key = stateKey(n, board.player, board.boxes)
    const hit = this.plans.get(key)
    if (hit) return hit
    const sol = solve(this.dim, this.tiles, board.boxes, board.player)
    if (sol.moves === null) {
      // Dead state: any move that changes the state, so that the plan is still followable.
      for (let a = 0; a < 4; a++) {
        const d = delta(this.dim, a)
        const np = board.player + d
        if (this.tiles[np] !== WALL && (!this.boxAt[np] || (this.tiles[np + d] !== WALL && !this.boxAt[np + d]))) return [a]
      }
      return [0]
    }
    // Store every suffix under the state it starts from.
    const boxes = [...board.boxes]
    let p = board.player
    for (let i = 0; i < sol.moves.length; i++) {
      this.plans.set(
        stateKey(
          n,
          p,
          [...boxes].sort((x, y) => x - y)
        ),
        sol.moves.slice(i)
      )
      const d = delta(this.dim, sol.moves[i]!)
      const bi = boxes.indexOf(p + d)
      if (bi >= 0) boxes[bi] = p + 2 * d
      p += d
    }
    return sol.moves
  }

  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    const board: BoardView = { dim: this.dim, tiles: this.tiles, boxes: this.boxList(), player: this.player }
    return teachSokoban(board, this.plan(board), options, rng)
  }

  gradeReasoning(state: SokobanState, reasoning: string, action: string): ReasoningGrade {
    const rows = state.room.split(",")
    const dim = rows.length
    const tiles = new Uint8Array(dim * dim)
    for (let r = 0; r < dim; r++)
      for (let c = 0; c < dim; c++) {
        const ch = rows[r]![c]
        tiles[r * dim + c] = ch === "#" ? WALL : ch === "O" ? TARGET : 1
      }
    const boxes = state.boxes.map(([r, c]) => r * dim + c).sort((x, y) => x - y)
    return gradeSokoban({ dim, tiles, boxes, player: state.player[0] * dim + state.player[1] }, reasoning, parseAction(action))
  }

  randomAction(rng: Rng): string {
    return ACTIONS[rng.int(4)]!
  }
}

/** A solver for code that holds a state snapshot (tests, tools). */
export const solveState = (state: SokobanState, maxStates?: number) => {
  const rows = state.room.split(",")
  const dim = rows.length
  const tiles = new Uint8Array(dim * dim)
  for (let r = 0; r < dim; r++)
    for (let c = 0; c < dim; c++) {
      const ch = rows[r]![c]
      tiles[r * dim + c] = ch === "#" ? WALL : ch === "O" ? TARGET : 1
    }
  return solve(
    dim,
    tiles,
    state.boxes.map(([r, c]) => r * dim + c),
    state.player[0] * dim + state.player[1],
    maxStates
  )
}

const instructions = (o: SokobanOptions): string =>
  [
    `You are a Sokoban player in a ${o.dim} by ${o.dim} room. Push every box X onto a target O.`,
    "Symbols: # wall, _ floor, O target, X box, √ box on target, P player, S player on target.",
    "Rows and columns count from 0 at the top left. You push a box by walking into it; you cannot pull it.",
    "A box pushed into a wall or another box does not move.",
    "Answer with one action: Up, Down, Left or Right.",
    "Each step costs a little; a box pushed onto a target earns a reward, one pushed off loses it, and a big reward comes when all boxes are on targets."
  ].join("\n")

export const sokobanSpec: EnvSpec<SokobanOptions> = {
  id: "sokoban-v1",
  description: "Sokoban: push the box onto the target in a generated 6×6 room (reverse-play levels, gym-sokoban rewards)",
  options: SokobanOptions,
  maxTurns: MAX_TURNS,
  actionBudget: ACTION_BUDGET,
  markov: true,
  // The room is the instance (walls, floor, targets); boxes and player move within an episode.
  instanceKey: (observation) => observation.replace(/[XP]/g, "_").replace(/[√S]/g, "O"),
  make: (options) => new SokobanEnv(options),
  vocabulary: (o) => vocabularyOf(instructions(o), INVALID_LINE, LEGEND, ACTION_LINE, "# _ O X √ P S", TEACHER_WORDS, ACTIONS.join(" "), DIGITS),
  instructions
}
