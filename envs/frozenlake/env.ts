/**
 * FrozenLake (frozenlake-v1), text version of gymnasium's toy_text FrozenLake as RAGEN uses it.
 *
 * Description: cross a frozen lake from the start to the goal without falling into a hole.
 *   The map is random per seed (tile frozen w.p. `p`, random start and goal, resampled until a
 *   path exists) or fixed by `map`.
 * Actions: Left, Down, Right, Up (gymnasium's order; case-insensitive; the RAGEN reference's
 *   numbers 1..4 in that order and "1 (Left)" are accepted too).
 * Observation: the grid as RAGEN renders it (ragen/env/frozen_lake/env.py `_render_text('grid')`
 *   with config.py's grid_lookup: one character per cell, no spaces, e.g. "_P_G"): P player,
 *   _ frozen, O hole, G goal; X player in a hole, √ player on the goal; a legend line and the
 *   action line; a first line "no valid action was taken" after an action that did not parse.
 *   The start tile is shown as frozen.
 * Transitions: intended move w.p. `successRate` s, each perpendicular move w.p. (1−s)/2
 *   (gymnasium's `success_rate`); moves off the grid keep the player in place.
 * Start: the map's start tile.
 * Rewards: +1 on reaching the goal, 0 otherwise (falling in a hole gives 0).
 * Episode end: terminated on the goal (success) or in a hole; the harness truncates after
 *   `actionBudget` actions (core/env/time-limit.ts).
 * Arguments: size (4), p (0.9, frozen probability), successRate (1.0; RAGEN's env default is
 *   0.8 and its main-table runs use 1; gymnasium's slippery default is 1/3), map ("" = random).
 * Version history: v1 — first version.
 */
import { Schema } from "effect"
import type { Env, EnvSpec, ReasoningGrade, StepResult, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import { derive, type Rng, withDefault as dflt } from "../../core/host.ts"
import { makeActionParser } from "../common/actions.ts"
import { DIGITS, vocabularyOf } from "../common/text.ts"
import { GOAL, generateMap, HOLE, mapRows, parseMap, transitionTable, type LakeMap, type TransitionTable } from "./map.ts"
import { ACTIONS, gradeLake, teachLake, TEACHER_WORDS } from "./teacher.ts"

export const FrozenLakeOptions = Schema.Struct({
  /** Grid side (random maps). */
  size: dflt(Schema.Int.check(Schema.isBetween({ minimum: 2, maximum: 10 })), 4),
  /** Probability that a tile is frozen (docs/design.md §7: 0.9). */
  p: dflt(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1, exclusiveMinimum: true })), 0.9),
  /** Probability that the intended move happens; the rest splits over the two perpendicular moves. */
  successRate: dflt(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 })), 1),
  /** A fixed map as rows, e.g. "SFFF,FHFH,FFFH,HFFG"; "" draws a random map per seed. */
  map: dflt(
    Schema.String.check(
      Schema.makeFilter((m: string) => {
        if (m === "") return undefined
        const r = parseMap(m)
        return typeof r === "string" ? `map: ${r} (example: "SFFF,FHFH,FFFH,HFFG")` : undefined
      })
    ),
    ""
  )
})
export type FrozenLakeOptions = typeof FrozenLakeOptions.Type

/** What teachers and graders need. */
export interface FrozenLakeState {
  /** Map rows, "SFFF,FHFH,FFFH,HFFG" style. */
  readonly map: string
  readonly player: readonly [number, number]
}

export const MAX_TURNS = 5
export const ACTION_BUDGET = 10
const INVALID_LINE = "no valid action was taken"
const LEGEND = "P player _ frozen O hole G goal"
const ACTION_LINE = "actions Left Down Right Up"
const parseAction = makeActionParser(ACTIONS)

const render = (m: LakeMap, player: number, valid: boolean): string => {
  const lines: string[] = []
  if (!valid) lines.push(INVALID_LINE)
  for (let r = 0; r < m.size; r++) {
    const row: string[] = []
    for (let c = 0; c < m.size; c++) {
      const i = r * m.size + c
      const t = m.tiles[i]
      row.push(i === player ? (t === HOLE ? "X" : t === GOAL ? "√" : "P") : t === HOLE ? "O" : t === GOAL ? "G" : "_")
    }
    lines.push(row.join(""))
  }
  const t = m.tiles[player]
  if (t === HOLE) lines.push("X player fell in a hole")
  else if (t === GOAL) lines.push("√ player reached the goal")
  lines.push(LEGEND, ACTION_LINE)
  return lines.join("\n")
}

