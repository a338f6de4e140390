/**
 * Issue 39's changed verdicts, pinned on the published records (plugins/leaderboard/reference):
 * C1 reads "not supported" (its pooled area difference lies against the claim), C6 is tested on
 * the area, and the standard page compares the paper's top-p with its random control on Sokoban.
 * The collapse track's page: where none rises then decays, the paper's top-p rises above none on
 * Sokoban and its selection contrast does not separate; C1 with the track's settings.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { buildLeaderboard } from "../../plugins/leaderboard/build.ts"
import { collectInputs } from "../../plugins/leaderboard/collect.ts"
import { c1TopPRaisesSuccess, c6AdvantageShrinksWithSlip } from "../../plugins/leaderboard/replication/filter-claims.ts"
import { viewOf } from "../../plugins/leaderboard/replication/runs.ts"
import { tQuantile } from "../../plugins/leaderboard/statistics/student-t.ts"

const REF = "plugins/leaderboard/reference"
const collect = (dirs: string[]) => Effect.runPromise(collectInputs(dirs, ".", { marksDir: null }))

describe("issue 39's verdicts on the published records", () => {
  test("the standard page: the paper's top-p − its random control on Sokoban, +8.1 points, 95% t [4.3, 12.0], p 4/2^11, ▲ in the Holm family of 30", async () => {
    const c = await collect([`${REF}/standard`])
    const lb = buildLeaderboard({ ...c, siteDir: "." })
    expect(lb.family).toMatchObject({ primary: 30, selection: 6 })
    const row = lb.rows.find((r) => r.env.endsWith("sokoban-v1"))!
    const paper = row.cells.find((x) => x.selection && x.filter.includes("softmax"))!
    const d = paper.selection!.delta
    expect(paper.selection!.control).toContain("random")
    expect(d.n).toBe(11)
    expect(100 * d.mean).toBeCloseTo(8.1, 1)
    // One seed of 11 below the control, the smallest: p = 4/2^11.
    expect(d.p).toBeCloseTo(4 / 2 ** 11, 6)
    expect(d.verdict).toBe("better")
    // Read at Holm's seventh step: six comparisons (the five Q4 rows and Sokoban's random − none) have p = 2/2^11 before it.
    expect(d.level).toBeCloseTo(1 - 0.05 / 24, 6)
    // At 95%: [4.3, 12.0].
    const half = (tQuantile(0.975, 10) * d.sd!) / Math.sqrt(11)
    expect([100 * (d.mean - half), 100 * (d.mean + half)].map((x) => Math.round(10 * x) / 10)).toEqual([4.3, 12.0])
    expect(lb.verdict.sentence).toContain("Holm over 30 comparisons, 24 with none and 6 of a filter with its random control")
    expect(lb.verdict.sentence).toContain("above random (top-p's count) on sokoban-v1 by +8.1 points (n = 11)")
  }, 120_000)

  test("C1 on standard and standard-v1: not supported (pooled −0.9 points, p 0.006), where it read inconclusive; C6 on the area", async () => {
    const c = await collect([`${REF}/standard`, `${REF}/standard-v1`])
    const c1 = c1TopPRaisesSuccess(c.runs.map((r) => viewOf(r.run)))
    expect(c1.verdict.kind).toBe("not supported")
    expect(c1.numbers[0]).toBe("Δ area −0.009 [−0.015, −0.003] p 0.006")
    const f = await collect([`${REF}/fig9`])
    const c6 = c6AdvantageShrinksWithSlip(f.runs.map((r) => viewOf(r.run)))
    expect(c6.verdict.kind).toBe("inconclusive")
    expect(c6.numbers[0]).toBe("slope of Δ area per unit slip −0.021 [−0.041, +0.001]")
  }, 120_000)

  test("the collapse page: none collapses on both rows and stays ranked; top-p − none +21.5 ▲ on Sokoban, its selection contrast +13.4 not separated; Holm over 18", async () => {
    const c = await collect([`${REF}/collapse`])
    const lb = buildLeaderboard({ ...c, siteDir: "." })
    expect(lb.family).toMatchObject({ primary: 18, selection: 6 })
    for (const r of lb.rows) {
      expect(r.notLearning).toBeNull()
      expect(r.collapses).toMatch(/^none rises then collapses on (9|8) of 11 seeds/)
    }
    const sokoban = lb.rows.find((r) => r.env.endsWith("sokoban-v1"))!
    const paper = sokoban.cells.find((x) => x.filter === "top-p 0.9 (softmax, include zero)")!
    expect(paper.delta!.verdict).toBe("better")
    expect(100 * paper.delta!.mean).toBeCloseTo(21.5, 1)
    expect(paper.selection!.control).toBe("random (top-p's count)")
    expect(100 * paper.selection!.delta.mean).toBeCloseTo(13.4, 1)
    expect(paper.selection!.delta.verdict).toBe("not-separated")
    const frozen = lb.rows.find((r) => r.env.endsWith("frozenlake-v1"))!
    expect(frozen.cells.find((x) => x.filter.startsWith("Q4"))!.delta!.verdict).toBe("worse")
    expect(frozen.cells.find((x) => x.filter === "top-p 0.9 (softmax, include zero)")!.delta!.verdict).toBe("not-separated")
    expect(lb.verdict.sentence).toContain("top-p 0.9 (softmax, include zero) above none on sokoban-v1 by +21.5 points (n = 11)")
  }, 120_000)

  test("C1 with the collapse track: holds in its Sokoban setting alone (Holm over 12 settings), pooled +1.7 points, inconclusive", async () => {
    const c = await collect([`${REF}/standard`, `${REF}/standard-v1`, `${REF}/collapse`])
    const c1 = c1TopPRaisesSuccess(c.runs.map((r) => viewOf(r.run)))
    expect(c1.verdict.kind).toBe("inconclusive")
    expect(c1.numbers[0]).toBe("Δ area +0.017 [−0.001, +0.035] p 0.090")
    expect(c1.verdict.why).toContain("holds in 1 of 12 settings")
  }, 120_000)
})
