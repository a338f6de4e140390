/**
 * Sokoban teacher and reasoning grader.
 *
 * Reasoning: `player r c box r c … target r c … plan d1 … dk` — the positions the push plan
 * depends on and the first MAX_PLAN moves of a shortest solution (the exact BFS solver).
 * In a dead state (no solution) the plan is a single move that changes the state.
 */
import type { ReasoningGrade, TeacherOptions, TeacherStep } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { factString, parseReasoning, type FactVocabulary, type PositionFact } from "../common/facts.ts"
import { delta, TARGET, WALL } from "./level.ts"

/** Action names in the RAGEN reference's order (1 Up, 2 Down, 3 Left, 4 Right). */
export const ACTIONS = ["Up", "Down", "Left", "Right"] as const
export const DIRECTION_WORDS = ["up", "down", "left", "right"] as const
export const MAX_PLAN = 6

export const FACT_VOCAB: FactVocabulary = {
  // the teacher's words and their synonyms, plus what an LLM writes ("I am at", "boxes at … and …")
  kinds: {
    player: "player",
    agent: "player",
    i: "player",
    you: "player",
    me: "player",
    box: "box",
    crate: "box",
    boxes: "box",
    crates: "box",
    target: "target",
    goal: "target",
    targets: "target",
    goals: "target"
  },
  planWords: ["plan", "path", "moves", "move", "go", "push", "action", "answer"],
  directions: { up: 0, down: 1, left: 2, right: 3 }
}
const SYNONYMS: Record<string, ReadonlyArray<string>> = {
  player: ["player", "agent"],
  box: ["box", "crate"],
  target: ["target", "goal"],
  plan: ["plan", "path", "moves"]
}
export const TEACHER_WORDS = "player agent box crate target goal plan path moves at up down left right"

/** A state as the teacher and grader see it. */
export interface BoardView {
  readonly dim: number
  readonly tiles: Uint8Array
  /** Box cells, sorted. */
  readonly boxes: ReadonlyArray<number>
  readonly player: number
}

export const teachSokoban = (b: BoardView, plan: ReadonlyArray<number>, options: TeacherOptions, rng: Rng): TeacherStep => {
  const noise = Math.min(1, Math.max(0, options.reasoningNoise))
  const word = (w: string): string => (noise > 0 && rng.float() < noise ? rng.pick(SYNONYMS[w]!) : w)
  const at = (): string => (noise > 0 && rng.float() < noise / 2 ? "at " : "")
  const facts: PositionFact[] = []
  const segments: string[] = []
  const add = (kind: string, cell: number) => {
    const r = Math.floor(cell / b.dim)
    const c = cell % b.dim
    facts.push({ kind, r, c })
    segments.push(`${word(kind)} ${at()}${r} ${c}`)
  }
  add("player", b.player)
  for (const x of b.boxes) add("box", x)
  for (let i = 0; i < b.tiles.length; i++) if (b.tiles[i] === TARGET) add("target", i)
  if (noise > 0 && rng.float() < noise) rng.shuffle(segments)
  const shown = plan.slice(0, MAX_PLAN)
  const intended = shown[0] ?? 0
  const reasoning = `${segments.join(" ")} ${word("plan")} ${shown.map((a) => DIRECTION_WORDS[a]).join(" ")}`.trimEnd()
  const action = options.epsilon > 0 && rng.float() < options.epsilon ? ACTIONS[rng.int(4)]! : ACTIONS[intended]!
  return { reasoning, action, facts: facts.map(factString), intendedAction: ACTIONS[intended]! }
}

/** Does the move sequence stay legal from the board (no walking into walls, no blocked pushes)? */
export const legalPrefix = (b: BoardView, plan: ReadonlyArray<number>): boolean => {
  const boxes = [...b.boxes]
  let p = b.player
  for (const a of plan) {
    const d = delta(b.dim, a)
    const np = p + d
    if (b.tiles[np] === WALL) return false
    const bi = boxes.indexOf(np)
    if (bi >= 0) {
      const nb = np + d
      if (b.tiles[nb] === WALL || boxes.includes(nb)) return false
      boxes[bi] = nb
    }
    p = np
  }
  return true
}

export const gradeSokoban = (b: BoardView, reasoning: string, action: number): ReasoningGrade => {
  const parsed = parseReasoning(reasoning, FACT_VOCAB)
  let ok = 0
  for (const f of parsed.facts) {
    if (f.r >= b.dim || f.c >= b.dim) continue
    const cell = f.r * b.dim + f.c
    if (f.kind === "player" ? cell === b.player : f.kind === "box" ? b.boxes.includes(cell) : b.tiles[cell] === TARGET) ok++
  }
  const factAccuracy = parsed.facts.length === 0 ? 0 : ok / parsed.facts.length
  const plan = parsed.plan
  const consistency = plan !== null && plan.length > 0 && action >= 0 && plan[0] === action && legalPrefix(b, plan) ? 1 : 0
  return { factAccuracy, consistency }
}
