import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { join } from "node:path"
import { buildLeaderboard, collectRuns } from "../../plugins/leaderboard/build.ts"
import { type CellFilter, matchedControls } from "../../plugins/leaderboard/controls.ts"
import { renderHtml } from "../../plugins/leaderboard/html.ts"
import { legendItems } from "../../plugins/leaderboard/legend.ts"
import { renderMarkdown } from "../../plugins/leaderboard/markdown.ts"
import { pairedVerdicts, seedsNeededFor } from "../../plugins/leaderboard/statistics/verdicts.ts"
import { tempDir } from "../sweep/helpers.ts"
import { type FakeRun, writeRuns } from "./fixtures.ts"

const build = (dir: string, site = join(dir, "..", "site")) => Effect.runSync(Effect.map(collectRuns([dir], site), (c) => buildLeaderboard({ ...c, siteDir: site })))

const cell = (name: string, id: string, options: Record<string, unknown>, stream = 0): CellFilter => ({ name, id, options, stream })
const PAPER = cell("top-p (softmax)", "filters/top-p-softmax", { p: 0.9, includeZero: true, metric: "std", temperature: 1 })
const LINEAR = cell("top-p (linear)", "filters/top-p", { p: 0.9, includeZero: false, eps: 0.01, metric: "std" })
const Q4 = cell("Q4", "filters/quantile", { lo: 0.75, hi: 1, includeZero: true, metric: "std" })
const Q1 = cell("Q1", "filters/quantile", { lo: 0, hi: 0.25, includeZero: true, metric: "std" })

describe("matched random controls (controls.ts)", () => {
  test("random with like and the filter's options controls that filter; with ratio r, the lowest-spread slice of width r", () => {
    const paperControl = cell("random (top-p's count)", "filters/random", { like: "top-p-softmax", p: 0.9, includeZero: true })
    const linearControl = cell("random (linear)", "filters/random", { like: "top-p", p: 0.9 })
    const quarter = cell("random 25%", "filters/random", { like: "top-p", ratio: 0.25 })
    const m = matchedControls([PAPER, LINEAR, Q4, Q1, paperControl, linearControl, quarter])
    expect([...m].sort()).toEqual([
      ["Q4", "random 25%"],
      ["top-p (linear)", "random (linear)"],
      ["top-p (softmax)", "random (top-p's count)"]
    ])
  })

  test("no match: options that differ, a fixed count, another sampling stream, or two controls claiming one filter", () => {
    expect(matchedControls([PAPER, cell("r", "filters/random", { like: "top-p-softmax", p: 0.5 })]).size).toBe(0)
    expect(matchedControls([PAPER, cell("r", "filters/random", { count: 4 })]).size).toBe(0)
    expect(matchedControls([PAPER, cell("r′", "filters/random", { like: "top-p-softmax", p: 0.9 }, 1)]).size).toBe(0)
    // {like: top-p} without options matches both top-p cells of p 0.9 and 0.5: neither is its match.
    const other = cell("top-p 0.5", "filters/top-p", { p: 0.5, includeZero: false })
    expect(matchedControls([LINEAR, other, cell("r", "filters/random", { like: "top-p" })]).size).toBe(0)
    expect(matchedControls([LINEAR, cell("r1", "filters/random", { like: "top-p", p: 0.9 }), cell("r2", "filters/random", { like: "top-p", p: 0.9, eps: 0.01 })]).size).toBe(0)
  })
})

/**
 * 11 seeds on one env: the paper's top-p 1 point above none and 8 points above its control on
 * every seed (the control 7 below none); Q4 far below none and 1 point below random 25%, with
 * the sign alternating around it, so that the selection contrast of Q4 does not separate.
 */
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
const selectionRuns: FakeRun[] = SEEDS.flatMap((seed) => {
  const base = 0.5 + 0.01 * seed
  return [
    { env: "sokoban", filter: "none", seed, peak: base },
    { env: "sokoban", filter: "top-p-softmax", filterOptions: { p: 0.9, includeZero: true, metric: "std", temperature: 1 }, seed, peak: base + 0.01 + 0.001 * (seed % 3) },
    { env: "sokoban", filter: "random", filterOptions: { like: "top-p-softmax", p: 0.9, includeZero: true }, seed, peak: base - 0.07 },
    { env: "sokoban", filter: "quantile", filterOptions: { lo: 0.75, hi: 1, includeZero: true, metric: "std" }, seed, peak: base - 0.3 + (seed % 2 ? 0.02 : -0.02) },
    { env: "sokoban", filter: "random", filterOptions: { ratio: 0.25 }, seed, peak: base - 0.3 + 0.001 * seed }
  ]
})

