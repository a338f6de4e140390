import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { decodeSync } from "../../core/schema/decode.ts"
import { runIdOf } from "../../core/results/store.ts"
import { SEMANTICS_VERSION } from "../../core/semantics.ts"
import { budgetOf, buildLeaderboard, collectRuns, envName, NOISE_FLOOR, normalizerOf, ranksDesc } from "../../plugins/leaderboard/build.ts"
import { renderMarkdown } from "../../plugins/leaderboard/markdown.ts"
import { Leaderboard } from "../../plugins/leaderboard/schema.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { niceTicks } from "../../plugins/leaderboard/svg.ts"
import { tempDir } from "../sweep/helpers.ts"
import { corrupt, sevenSeedRuns, standardRuns, writeRuns } from "./fixtures.ts"

const build = (dir: string, site = join(dir, "..", "site")) => Effect.runSync(Effect.map(collectRuns([dir], site), (c) => buildLeaderboard({ ...c, siteDir: site })))

describe("leaderboard build", () => {
  test("average ranks; env names and normalizers", () => {
    expect(ranksDesc([0.2, 0.5, 0.2, 0.1])).toEqual([2.5, 1, 2.5, 4])
    expect(envName("envs/sokoban-v1")).toBe("sokoban")
    expect(normalizerOf("envs/frozenlake-v2")).toEqual({ value: 1, assumed: false })
    expect(normalizerOf("mine/maze")).toEqual({ value: 1, assumed: true })
  })

  test("paper-style table at 2 seeds: t intervals, the area as primary score, no verdict possible, no best mark, the ranking", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const lb = build(dir)
    expect(decodeSync(Leaderboard, JSON.parse(JSON.stringify(lb))).ok).toBe(true)
    expect(lb.filters).toEqual(["none", "random", "top-p"])
    expect(lb.rows.map((r) => r.env)).toEqual(["frozenlake", "sokoban"])
    const fl = lb.rows[0]!
    const none = fl.cells.find((c) => c.filter === "none")!
    // Each curve is peak·s/4 at steps 0..4: area = mean over steps 1..4 = 0.625·peak; last-3 = 0.75·peak.
    // none's peaks 0.5, 0.7: mean 0.6, sd 0.141421, t_{.975,1} = 12.706205: 0.6 ± 12.706205·0.1.
    expect(none.peak).toEqual({ mean: 0.6, lo: -0.67062, hi: 1.87062, n: 2 })
    expect(none.auc!.mean).toBe(0.375)
    expect(fl.baseline).toEqual(none.auc)
    expect(none.last3!.mean).toBe(0.45)
    expect(none.kind).toBe("baseline")
    expect(none.delta).toBeNull()
    expect(none.kept).toEqual({ groups: 1, nonZeroSpread: null, zeroSpread: null })
    const topp = fl.cells.find((c) => c.filter === "top-p")!
    expect(topp.seeds).toEqual([1, 2])
    // Paired by seed on the area: 0.625·(0.8 − 0.5, 0.9 − 0.7) = 0.1875, 0.125 → mean 0.15625; both positive: sign-flip p = 2/4.
    const d = topp.delta!
    expect(d).toMatchObject({ n: 2, unpaired: 0, p: 0.5, minP: 0.5, pHolm: null, separated: false, inFamily: false, verdict: "cannot-separate" })
    expect(d.mean).toBeCloseTo(0.15625, 6)
    expect(topp.deltaPeak!.mean).toBeCloseTo(0.25, 6)
    expect(topp.deltaLast3!.mean).toBeCloseTo(0.1875, 6)
    expect(topp.deltaFactAuc).toBeNull()
    // Two pairs: the smallest sign-flip p is 2/4 > α, so nothing joins the family.
    expect(lb.family).toEqual({ primary: 0, last3: 0, peak: 0, factAuc: 0, selection: 0, alpha: 0.05, test: "sign-flip" })
    expect(lb.rows.flatMap((r) => r.cells.filter((c) => c.best))).toEqual([])
    expect(lb.verdict.sentence).toStartWith("No filter can separate from none at these seeds: n = 2 cannot separate at this family size")
    expect(lb.verdict.separated).toEqual([])
    // Two seeds cannot rank a filter (its comparison cannot separate at this family size): none alone
    // ranks, and top-p and random are listed as not ranked, with the 8 pairs the sign-flip test needs at α/2.
    expect(lb.ranking.map((r) => [r.filter, r.meanRank, r.wins])).toEqual([["none", 1, 0]])
    expect(lb.notRanked).toEqual([
      { filter: "random", rows: 2, n: 2, needed: 8 },
      { filter: "top-p", rows: 2, n: 2, needed: 8 }
    ])
    expect(renderMarkdown(lb)).toContain("| top-p | not ranked in 2 rows: n = 2 \\(8 seeds needed\\) | | | |")
    expect(lb.entries.length).toBe(12)
    expect(lb.entries[0]!.path.startsWith("../results/")).toBe(true)
    // No budget metrics in these runs: every budget is null ("—" on the page).
    expect(topp.budget).toEqual({ envSteps: null, tokens: null, rollouts: null, optimizerSteps: null })
    expect(topp.kept.groups).toBe(0.5)
  })

  test("verdicts at 7 seeds: better and worse read differently, best only for separated-better, the first sentence names them", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, sevenSeedRuns)
    const lb = build(dir)
    const cell = (f: string) => lb.rows[0]!.cells.find((c) => c.filter === f)!
    // Seven same-sign differences: exact sign-flip p = 2/128. Holm over 3: 0.015625 ≤ 0.05/3, then ≤ 0.05/2; random's p is large.
    expect(lb.family.primary).toBe(3)
    expect(cell("top-p").delta).toMatchObject({ n: 7, p: 0.015625, verdict: "better", separated: true, inFamily: true })
    expect(cell("drop").delta).toMatchObject({ n: 7, p: 0.015625, verdict: "worse", separated: true })
    expect(cell("random").delta!.verdict).toBe("not-separated")
    expect(cell("random").delta!.p!).toBeGreaterThan(0.05)
    // top-p: deltas 0.625·(0.1 + 0.01·(seed mod 3)), mean 0.06875; level of the first by p (ties keep page order: drop) 1 − 0.05/3, the second 1 − 0.05/2.
    expect(cell("drop").delta!.level).toBe(0.983333)
    expect(cell("top-p").delta!.level).toBe(0.975)
    expect(cell("top-p").delta!.lo!).toBeGreaterThan(0)
    expect(cell("top-p").best).toBe(true)
    expect(cell("none").best).toBe(false)
    expect(cell("drop").best).toBe(false)
    expect(lb.ranking.find((r) => r.filter === "top-p")!.wins).toBe(1)
    expect(lb.verdict.separated.map((x) => [x.filter, x.verdict])).toEqual([
      ["drop", "worse"],
      ["top-p", "better"]
    ])
    expect(lb.verdict.sentence).toContain("top-p above none on frozenlake by +6.9 points (n = 7)")
    expect(lb.verdict.sentence).toContain("drop below none on frozenlake")
    expect(lb.verdict.sentence).toContain("The other 1 comparison does not separate.")
    const md = renderMarkdown(lb)
    expect(md.split("\n")[2]).toBe(`**${lb.verdict.sentence.replace(/[()]/g, (c) => `\\${c}`)}**`)
    expect(md).toContain("▲ better")
    expect(md).toContain("▼ worse")
    expect(md).toContain("★ best")
  })

  test("testable but not separated: the first sentence says no filter separates beyond the noise floor", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(
      dir,
      sevenSeedRuns.filter((r) => r.filter === "none" || r.filter === "random")
    )
    const lb = build(dir)
    expect(lb.verdict.sentence).toBe("No filter separates from none beyond the noise floor on the area under the validation curve (n = 7; Holm over 1 comparison at α = 0.05, exact sign-flip test).")
  })

  test("a row where none does not learn stays on the page, marked, out of the ranking and the aggregates", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, [
      ...standardRuns.filter((r) => r.env === "frozenlake"),
      { env: "webshop", filter: "none", seed: 1, peak: 0 },
      { env: "webshop", filter: "none", seed: 2, peak: 0 },
      { env: "webshop", filter: "top-p", filterOptions: { p: 0.9 }, seed: 1, peak: 0 },
      { env: "webshop", filter: "top-p", filterOptions: { p: 0.9 }, seed: 2, peak: 0 }
    ])
    const lb = build(dir)
    const ws = lb.rows.find((r) => r.env === "webshop")!
    expect(ws.notLearning).toBe("none does not learn: validation success is 0 at every evaluation")
    expect(lb.rows.find((r) => r.env === "frozenlake")!.notLearning).toBeNull()
    // top-p's two seeds cannot rank it in frozenlake; webshop is out of the ranking before that.
    expect(lb.notRanked!.find((r) => r.filter === "top-p")!.rows).toBe(1)
    expect(lb.across.find((a) => a.filter === "top-p")!.envs).toEqual(["frozenlake"])
    expect(renderMarkdown(lb)).toContain("- webshop: none does not learn: validation success is 0 at every evaluation")
  })

  test("a row where none's area does not rise above its step-0 success, at a testable n, is marked and left out of the aggregates", () => {
    const dir = join(tempDir("lb"), "results")
    const seeds = [1, 2, 3, 4, 5, 6]
    writeRuns(dir, [
      // searchqa: none starts at 0.5 and ends at 0.45 or 0.55 by turns (mean rise 0); frozenlake rises on every seed.
      ...seeds.flatMap((seed) => [
        { env: "searchqa", filter: "none", seed, start: 0.5, peak: seed % 2 ? 0.45 : 0.55 },
        { env: "searchqa", filter: "top-p", filterOptions: { p: 0.9 }, seed, start: 0.5, peak: 0.5 },
        { env: "frozenlake", filter: "none", seed, start: 0.3, peak: 0.5 + 0.01 * seed },
        { env: "frozenlake", filter: "top-p", filterOptions: { p: 0.9 }, seed, start: 0.3, peak: 0.5 }
      ])
    ])
    const lb = build(dir)
    expect(lb.rows.find((r) => r.env === "searchqa")!.notLearning).toBe("none does not learn: its area does not rise above its step-0 success (+0.0 points [-3.6, 3.6], p = 1.000 (n = 6))")
    expect(lb.rows.find((r) => r.env === "frozenlake")!.notLearning).toBeNull()
    expect(lb.across.find((a) => a.filter === "top-p")!.envs).toEqual(["frozenlake"])
    // Two seeds can never show a rise with the sign-flip test: the fixture rows above stay unjudged.
    const two = join(tempDir("lb"), "results")
    writeRuns(
      two,
      seeds.slice(0, 2).flatMap((seed) => [{ env: "searchqa", filter: "none", seed, start: 0.5, peak: 0.5 }])
    )
    expect(build(two).rows[0]!.notLearning).toBeNull()
  })

  test("across envs: IQM of normalized scores and P(filter > none), by hand", () => {
    const dir = join(tempDir("lb"), "results")
    writeRuns(dir, standardRuns)
    const lb = build(dir)
    const of = (f: string) => lb.across.find((a) => a.algo === "grpo" && a.filter === f)!
    // IQM over all (run, env) areas (0.625·peak), cut ⌊4/4⌋ = 1 each end:
    // none [0.2, 0.2, 0.5, 0.7] → (0.2 + 0.5)/2 = 0.35; top-p [0.1, 0.3, 0.8, 0.9] → 0.55; random [0.3, 0.4, 0.5, 0.6] → 0.45 (×0.625).
    expect(of("none").iqm!.value).toBeCloseTo(0.625 * 0.35, 6)
    expect(of("top-p").iqm!.value).toBeCloseTo(0.625 * 0.55, 6)
    expect(of("random").iqm!.value).toBeCloseTo(0.625 * 0.45, 6)
    expect(of("none").iqm!.tasks).toBe(2)
    expect(of("none").iqm!.runs).toBe(4)
    expect(of("none").envs).toEqual(["frozenlake", "sokoban"])
    // Last-3 is 0.75·peak for every run, so its IQM is 0.75 · the peak IQM.
    expect(of("top-p").iqmLast3!.value).toBeCloseTo(0.75 * 0.55, 6)
    // P(top-p > none) on the area (same order as the peaks): frozenlake [0.8, 0.9] vs [0.5, 0.7] → 1; sokoban [0.1, 0.3] vs [0.2, 0.2] → 2/4; mean 0.75.
    expect(of("top-p").improvement!.value).toBeCloseTo(0.75, 6)
    // P(random > none): frozenlake [0.4, 0.6] vs [0.5, 0.7] → 1/4; sokoban [0.3, 0.5] vs [0.2, 0.2] → 1; mean 0.625.
    expect(of("random").improvement!.value).toBeCloseTo(0.625, 6)
    expect(of("none").improvement).toBeNull()
    const iv = of("top-p").improvement!
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
    // Pairs on seeds 1, 2 (area = 0.625·peak): 0.625·(0.55 − 0.5), 0.625·(0.66 − 0.7); seed 3 has no partner.
    expect(floor.delta!.n).toBe(2)
    expect(floor.delta!.unpaired).toBe(1)
    expect(floor.delta!.mean).toBeCloseTo(0.625 * 0.005, 6)
    expect(floor.delta!.inFamily).toBe(false)
    expect(floor.delta!.separated).toBe(false)
    expect(floor.delta!.verdict).toBe("cannot-separate")
    expect(floor.delta!.pHolm).toBeNull()
    expect(floor.delta!.level).toBe(0.95)
    // Its sd (0.625·0.0636396 = 0.0397748) still says how many seeds a 5-point difference would need: the smallest n with
    // n ≥ ((t.975,n−1 + t.80,n−1)·0.0397748/0.05)² is 8 (at 7: (2.4469 + 0.9057)²·0.6328 = 7.11); the sign-flip needs 6 at α.
    expect(floor.delta!.seedsNeeded).toBe(8)
    expect(lb.family.primary).toBe(0)
    expect(lb.ranking.map((r) => r.filter)).not.toContain(NOISE_FLOOR)
    expect(lb.entries.filter((e) => e.samplingStream === 1).length).toBe(3)
    const across = lb.across.find((a) => a.filter === NOISE_FLOOR)!
    expect(across.kind).toBe("noise-floor")
    // P(none′ > none) on frozenlake: [0.55, 0.66, 0.99] vs [0.5, 0.7]: 0.55 > 0.5 (1), 0.66 > 0.5 (1), 0.99 > both (2) → 4/6.
    expect(across.improvement!.value).toBeCloseTo(4 / 6, 6)
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
    expect(topk.delta).toMatchObject({ n: 1, unpaired: 2, lo: null, hi: null, p: null, pHolm: null, separated: false, inFamily: false, seedsNeeded: null, verdict: "cannot-separate" })
    expect(topk.delta!.mean).toBeCloseTo(0.0625, 6)
    // No shared seed at all: no delta.
    expect(lb.rows[0]!.cells.find((c) => c.filter === "random")!.delta).toBeNull()
    expect(lb.family.primary).toBe(0)
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
    // Its run id and hash are those of the config under version 99 (a run id that is not its config's hash is a renamed copy, left out).
    const cfg = JSON.parse(readFileSync(cfgPath, "utf8"))
    writeFileSync(cfgPath, JSON.stringify({ ...cfg, ...runIdOf(cfg.config, 99), semantics: 99 }))
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
    expect(lb.rows.find((r) => r.algo === "ppo")!.cells[0]!.peak).toEqual({ mean: 0.5, lo: null, hi: null, n: 1 })
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
    // Two pairs cannot separate: the mean without an interval, and the reason in words.
    expect(md).toContain("| frozenlake | grpo | – | 37.5 [-41.9, 116.9] (n=2) | -6.3 (n = 2 cannot separate at this family size) | +15.6 (n = 2 cannot separate at this family size) |")
    // The per-cell table and the legend carry every statistic.
    expect(md).toContain(
      "| frozenlake | grpo | – | top-p | 2 | 53.1 [13.4, 92.8] | 63.7 [16.1, 111.4] | 85.0 [21.5, 148.5] | – | 50% | — | 2 | +15.6 (n = 2 cannot separate at this family size) | – | 0.500 | +18.8 (n = 2 cannot separate at this family size) | +25.0 (n = 2 cannot separate at this family size) | – | 12 | — | — | — | — |"
    )
    expect(md).toContain("| grpo | top-p | frozenlake, sokoban | 34.4 [")
    for (const term of [
      "**area, last-3, peak, fact area**",
      "**verdict: ▲ better, ▼ worse, cannot separate**",
      "**none′ \\(noise floor\\)**",
      "**seeds for ±5**",
      "**IQM**",
      "**P\\(&gt; none\\)**",
      "**budget**",
      "**kept groups, kept non-zero-spread**"
    ])
      expect(md).toContain(term)
    expect(md).toContain("## Runs not complete")
    expect(md).not.toContain("<img")
    expect(renderMarkdown(w.leaderboard)).toBe(md)
  })

  test("nice ticks", () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1])
    expect(niceTicks(0, 47)).toEqual([0, 10, 20, 30, 40])
  })
})
