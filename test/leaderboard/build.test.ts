import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { decodeSync } from "../../core/schema/decode.ts"
import { SEMANTICS_VERSION } from "../../core/semantics.ts"
import { budgetOf, buildLeaderboard, collectRuns, envName, NOISE_FLOOR, normalizerOf, ranksDesc } from "../../plugins/leaderboard/build.ts"
import { renderMarkdown } from "../../plugins/leaderboard/markdown.ts"
import { Leaderboard } from "../../plugins/leaderboard/schema.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { niceTicks } from "../../plugins/leaderboard/svg.ts"
import { tempDir } from "../sweep/helpers.ts"
import { corrupt, standardRuns, writeRuns } from "./fixtures.ts"

// The fixtures have two seeds per cell; minPairs 2 lets them exercise Holm (the default, 4, is tested below).
const build = (dir: string, site = join(dir, "..", "site"), minPairs: number | null = 2) =>
  Effect.runSync(Effect.map(collectRuns([dir], site), (c) => buildLeaderboard({ ...c, siteDir: site, ...(minPairs !== null ? { minPairs } : {}) })))

describe("leaderboard build", () => {
  test("average ranks; env names and normalizers", () => {
    expect(ranksDesc([0.2, 0.5, 0.2, 0.1])).toEqual([2.5, 1, 2.5, 4])
    expect(envName("envs/sokoban-v1")).toBe("sokoban")
    expect(normalizerOf("envs/frozenlake-v2")).toEqual({ value: 1, assumed: false })
    expect(normalizerOf("mine/maze")).toEqual({ value: 1, assumed: true })
  })

  test("paper-style table: bootstrap intervals, paired deltas with Holm, best marks and the ranking", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const lb = build(dir)
    expect(decodeSync(Leaderboard, JSON.parse(JSON.stringify(lb))).ok).toBe(true)
    expect(lb.filters).toEqual(["none", "random", "top-p"])
    expect(lb.rows.map((r) => r.env)).toEqual(["frozenlake", "sokoban"])
    const fl = lb.rows[0]!
    // none: peaks 0.5, 0.7. Two values: resample means 0.5 (¼), 0.6 (½), 0.7 (¼), so the 2.5% and
    // 97.5% quantiles of 10 000 resamples are the atoms 0.5 and 0.7.
    expect(fl.baseline).toEqual({ mean: 0.6, lo: 0.5, hi: 0.7, n: 2 })
    const none = fl.cells.find((c) => c.filter === "none")!
    expect(none.kind).toBe("baseline")
    expect(none.delta).toBeNull()
    // Last-3 mean of each run is 0.75·peak: 0.375 and 0.525 → 0.45, interval [0.375, 0.525].
    expect(none.last3).toEqual({ mean: 0.45, lo: 0.375, hi: 0.525, n: 2 })
    const topp = fl.cells.find((c) => c.filter === "top-p")!
    expect(topp.peak).toEqual({ mean: 0.85, lo: 0.8, hi: 0.9, n: 2 })
    expect(topp.seeds).toEqual([1, 2])
    expect(topp.best).toBe(true)
    // Paired by seed: 0.8 − 0.5 = 0.3, 0.9 − 0.7 = 0.2 → mean 0.25, sd 0.0707107.
    const d = topp.delta!
    expect(d.n).toBe(2)
    expect(d.unpaired).toBe(0)
    expect(d.mean).toBeCloseTo(0.25, 6)
    expect(d.sd!).toBeCloseTo(Math.SQRT1_2 / 10, 6)
    // Every resample mean of {0.3, 0.2} is > 0: p = 2·(1 + 0)/(10 000 + 1) = 0.0002.
    expect(d.p).toBe(0.0002)
    // The page's family (peak): FL random (−0.1, −0.1), FL top-p, SK random (0.1, 0.3): p 0.0002 each;
    // SK top-p (−0.1, +0.1): p 1. Holm, m = 4: the three small ones are rejected (0.0002 ≤ 0.05/4), the last not.
    expect(lb.family).toEqual({ peak: 4, last3: 4, alpha: 0.05 })
    expect(lb.rows.flatMap((r) => r.cells.filter((c) => c.delta).map((c) => [r.env, c.filter, c.delta!.separated]))).toEqual([
      ["frozenlake", "random", true],
      ["frozenlake", "top-p", true],
      ["sokoban", "random", true],
      ["sokoban", "top-p", false]
    ])
    // Ties in p keep page order: FL top-p is second, read at 1 − 0.05/3; its Holm p = max(4p, 3p) = 0.0008.
    expect(d.level).toBe(0.983333)
    expect(d.pHolm).toBe(0.0008)
    // Resample means of {0.3, 0.2}: 0.2 (¼), 0.25 (½), 0.3 (¼): the 98.3% interval is [0.2, 0.3].
    expect(d.lo).toBeCloseTo(0.2, 6)
    expect(d.hi).toBeCloseTo(0.3, 6)
    // Seeds for a 5-point difference: (2.801585 · 0.0707107 / 0.05)² = 3.96204² = 15.70 → 16.
    expect(d.seedsNeeded).toBe(16)
    const skTopp = lb.rows[1]!.cells.find((c) => c.filter === "top-p")!.delta!
    expect(skTopp.p).toBe(1)
    expect(skTopp.pHolm).toBe(1)
    expect(skTopp.level).toBe(0.95)
    expect(skTopp.lo).toBeLessThan(0)
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
    // Mean paired delta over the two rows: (−0.1 + 0.2)/2 = 0.05.
    expect(rnd.meanDelta).toBeCloseTo((0.5 - 0.6 + (0.4 - 0.2)) / 2, 6)
    expect(lb.entries.length).toBe(12)
    expect(lb.entries[0]!.path.startsWith("../results/")).toBe(true)
    // No budget metrics in these runs: every budget is null ("—" on the page).
    expect(topp.budget).toEqual({ envSteps: null, tokens: null, rollouts: null, optimizerSteps: null })
  })

  test("across envs: IQM of normalized scores and P(filter > none), by hand", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const lb = build(dir)
    const of = (f: string) => lb.across.find((a) => a.algo === "grpo" && a.filter === f)!
    // IQM over all (run, env) peaks, cut ⌊4/4⌋ = 1 each end:
    // none [0.2, 0.2, 0.5, 0.7] → (0.2 + 0.5)/2 = 0.35; top-p [0.1, 0.3, 0.8, 0.9] → 0.55; random [0.3, 0.4, 0.5, 0.6] → 0.45.
    expect(of("none").iqmPeak.value).toBeCloseTo(0.35, 6)
    expect(of("top-p").iqmPeak.value).toBeCloseTo(0.55, 6)
    expect(of("random").iqmPeak.value).toBeCloseTo(0.45, 6)
    expect(of("none").iqmPeak.tasks).toBe(2)
    expect(of("none").iqmPeak.runs).toBe(4)
    expect(of("none").envs).toEqual(["frozenlake", "sokoban"])
    // Last-3 is 0.75·peak for every run, so its IQM is 0.75 · the peak IQM.
    expect(of("top-p").iqmLast3!.value).toBeCloseTo(0.75 * 0.55, 6)
    // P(top-p > none): frozenlake [0.8, 0.9] vs [0.5, 0.7] → 1; sokoban [0.1, 0.3] vs [0.2, 0.2] → 2/4; mean 0.75.
    expect(of("top-p").improvementPeak!.value).toBeCloseTo(0.75, 6)
    // P(random > none): frozenlake [0.4, 0.6] vs [0.5, 0.7] → 1/4; sokoban [0.3, 0.5] vs [0.2, 0.2] → 1; mean 0.625.
    expect(of("random").improvementPeak!.value).toBeCloseTo(0.625, 6)
    expect(of("none").improvementPeak).toBeNull()
    const iv = of("top-p").improvementPeak!
    expect(iv.lo!).toBeLessThanOrEqual(0.75)
    expect(iv.hi!).toBeGreaterThanOrEqual(0.75)
    expect(lb.normalizers).toEqual([
      { env: "frozenlake", value: 1, assumed: false },
      { env: "sokoban", value: 1, assumed: false }
    ])
  })

  test("the noise floor: none on another sampling stream sits in none's row, paired, outside Holm and the ranking", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, [
      ...standardRuns.filter((r) => r.env === "frozenlake"),
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.55, samplingStream: 1 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.66, samplingStream: 1 },
      // The best peak of the row, yet a reference: it takes neither "best" nor a rank.
      { env: "frozenlake", filter: "none", seed: 3, peak: 0.99, samplingStream: 1 }
    ])
    const lb = build(dir)
    expect(lb.rows.length).toBe(1)
    expect(lb.filters).toEqual(["none", NOISE_FLOOR, "random", "top-p"])
    const floor = lb.rows[0]!.cells.find((c) => c.filter === NOISE_FLOOR)!
    expect(floor.kind).toBe("noise-floor")
    expect(floor.best).toBe(false)
    expect(lb.rows[0]!.cells.find((c) => c.best)!.filter).toBe("top-p")
    // Pairs on seeds 1, 2: 0.55 − 0.5 = 0.05, 0.66 − 0.7 = −0.04; seed 3 has no partner.
    expect(floor.delta!.n).toBe(2)
    expect(floor.delta!.unpaired).toBe(1)
    expect(floor.delta!.mean).toBeCloseTo(0.005, 6)
    expect(floor.delta!.inFamily).toBe(false)
    expect(floor.delta!.separated).toBe(false)
    expect(floor.delta!.pHolm).toBeNull()
    expect(floor.delta!.level).toBe(0.95)
    // Its sd (0.0636396) still says how many seeds a 5-point difference would need: (2.801585·0.0636396/0.05)² = 12.7 → 13.
    expect(floor.delta!.seedsNeeded).toBe(13)
    expect(lb.family.peak).toBe(2)
    expect(lb.ranking.map((r) => r.filter)).not.toContain(NOISE_FLOOR)
    expect(lb.entries.filter((e) => e.samplingStream === 1).length).toBe(3)
    const across = lb.across.find((a) => a.filter === NOISE_FLOOR)!
    expect(across.kind).toBe("noise-floor")
    // P(none′ > none) on frozenlake: [0.55, 0.66, 0.99] vs [0.5, 0.7]: 0.55 > 0.5 (1), 0.66 > 0.5 (1), 0.99 > both (2) → 4/6.
    expect(across.improvementPeak!.value).toBeCloseTo(4 / 6, 6)
  })

  test("unpaired seeds: only shared seeds pair; one pair has a mean but no interval, p or power", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.7 },
      { env: "frozenlake", filter: "top-k", seed: 1, peak: 0.6 },
      { env: "frozenlake", filter: "top-k", seed: 3, peak: 0.9 },
      { env: "frozenlake", filter: "random", seed: 4, peak: 0.9 }
    ])
    const lb = build(dir)
    const topk = lb.rows[0]!.cells.find((c) => c.filter === "top-k")!
    expect(topk.peak).toMatchObject({ mean: 0.75, n: 2 })
    expect(topk.delta).toMatchObject({ n: 1, unpaired: 2, lo: null, hi: null, p: null, pHolm: null, separated: false, inFamily: false, seedsNeeded: null })
    expect(topk.delta!.mean).toBeCloseTo(0.1, 6)
    // No shared seed at all: no delta.
    expect(lb.rows[0]!.cells.find((c) => c.filter === "random")!.delta).toBeNull()
    expect(lb.family.peak).toBe(0)
    // One seed: a mean without an interval.
    expect(lb.rows[0]!.cells.find((c) => c.filter === "random")!.peak).toEqual({ mean: 0.9, lo: null, hi: null, n: 1 })
  })

  test("budgets: per run summed over steps, per cell the mean per run; absent metrics stay null", () => {
    const dir = join(tempDir("lb"), "results")
    const [a] = writeRuns(dir, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5, budget: { envSteps: 100, tokens: 5000, rollouts: 128, optimizerSteps: 4 } },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.7, budget: { envSteps: 120, tokens: 6000, rollouts: 128, optimizerSteps: 4 } },
      { env: "frozenlake", filter: "dapo-dynamic", seed: 1, peak: 0.6, budget: { envSteps: 300, tokens: 9000, rollouts: 384, optimizerSteps: 2 } },
      { env: "frozenlake", filter: "dapo-dynamic", seed: 2, peak: 0.6 }
    ])
    const lb = build(dir)
    const none = lb.rows[0]!.cells.find((c) => c.filter === "none")!
    // Logged at steps 1..4: run 1 sums 400 env steps, 20 000 tokens, 512 rollouts, 16 updates; run 2: 480, 24 000, 512, 16.
    expect(none.budget).toEqual({ envSteps: 440, tokens: 22000, rollouts: 512, optimizerSteps: 16 })
    // Only one of the filter's runs logged its budget: the mean over the runs that did.
    expect(lb.rows[0]!.cells.find((c) => c.filter === "dapo-dynamic")!.budget).toEqual({ envSteps: 1200, tokens: 36000, rollouts: 1536, optimizerSteps: 8 })
    expect(lb.entries.find((e) => e.filter === "dapo-dynamic" && e.seed === 2)!.budget.rollouts).toBeNull()
    // A resumed run that logs a step twice counts it once (the last line); a compact record's sums are taken as given.
    const run = Effect.runSync(collectRuns([dir], join(dir, "..", "site"))).runs.find((r) => r.run.dir === a)!.run
    const twice = { ...run, metrics: { ...run.metrics, lines: [...run.metrics.lines, { step: 4, "budget/rollouts": 100 }] } }
    expect(budgetOf(twice).rollouts).toBe(128 * 3 + 100)
    expect(budgetOf({ ...run, budget: { "budget/tokens": 7 } } as never)).toEqual({ envSteps: null, tokens: 7, rollouts: null, optimizerSteps: null })
  })

  test("runs pool only under equal resolved configs and semantics version; cells carry their config hash", () => {
    const dir = join(tempDir("lb"), "results")
    const [, b] = writeRuns(dir, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.7 }
    ])
    const pooled = build(dir)
    expect(pooled.rows.length).toBe(1)
    expect(pooled.rows[0]!.cells[0]!.peak.n).toBe(2)
    expect(pooled.rows[0]!.cells[0]!.configHash).toMatch(/^[0-9a-f]{12}$/)
    // The same config under another semantics version is another row, and says so.
    const cfgPath = join(b!, "config.json")
    writeFileSync(cfgPath, JSON.stringify({ ...JSON.parse(readFileSync(cfgPath, "utf8")), semantics: 99 }))
    const split = build(dir)
    expect(split.rows.map((r) => r.semantics).sort((a, b) => a - b)).toEqual([SEMANTICS_VERSION, 99])
    expect(split.rows.map((r) => r.setting).sort()).toEqual([`semantics=${SEMANTICS_VERSION}`, "semantics=99"])
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
    expect(lb.rows.find((r) => r.algo === "ppo")!.baseline).toEqual({ mean: 0.5, lo: null, hi: null, n: 1 })
  })

  test("writeSite writes JSON, Markdown and HTML; the build is deterministic", () => {
    const base = tempDir("lb")
    const dir = join(base, "results")
    writeRuns(dir, [...standardRuns, { env: "sokoban", filter: "top-k", seed: 1, peak: 0.3, status: "failed" }])
    const site = join(base, "site")
    const w = Effect.runSync(writeSite([dir], site, undefined, { minPairs: 2 }))
    const json = readFileSync(w.files.json, "utf8")
    Effect.runSync(writeSite([dir], site, undefined, { minPairs: 2 }))
    expect(readFileSync(w.files.json, "utf8")).toBe(json)
    const md = readFileSync(w.files.md, "utf8")
    expect(md).toContain("| frozenlake | grpo | – | 60.0 [50.0, 70.0] (n=2) | -10.0 [-10.0, -10.0] ✓ (n=2) | **+25.0 [+20.0, +30.0] ✓ (n=2)** |")
    // The per-cell table and the legend carry every statistic.
    expect(md).toContain(
      "| frozenlake | grpo | – | top-p | 2 | 85.0 [80.0, 90.0] | 63.7 [60.0, 67.5] | 2 | +25.0 [+20.0, +30.0] | 98.33% | <0.001 (<0.001) | ✓ | +18.8 [+15.0, +22.5] | 98.33% | ✓ | 16 | — | — | — | — |"
    )
    expect(md).toContain("| grpo | top-p | frozenlake, sokoban | 55.0 [")
    for (const term of ["**peak, last-3**", "**separated ✓**", "**none′ \\(noise floor\\)**", "**seeds for ±5**", "**IQM**", "**P\\(&gt; none\\)**", "**budget**"]) expect(md).toContain(term)
    expect(md).toContain("## Runs not complete")
    expect(md).not.toContain("<img")
    expect(renderMarkdown(w.leaderboard)).toBe(md)
  })

  test("nice ticks", () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1])
    expect(niceTicks(0, 47)).toEqual([0, 10, 20, 30, 40])
  })
})

describe("leaderboard build: the default minimum of pairs", () => {
  test("with fewer than 4 pairs a comparison is shown but never separated (two same-sign deltas give bootstrap p ≈ 0)", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const lb = build(dir, join(dir, "..", "site"), null)
    expect(lb.family).toEqual({ peak: 0, last3: 0, alpha: 0.05 })
    const topp = lb.rows[0]!.cells.find((c) => c.filter === "top-p")!.delta!
    expect(topp.n).toBe(2)
    expect(topp.p).toBe(0.0002)
    expect(topp.separated).toBe(false)
    expect(topp.inFamily).toBe(false)
  })
})
