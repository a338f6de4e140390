/**
 * FrozenLake teacher and reasoning grader.
 *
 * Reasoning (docs/design.md §10): `player r c goal r c [hole r c]* path d1 … dk` — the holes are
 * those next to the player (what the next move depends on), the path is the plan (at most
 * MAX_PATH moves). For s = 1 the plan is a BFS shortest path; for s < 1 the action maximises
 * the probability of reaching the goal within the remaining budget (finite-horizon value
 * iteration on the transition table) and the plan follows that policy along intended moves.
 */
import type { ReasoningGrade, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { factString, parseReasoning, type FactVocabulary, type PositionFact } from "../common/facts.ts"
import { GOAL, HOLE, moveCell, shortestPath, type LakeMap, type TransitionTable } from "./map.ts"

/** Action names in gymnasium order (0 Left, 1 Down, 2 Right, 3 Up). */
export const ACTIONS = ["Left", "Down", "Right", "Up"] as const
export const DIRECTION_WORDS = ["left", "down", "right", "up"] as const
export const MAX_PATH = 8

export const FACT_VOCAB: FactVocabulary = {
  // the teacher's words and their synonyms, plus what an LLM writes ("I am at", "holes at … and …")
  kinds: {
    player: "player",
    agent: "player",
    i: "player",
    you: "player",
    me: "player",
    goal: "goal",
    target: "goal",
    goals: "goal",
    hole: "hole",
    pit: "hole",
    holes: "hole",
    pits: "hole"
  },
  planWords: ["path", "plan", "route", "moves", "move", "go", "action", "answer"],
  directions: { left: 0, down: 1, right: 2, up: 3 }
}
const SYNONYMS: Record<string, ReadonlyArray<string>> = {
  player: ["player", "agent"],
  goal: ["goal", "target"],
  hole: ["hole", "pit"],
  path: ["path", "plan", "route"]
}
/** Every word the teacher may write (for the vocabulary). */
export const TEACHER_WORDS = "player agent goal target hole pit path plan route at left down right up"

/** Best action per (steps left, cell) by value iteration: max P(reach goal within h steps). */
export const safestPolicy = (table: TransitionTable, horizon: number): Int8Array[] => {
  const n = table.n
  let v = new Float64Array(n)
  const policy: Int8Array[] = [new Int8Array(n)]
  for (let h = 1; h <= horizon; h++) {
    const nv = new Float64Array(n)
    const pol = new Int8Array(n)
    for (let s = 0; s < n; s++) {
      let best = -1
      for (let a = 0; a < 4; a++) {
        const base = (s * 4 + a) * 3
        let q = 0
        for (let k = 0; k < 3; k++) {
          const i = base + k
          const t = table.next[i]!
          q += table.prob[i]! * (table.reward[i]! + (table.terminated[i] ? 0 : v[t]!))
        }
        // Strictly better only, so ties keep the lower action index (deterministic).
        if (q > best + 1e-12) {
          best = q
          pol[s] = a
        }
      }
      nv[s] = best
    }
    v = nv
    policy.push(pol)
  }
  return policy
}

export interface LakeTeacherInput {
  readonly map: LakeMap
  readonly player: number
  readonly stepsLeft: number
  readonly successRate: number
  readonly table: TransitionTable
}

const planFor = (x: LakeTeacherInput): number[] => {
  if (x.successRate >= 1) return (shortestPath(x.map, x.player) ?? []).slice(0, MAX_PATH)
  const horizon = Math.max(1, x.stepsLeft)
  const policy = safestPolicy(x.table, horizon)
  const plan: number[] = []
  const seen = new Set<number>()
  let cell = x.player
  for (let h = horizon; h >= 1 && plan.length < MAX_PATH; h--) {
    if (x.map.tiles[cell] !== 0 || seen.has(cell)) break
    seen.add(cell)
    const a = policy[h]![cell]!
    plan.push(a)
    cell = moveCell(x.map.size, cell, a)
  }
  return plan
}

export const teachLake = (x: LakeTeacherInput, options: TeacherOptions, rng: Rng): TeacherStep => {
  const { map } = x
  const noise = Math.min(1, Math.max(0, options.reasoningNoise))
  const word = (w: string): string => (noise > 0 && rng.float() < noise ? rng.pick(SYNONYMS[w]!) : w)
  const at = (): string => (noise > 0 && rng.float() < noise / 2 ? "at " : "")
  const facts: PositionFact[] = []
  const segments: string[] = []
  const add = (kind: string, cell: number) => {
    const r = Math.floor(cell / map.size)
    const c = cell % map.size
    facts.push({ kind, r, c })
    segments.push(`${word(kind)} ${at()}${r} ${c}`)
  }
  add("player", x.player)
  add("goal", map.goal)
  for (let a = 0; a < 4; a++) {
    const t = moveCell(map.size, x.player, a)
    if (t !== x.player && map.tiles[t] === HOLE) add("hole", t)
  }
  if (noise > 0 && rng.float() < noise) rng.shuffle(segments)
  const plan = planFor(x)
  const intended = plan.length > 0 ? plan[0]! : 0
  const path = plan.length > 0 ? plan.map((a) => DIRECTION_WORDS[a]).join(" ") : DIRECTION_WORDS[intended]
  const reasoning = `${segments.join(" ")} ${word("path")} ${path}`
  const action = options.epsilon > 0 && rng.float() < options.epsilon ? ACTIONS[rng.int(4)]! : ACTIONS[intended]!
  return { reasoning, action, facts: facts.map(factString), intendedAction: ACTIONS[intended]! }
}

/** Share of true stated facts; consistency = action is the plan's first move and the plan avoids holes. */
export const gradeLake = (map: LakeMap, player: number, reasoning: string, action: number): ReasoningGrade => {
  const parsed = parseReasoning(reasoning, FACT_VOCAB)
  let ok = 0
  for (const f of parsed.facts) {
    if (f.r >= map.size || f.c >= map.size) continue
    const cell = f.r * map.size + f.c
    if (f.kind === "player" ? cell === player : f.kind === "goal" ? cell === map.goal : map.tiles[cell] === HOLE) ok++
  }
  const factAccuracy = parsed.facts.length === 0 ? 0 : ok / parsed.facts.length
  let consistency = 0
  const plan = parsed.plan
  if (plan !== null && plan.length > 0 && action >= 0 && plan[0] === action) {
    consistency = 1
    let cell = player
    for (const a of plan) {
      cell = moveCell(map.size, cell, a)
      if (map.tiles[cell] === HOLE) {
        consistency = 0
        break
      }
      if (map.tiles[cell] === GOAL) break
    }
  }
  return { factAccuracy, consistency }
}
