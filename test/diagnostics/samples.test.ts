import { describe, expect, test } from "bun:test"
import { miProxies } from "../../core/diagnostics/mi.ts"
import { buildMiRows, isValidReasoning, miSampleMetrics, type TurnSample } from "../../core/diagnostics/samples.ts"
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
    expect([m.total, m.valid, m.validRate]).toEqual([12, 12, 1])
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
    expect([m.total, m.valid]).toEqual([24, 24])
  })
})

describe("the reference's valid-reasoning rule", () => {
  test("a turn counts when its response parsed and its reasoning is non-empty", () => {
    const t = { group: 0, traj: 0, turn: 0, prompt: "p" }
    expect([
      isValidReasoning({ ...t, reasoning: "z", valid: true }),
      isValidReasoning({ ...t, reasoning: "z" }),
      isValidReasoning({ ...t, reasoning: "z", valid: false }),
      isValidReasoning({ ...t, reasoning: "  ", valid: true }),
      isValidReasoning({ ...t, reasoning: "", valid: true })
    ]).toEqual([true, true, false, false, false])
  })

  // 4 groups × 3 trajectories; trajectory 2 of every group has an empty reasoning (its response
  // did not parse). A scorer that gives the own prompt log p = 0 per token, another prompt −2.8,
  // and an empty reasoning log p = 0 under every prompt (nothing to score).
  const N = 4
  const sample: TurnSample[] = []
  for (let g = 0; g < N; g++) {
    for (let k = 0; k < 3; k++) sample.push({ group: g, traj: k, turn: 0, prompt: `p${g}`, reasoning: k === 2 ? "" : `z${g}`, valid: k !== 2 })
  }
  const score = (reasonings: string[], prompts: string[]) => {
    const L = new Float64Array(reasonings.length * prompts.length)
    reasonings.forEach((z, r) => prompts.forEach((x, j) => (L[r * prompts.length + j] = z === "" || z.slice(1) === x.slice(1) ? 0 : -2.8)))
    return L
  }
  const miEstOf = (reasonings: string[], prompts: string[], column: Int32Array) => {
    const L = score(reasonings, prompts)
    return miProxies({ tokenMean: L, sum: L, rows: reasonings.length, cols: prompts.length, column }).miEst
  }
  const expected = Math.log(N) - Math.log(1 + 3 * Math.exp(-2.8)) // matched 0 − marginal, per valid row

  test("8 valid rows: MI-Est 1.219; with the 4 empty rows scored too it would read 0.812", () => {
    const rows = buildMiRows(sample, "first-turn", new Rng(1), 128)
    expect(rows.reasonings.length).toBe(8)
    expect([rows.total, rows.valid, rows.validRate]).toEqual([12, 8, 8 / 12])
    expect(miSampleMetrics("mi/first_turn", rows)).toEqual({ "mi/first_turn/valid_rate": 8 / 12 })
    const valid = miEstOf(rows.reasonings, rows.prompts, rows.column)
    expect(valid).toBeCloseTo(expected, 12)
    expect(Number(valid.toFixed(3))).toBe(1.219)
    // The old rule: every first turn is a row.
    const all = miEstOf(
      sample.map((t) => t.reasoning),
      ["p0", "p1", "p2", "p3"],
      Int32Array.from(sample, (t) => t.group)
    )
    expect(all).toBeCloseTo((8 / 12) * expected, 12)
    expect(Number(all.toFixed(3))).toBe(0.812)
  })

  test("fewer than two prompts with a valid row: no rows (nothing to compare), the valid rate still counts", () => {
    const one = sample.map((t) => (t.group === 0 ? t : { ...t, valid: false }))
    const rows = buildMiRows(one, "first-turn", new Rng(1), 128)
    expect([rows.reasonings.length, rows.prompts.length, rows.valid, rows.total]).toEqual([0, 0, 2, 12])
    const traj = buildMiRows(sample, "trajectory", new Rng(1), 32)
    expect([traj.reasonings.length, traj.valid, traj.total]).toEqual([8, 8, 12])
    expect(traj.reasonings.includes("")).toBe(false)
  })

  test("columns are the groups of the sampled valid rows", () => {
    const noGroup2 = sample.map((t) => (t.group === 2 ? { ...t, reasoning: "" } : t))
    const rows = buildMiRows(noGroup2, "first-turn", new Rng(1), 128)
    expect(rows.prompts).toEqual(["p0", "p1", "p3"])
    expect([...rows.column]).toEqual([0, 0, 1, 1, 2, 2])
  })
})