class FrozenLakeEnv implements Env<FrozenLakeState> {
  readonly id = "frozenlake-v1"
  private readonly fixed: LakeMap | undefined
  private fixedTable: TransitionTable | undefined
  private map!: LakeMap
  private table!: TransitionTable
  /** Observation per (cell, valid): at most 2·size² distinct strings per map. */
  private cache: Array<string | undefined> = []
  private slip: Rng = derive(0, "slip")
  private player = 0
  private terminated = false

  constructor(private readonly options: FrozenLakeOptions) {
    const m = options.map === "" ? undefined : parseMap(options.map)
    if (typeof m === "string") throw new RangeError(`frozenlake: ${m}`)
    this.fixed = m
    this.reset(0)
  }

  get done(): boolean {
    return this.terminated
  }

  reset(seed: number): string {
    if (this.fixed) {
      this.map = this.fixed
      this.fixedTable ??= transitionTable(this.fixed, this.options.successRate)
      this.table = this.fixedTable
    } else {
      this.map = generateMap(derive(seed, "frozenlake", "map"), this.options.size, this.options.p)
      this.table = transitionTable(this.map, this.options.successRate)
    }
    if (!this.fixed || this.cache.length === 0) this.cache = new Array(this.map.size * this.map.size * 2)
    this.slip = derive(seed, "frozenlake", "slip")
    this.player = this.map.start
    this.terminated = false
    return this.observe(true)
  }

  private observe(valid: boolean): string {
    const k = this.player * 2 + (valid ? 0 : 1)
    return (this.cache[k] ??= render(this.map, this.player, valid))
  }

  step(action: string): StepResult {
    const a = parseAction(action)
    if (this.done) {
      return { observation: this.observe(true), reward: 0, terminated: true, truncated: false, info: { success: false, valid: a >= 0, effective: false } }
    }
    let reward = 0
    let success = false
    let effective = false
    if (a >= 0) {
      const base = (this.player * 4 + a) * 3
      const t = this.table
      let k = 0
      if (t.prob[base]! < 1) {
        const u = this.slip.float()
        k = u < t.prob[base]! ? 0 : u < t.prob[base]! + t.prob[base + 1]! ? 1 : 2
      }
      const next = t.next[base + k]!
      effective = next !== this.player
      this.player = next
      reward = t.reward[base + k]!
      if (t.terminated[base + k]) {
        this.terminated = true
        success = this.map.tiles[next] === GOAL
      }
    }
    return { observation: this.observe(a >= 0), reward, terminated: this.terminated, truncated: false, info: { success, valid: a >= 0, effective } }
  }

  state(): FrozenLakeState {
    const s = this.map.size
    return { map: mapRows(this.map), player: [Math.floor(this.player / s), this.player % s] }
  }

  teach(options: TeacherOptions, rng: Rng): TeacherStep {
    return teachLake(
      // The steps left come from the harness's time limit; unwrapped, plan for a whole budget.
      { map: this.map, player: this.player, stepsLeft: options.stepsLeft ?? ACTION_BUDGET, successRate: this.options.successRate, table: this.table },
      options,
      rng
    )
  }

  gradeReasoning(state: FrozenLakeState, reasoning: string, action: string): ReasoningGrade {
    const m = parseMap(state.map)
    if (typeof m === "string") return { factAccuracy: 0, consistency: 0 }
    return gradeLake(m, state.player[0] * m.size + state.player[1], reasoning, parseAction(action))
  }

  randomAction(rng: Rng): string {
    return ACTIONS[rng.int(4)]!
  }
}

const instructions = (_o: FrozenLakeOptions): string =>
  [
    "You are walking on a frozen lake grid. Reach the goal G without falling into a hole O.",
    "Symbols: P player, _ frozen, O hole, G goal, X player in a hole, √ player on the goal.",
    "Rows and columns count from 0 at the top left.",
    "The ice may be slippery: you may move to a side instead of where you meant.",
    "Answer with one action: Left, Down, Right or Up. Reward 1 at the goal, else 0."
  ].join("\n")

export const frozenLakeSpec: EnvSpec<FrozenLakeOptions> = {
  id: "frozenlake-v1",
  description: "FrozenLake: reach the goal on a random 4×4 lake without falling in a hole (gymnasium rules; successRate 1 = deterministic, RAGEN's env default is 0.8, gymnasium's 1/3)",
  options: FrozenLakeOptions,
  maxTurns: MAX_TURNS,
  actionBudget: ACTION_BUDGET,
  markov: true,
  // The map is the instance: the player's square shown as frozen.
  instanceKey: (observation) => observation.replaceAll("P", "_"),
  make: (options) => new FrozenLakeEnv(options),
  vocabulary: (o) => vocabularyOf(instructions(o), INVALID_LINE, LEGEND, ACTION_LINE, "P _ O G X √ player fell in a hole √ player reached the goal", TEACHER_WORDS, ACTIONS.join(" "), DIGITS),
  instructions
}
