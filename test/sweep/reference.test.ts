// `sweep --reference DIR`: one command runs the user's filter and shows it beside the published
// baselines (a compact folder), as `leaderboard --reference` does; `none` joins nothing, a
// missing folder is refused before any run.
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../helpers/cli.ts"
import { fakeEnv, fixturePlugin, smallSpec, tempDir, writeSpec } from "./helpers.ts"

const sweep = (spec: string, dir: string, extra: string[]) =>
  runCli(["sweep", spec, "--plugin", fixturePlugin, "--out", join(dir, "results"), "--leaderboard", join(dir, "site"), "--workers", "1", ...extra], { env: fakeEnv(0) })
const leaderboard = (dir: string) => JSON.parse(readFileSync(join(dir, "site", "leaderboard.json"), "utf8"))

describe("sweep --reference", () => {
  test("the user's filter beside the published baselines in one command", () => {
    const dir = tempDir("sweep-ref")
    const axes = { env: ["frozenlake"], seeds: [1, 2, 3, 4] }
    const budget = { steps: 4, evalEvery: 2 }
    // The "published" set: none on the same recipe, compacted as a maintainer publishes it.
    const pub = join(dir, "pub")
    const published = sweep(writeSpec(dir, smallSpec({ name: "pub", axes: { ...axes, filter: ["none"] }, budget }), "pub.json"), pub, ["--compact-to", join(dir, "ref"), "--reference", "none"])
    expect(published.code).toBe(0)
    const mine = join(dir, "mine")
    const spec = writeSpec(dir, smallSpec({ name: "mine", axes: { ...axes, filter: [{ id: "top-p", options: { p: 0.9 } }] }, budget }), "mine.json")

    const missing = sweep(spec, mine, ["--reference", join(dir, "nope")])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^error: reference folder .*nope does not exist/m)
    expect(missing.stderr).not.toContain("start ") // refused before any run

    const r = sweep(spec, mine, ["--reference", join(dir, "ref")])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("4 of 4 run(s) joined beside yours")
    const lb = leaderboard(mine)
    // An unlabelled choice of the suite's linear top-p is named by the suite's label (issue 42).
    expect(lb.filters).toEqual(["none", "top-p 0.9 (linear, drop zero)"])
    expect(lb.rows[0].cells.find((c: { filter: string }) => c.filter === "top-p 0.9 (linear, drop zero)").delta.n).toBe(4) // paired with the reference's seeds
    // the page says what joined
    expect(lb.sources.join(" ")).toContain("published reference set: 4 of 4 runs joined beside yours")
    expect(readFileSync(join(mine, "site", "index.html"), "utf8")).toContain("published reference set: 4 of 4 runs joined")

    const alone = sweep(spec, mine, ["--reference", "none"])
    expect(alone.code).toBe(0)
    const lone = leaderboard(mine)
    expect(lone.filters).toEqual(["top-p 0.9 (linear, drop zero)"])
    // alone in its row, the filter is not "best" and wins nothing; its (Δ) column shows no absolute number as a Δ
    expect(lone.rows[0].cells[0].best).toBe(false)
    // with no none to compare against, it is not ranked either (issue 42): it is listed, with the reason
    expect(lone.ranking).toEqual([])
    expect(lone.notRanked).toEqual([{ filter: "top-p 0.9 (linear, drop zero)", rows: 1, n: 0, needed: null }])
    const html = readFileSync(join(mine, "site", "index.html"), "utf8")
    expect(html).not.toMatch(/★<\/td>/) // the legend explains ★; no cell carries it
    expect(html).toContain("no none in this row")
  }, 120_000)
})
