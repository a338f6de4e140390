import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { decodeSync } from "../../core/schema/decode.ts"
import { buildLeaderboard, collectRuns, ranksDesc, stat } from "../../plugins/leaderboard/build.ts"
import { renderMarkdown } from "../../plugins/leaderboard/markdown.ts"
import { Leaderboard } from "../../plugins/leaderboard/schema.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { niceTicks } from "../../plugins/leaderboard/svg.ts"
import { tempDir } from "../sweep/helpers.ts"
import { corrupt, standardRuns, writeRuns } from "./fixtures.ts"

const build = (dir: string, site = join(dir, "..", "site")) => Effect.runSync(Effect.map(collectRuns([dir], site), (c) => buildLeaderboard({ ...c, siteDir: site })))

describe("leaderboard build", () => {
  test("stats: mean ± standard error and average ranks", () => {
    expect(stat([0.5, 0.7])).toEqual({ mean: 0.6, se: 0.1, n: 2 })
    expect(stat([0.3])).toEqual({ mean: 0.3, se: null, n: 1 })
    expect(ranksDesc([0.2, 0.5, 0.2, 0.1])).toEqual([2.5, 1, 2.5, 4])
  })

  test("paper-style table, deltas, best marks and the ranking", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const lb = build(dir)
    expect(decodeSync(Leaderboard, JSON.parse(JSON.stringify(lb))).ok).toBe(true)
    expect(lb.filters).toEqual(["none", "random", "top-p"])
    expect(lb.rows.map((r) => r.env)).toEqual(["frozenlake", "sokoban"])
    const fl = lb.rows[0]!
    expect(fl.baseline).toEqual({ mean: 0.6, se: 0.1, n: 2 })
    const topp = fl.cells.find((c) => c.filter === "top-p")!
    expect(topp.stat).toEqual({ mean: 0.85, se: 0.05, n: 2 })
    expect(topp.delta!.mean).toBeCloseTo(0.25, 6)
    expect(topp.delta!.se).toBeCloseTo(Math.sqrt(0.05 ** 2 + 0.1 ** 2), 6)
    expect(topp.best).toBe(true)
    const sk = lb.rows[1]!
    expect(sk.cells.filter((c) => c.best).map((c) => c.filter)).toEqual(["random"])
    // Ranks: frozenlake top-p 1, none 2, random 3; sokoban random 1, none 2.5, top-p 2.5.
    expect(lb.ranking.map((r) => [r.filter, r.meanRank, r.wins])).toEqual(
      [
        ["random", 2, 1],
        ["top-p", 1.75, 1],
        ["none", 2.25, 0]
      ].sort((a, b) => (a[1] as number) - (b[1] as number))
    )
    const rnd = lb.ranking.find((r) => r.filter === "random")!
    expect(rnd.meanDelta).toBeCloseTo((0.5 - 0.6 + (0.4 - 0.2)) / 2, 6)
    expect(lb.entries.length).toBe(12)
    expect(lb.entries[0]!.path.startsWith("../results/")).toBe(true)
  })

  test("runs pool only under equal resolved configs and semantics version; cells carry their config hash", () => {
    const dir = join(tempDir("lb"), "results")
    const [, b] = writeRuns(dir, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.7 }
    ])
    const pooled = build(dir)
    expect(pooled.rows.length).toBe(1)
    expect(pooled.rows[0]!.cells[0]!.stat.n).toBe(2)
    expect(pooled.rows[0]!.cells[0]!.configHash).toMatch(/^[0-9a-f]{12}$/)
    // The same config under another semantics version is another row, and says so.
    const cfgPath = join(b!, "config.json")
    writeFileSync(cfgPath, JSON.stringify({ ...JSON.parse(readFileSync(cfgPath, "utf8")), semantics: 99 }))
    const split = build(dir)
    expect(split.rows.map((r) => r.semantics).sort()).toEqual([2, 99])
    expect(split.rows.map((r) => r.setting).sort()).toEqual(["semantics=2", "semantics=99"])
    expect(split.rows[0]!.cells[0]!.configHash).not.toBe(split.rows[1]!.cells[0]!.configHash)
  })

  test("a run folder of an older results format is one clear problem, not a crash", () => {
    const dir = join(tempDir("lb"), "results")
    const [old] = writeRuns(dir, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.7 }
    ])
    const cfgPath = join(old!, "config.json")
    const { semantics: _s, plugins: _p, host: _h, ...v1 } = JSON.parse(readFileSync(cfgPath, "utf8"))
    writeFileSync(cfgPath, JSON.stringify({ ...v1, format: 1 }))
    const lb = build(dir)
    expect(lb.entries.length).toBe(1)
    expect(lb.problems.map((p) => p.message).join("\n")).toContain("results format 1 was written by an older ragen-bench")
  })

  test("charts per group hold one series per filter; missing metrics are noted", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const lb = build(dir)
    const sk = lb.groups.find((g) => g.title.startsWith("sokoban"))!
    const succ = sk.charts.find((c) => c.metric === "val/success@0.5")!
    expect(succ.series.map((s) => s.name)).toEqual(["none", "random", "top-p"])
    expect(succ.series[0]!.points.at(-1)).toEqual([4, 0.2])
    const kept = sk.charts.find((c) => c.metric === "filter/kept_ratio")!
    expect(kept.series.map((s) => s.name)).toEqual(["none", "top-p"])
    expect(sk.missing).toContain("mi/first_turn/retrieval_acc")
  })

  test("files that do not decode are reported by path and field and left out; a torn line is reported", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const { tornRun, badRun } = corrupt(dir)
    const lb = build(dir)
    const bad = lb.problems.find((p) => p.path.includes(badRun.split("/").pop()!))!
    expect(bad.path).toEndWith("summary.json")
    expect(bad.message).toContain("peakValSuccess")
    expect(lb.problems.some((p) => p.path.endsWith(`${tornRun.split("/").pop()}/metrics.jsonl`) && p.message.includes("torn"))).toBe(true)
    expect(lb.entries.some((e) => e.runId === badRun.split("/").pop())).toBe(false)
    // The torn run is kept (its complete lines are valid).
    expect(lb.rows.find((r) => r.algo === "ppo")!.baseline).toEqual({ mean: 0.5, se: null, n: 1 })
  })

  test("writeSite writes JSON, Markdown and HTML; the build is deterministic", () => {
    const base = tempDir("lb")
    const dir = join(base, "results")
    writeRuns(dir, [...standardRuns, { env: "sokoban", filter: "top-k", seed: 1, peak: 0.3, status: "failed" }])
    const site = join(base, "site")
    const w = Effect.runSync(writeSite([dir], site))
    const json = readFileSync(w.files.json, "utf8")
    Effect.runSync(writeSite([dir], site))
    expect(readFileSync(w.files.json, "utf8")).toBe(json)
    const md = readFileSync(w.files.md, "utf8")
    expect(md).toContain("| frozenlake | grpo | – | 60.0 ± 10.0 (n=2) | -10.0 ± 14.1 (n=2) | **+25.0 ± 11.2 (n=2)** |")
    expect(md).toContain("## Runs not complete")
    expect(md).not.toContain("<img")
    expect(renderMarkdown(w.leaderboard)).toBe(md)
  })

  test("nice ticks", () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1])
    expect(niceTicks(0, 47)).toEqual([0, 10, 20, 30, 40])
  })
})