describe("selection contrasts on the page", () => {
  test("filter − its control, paired by seed, in the primary Holm family; the sentence names both contrasts", () => {
    const dir = join(tempDir("lb-controls"), "results")
    writeRuns(dir, selectionRuns)
    const lb = build(dir)
    const row = lb.rows[0]!
    // The suite's labels name the cells (labels.ts): the paper's top-p, Q4.
    const paper = row.cells.find((c) => c.filter.includes("softmax"))!
    const q4 = row.cells.find((c) => c.filter.includes("Q4"))!
    // 4 comparisons with none and 2 of a filter with its control: one family of 6 on the area.
    expect(lb.family.primary).toBe(6)
    expect(lb.family.selection).toBe(2)
    expect(lb.family.last3).toBe(4)
    expect(paper.selection!.control).toContain("random")
    // The curve runs linearly from 0 to the peak over 4 steps: the area is (1 + 2 + 3 + 4)/16 of it.
    expect(paper.selection!.delta.n).toBe(11)
    expect(paper.selection!.delta.mean).toBeCloseTo((0.08 + 0.001 * (SEEDS.reduce((a, s) => a + (s % 3), 0) / 11)) * (10 / 16), 5)
    // 11 same-sign pairs: p = 2/2^11, Holm-adjusted over the 6.
    expect(paper.selection!.delta.p).toBeCloseTo(2 / 2 ** 11, 6)
    expect(paper.selection!.delta.verdict).toBe("better")
    expect(paper.selection!.delta.inFamily).toBe(true)
    expect(q4.selection!.delta.verdict).toBe("not-separated")
    // The controls themselves carry no selection contrast; none neither.
    expect(row.cells.filter((c) => c.selection).length).toBe(2)
    const s = lb.verdict.sentence
    expect(s).toContain("Holm over 6 comparisons, 4 with none and 2 of a filter with its random control, at α = 0.05")
    expect(s).toContain(`Selection (a filter against its random control at the same kept count, in the same family): ${paper.filter} above ${paper.selection!.control} on sokoban by +5.`)
    expect(s).toContain("(n = 11). The other 1 selection comparison does not separate.")
    expect(s).toContain(`${q4.filter} below none on sokoban`)
    expect(lb.verdict.separated.some((x) => x.against === paper.selection!.control && x.filter === paper.filter)).toBe(true)
    // The Markdown page shows the selection table.
    const md = renderMarkdown(lb)
    expect(md).toContain("## Selection: each filter against its random control at the same kept count")
    expect(md).toMatch(/\| sokoban \| grpo \| – \| top-p 0\.9 \\\(softmax, include zero\\\) \| random \\\(top-p's count\\\) \| 11 \| \+0\.\d \[.*\| \+5\.\d \[\+\d\.\d, \+\d\.\d\] ▲ better \|/)
    // The HTML page shows the same table; the legend says what selection is and that it shares the family.
    const html = renderHtml(lb)
    expect(html).toContain('<table id="selection" class="sortable">')
    const legend = legendItems(lb).find((l) => l.term.startsWith("selection"))!
    expect(legend.text).toContain("Its 2 comparisons are in the same Holm family as those with none (6 on the area)")
    expect(legendItems(lb).find((l) => l.term === "seeds for ±5")!.text).toContain("first Holm threshold α/m")
  })

  test("seeds for ±5 are computed at the page's first Holm threshold α/m, not at α", () => {
    const deltas = [0.04, -0.06, 0.1, 0.02, 0.08, -0.04, 0.06, 0.0, 0.12, -0.02, 0.04]
    const sd = Math.sqrt(deltas.reduce((a, d) => a + (d - 0.03) ** 2, 0) / 10)
    const alone = pairedVerdicts([{ deltas, seed: 1 }])[0]!.seedsNeeded!
    const page = pairedVerdicts(Array.from({ length: 30 }, (_, i) => ({ deltas, seed: i })))[0]!.seedsNeeded!
    expect(alone).toBe(seedsNeededFor(sd, "sign-flip", 0.05))
    // sd 5.6 points: at 0.05/30 the t form asks for more seeds than at 0.05, and more than the sign-flip floor of 11 there.
    expect(page).toBe(seedsNeededFor(sd, "sign-flip", 0.05 / 30, { alpha: 0.05 / 30 }))
    expect(page).toBeGreaterThan(alone + 5)
    expect(page).toBeGreaterThan(11)
  })
})
