import { describe, expect, test } from "bun:test"
import { buildMiRows, type TurnSample } from "../../core/diagnostics/samples.ts"
import { Rng } from "../../core/rng.ts"

const turns: TurnSample[] = []
for (let g = 0; g < 3; g++) {
  for (let k = 0; k < 4; k++) {
    for (let t = 0; t < 2; t++) turns.push({ group: g, traj: k, turn: t, prompt: `p${g}-${k}-${t}`.replace(/-\d-0$/, "-0"), reasoning: `z${g}${k}${t}` })
  }
}

describe("buildMiRows", () => {
  test("first-turn: columns are the P prompts, rows every (i,k) first turn", () => {
    const m = buildMiRows(turns, "first-turn", new Rng(1), 100)
    expect(m.prompts).toEqual(["p0-0", "p1-0", "p2-0"])
    expect(m.reasonings.length).toBe(12)
    expect([...m.column]).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    expect(m.signature).toEqual(m.prompts)
    expect(m.reasonings[5]).toBe("z110")
  })
  test("first-turn with maxRows takes a seeded subset", () => {
    const a = buildMiRows(turns, "first-turn", new Rng(3), 5)
    expect(a.reasonings.length).toBe(5)
    expect(a).toEqual(buildMiRows(turns, "first-turn", new Rng(3), 5))
    for (let r = 0; r < 5; r++) expect(a.reasonings[r]!.slice(1, 2)).toBe(String(a.column[r]))
  })
  test("trajectory: each draw is its own column", () => {
    const m = buildMiRows(turns, "trajectory", new Rng(2), 6)
    expect(m.prompts.length).toBe(6)
    expect([...m.column]).toEqual([0, 1, 2, 3, 4, 5])
    expect(new Set(m.reasonings).size).toBe(6)
  })
})
