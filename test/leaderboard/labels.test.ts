/**
 * A page that names what it shows (issue 42, items 3–6): the sweep's filter labels are the page's
 * names (tables, plots, verdict); the quick page says "positive control"; every filter has a colour
 * and a dash pattern of its own, none near black; a filter whose seeds cannot rank it is listed as
 * not ranked; the verdict leads with the user's own filters; curves of different evaluation grids
 * are drawn on the steps every seed logged.
 */
import { beforeAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Window } from "happy-dom"
import { buildLeaderboard, CHART_METRICS, collectRuns } from "../../plugins/leaderboard/build.ts"
import { collectInputs } from "../../plugins/leaderboard/collect.ts"
import { isPositiveControl, labelOf, SUITE_LABELS, specLabels } from "../../plugins/leaderboard/labels.ts"
import { curveBands, onCommonGrid } from "../../plugins/leaderboard/plots/bands.ts"
import { COLOURS, filterStyles } from "../../plugins/leaderboard/plots/palette.ts"
import { filterNameKey, filterNames } from "../../plugins/leaderboard/row-identity.ts"
import type { Leaderboard } from "../../plugins/leaderboard/schema.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { pairsToReject } from "../../plugins/leaderboard/statistics/verdicts.ts"
import { presets } from "../../plugins/sweep/presets/index.ts"
import { root } from "../helpers/cli.ts"
import { grid, smallSpec, tempDir } from "../sweep/helpers.ts"
import { writeRuns } from "./fixtures.ts"

const QUICK_REFERENCE = join(root, "plugins/leaderboard/reference/quick")
const quick = presets.find((p) => p.name === "quick")!

const doc = (file: string): any => {
  const w = new Window({ url: "file:///site/x.html" })
  w.document.write(readFileSync(file, "utf8"))
  return w.document
}

/** The quick page, built from the published records as `leaderboard plugins/leaderboard/reference/quick --reference none` builds it. */
let quickPage: { lb: Leaderboard; html: string }
beforeAll(() => {
  const site = join(tempDir("labels-quick"), "site")
  const written = Effect.runSync(writeSite([QUICK_REFERENCE], site, collectInputs([QUICK_REFERENCE], site)))
  quickPage = { lb: written.leaderboard, html: written.files.html }
}, 120_000)

describe("the sweep's labels are the page's names", () => {
  test("every labelled filter of the suite presets: the page names its resolved config as the sweep prints it, and nothing else by it", () => {
    for (const name of ["quick", "standard", "standard-extended", "standard-v1"]) {
      const p = presets.find((x) => x.name === name)!
      const runs = grid({ ...p, axes: { ...p.axes, seeds: [1], env: [p.axes.env[0]!] } })
      const page = filterNames(
        runs.map((r) => r.config),
        SUITE_LABELS
      )
      let labelled = 0
      for (const r of runs) {
        const label = labelOf(r.config, SUITE_LABELS)
        if (label === undefined) continue
        labelled++
        // The sweep's run line is "<env> <algo> <filter label> … s1"; the page's name is that label.
        expect(r.label).toContain(` ${label} `)
        expect(page.get(filterNameKey(r.config))).toBe(label)
      }
      // Every filter but none (and its noise floor) has its label.
      expect(labelled).toBe(runs.filter((r) => r.config.filter !== "filters/none").length)
    }
    // A spec's own labels come before the suite's; an unlabelled choice of the suite's configuration gets the suite's label.
    const spec = smallSpec({ axes: { ...smallSpec().axes, filter: ["none", { id: "top-p", options: { p: 0.9 }, label: "my top-p" }, { id: "random", options: { like: "top-p", p: 0.9 } }] } })
    const runs = grid(spec)
    const page = filterNames(
      runs.map((r) => r.config),
      specLabels(spec.axes.filter),
      SUITE_LABELS
    )
    expect([...new Set(page.values())].sort()).toEqual(["my top-p", "none", "random (linear top-p's count)"])
    // Exact configurations only: a top-p with another eps is not the suite's linear top-p.
    expect(labelOf({ filter: "filters/top-p", filterOptions: { p: 0.9, eps: 0.05, metric: "std", includeZero: false } }, SUITE_LABELS)).toBeUndefined()
    expect(labelOf({ filter: "top-p", filterOptions: { p: 0.9 } }, SUITE_LABELS)).toBeUndefined()
  })

  test("the quick page's names are the quick sweep's labels, in every table, plot and the verdict", () => {
    const sweepLabels = ["none", ...specLabels(quick.axes.filter!).map((l) => l.label)]
    expect(sweepLabels).toContain("Q4 (lowest-spread quarter, positive control)")
    expect([...quickPage.lb.filters].sort()).toEqual([...sweepLabels, "none′ (noise floor)"].sort())
    const d = doc(quickPage.html)
    const q4 = "Q4 (lowest-spread quarter, positive control)"
    expect(d.querySelector("#verdict").textContent).toContain(`${q4} below none on sokoban-v1`)
    expect([...d.querySelectorAll("#results thead th")].map((th: any) => th.textContent)).toContain(`${q4} − none`)
    expect(d.querySelector(`#forest [data-label="${q4}"]`)).not.toBeNull()
    expect(d.querySelector(`#ranking tr[data-filter="${q4}"]`)).not.toBeNull()
    expect(d.querySelector(`section.group polyline[data-series="${q4}"]`)).not.toBeNull()
    expect(d.querySelector(`section.group .legend-line [data-series="${q4}"]`).textContent).toBe(q4)
    // The legend says what a positive control is.
    expect([...d.querySelectorAll("#legend dt")].map((dt: any) => dt.textContent)).toContain(q4)
    expect(quickPage.lb.filters.filter(isPositiveControl)).toEqual([q4])
    // No page name falls back to a bare id the sweep never printed.
    for (const bare of ["quantile", "top-p-softmax", "top-p", "random"]) expect(quickPage.lb.filters).not.toContain(bare)
  })

  test("a sweep's own labels (specLabels) name its runs, the most specific choice first", () => {
    const labels = specLabels([
      "none",
      { id: "spread/min-range", options: { minRange: 1 }, label: "min-range 1 (my filter)" },
      { id: "top-p", options: { p: 0.9 }, label: "any top-p 0.9" },
      { id: "top-p", options: { p: 0.9, includeZero: true }, label: "top-p 0.9 with zero" }
    ])
    expect(labelOf({ filter: "spread/min-range", filterOptions: { minRange: 1 } }, labels)).toBe("min-range 1 (my filter)")
    expect(labelOf({ filter: "filters/top-p", filterOptions: { p: 0.9, includeZero: true, eps: 0.01 } }, labels)).toBe("top-p 0.9 with zero")
    expect(labelOf({ filter: "filters/top-p", filterOptions: { p: 0.9, includeZero: false, eps: 0.01 } }, labels)).toBe("any top-p 0.9")
    // A label that would name two configurations present is not used: the files' names tell them apart.
    const names = filterNames(
      [
        { filter: "mine", filterOptions: { k: 1 } },
        { filter: "mine", filterOptions: { k: 2 } }
      ],
      [{ id: "mine", options: {}, label: "my filter" }]
    )
    expect([...names.values()].sort()).toEqual(["mine(k=1)", "mine(k=2)"])
  })
})

describe("every filter its own colour and dash pattern", () => {
  test("on the quick page, the two top-p rules differ in colour and in dash; no two filters share either", () => {
    const d = doc(quickPage.html)
    const style = new Map<string, { stroke: string; dash: string }>()
    for (const p of d.querySelectorAll('section.group figure[data-metric="val/success@0.5"] polyline[data-series]'))
      style.set(p.getAttribute("data-series"), { stroke: p.getAttribute("stroke"), dash: p.getAttribute("stroke-dasharray") ?? "" })
    const softmax = style.get("top-p 0.9 (softmax, include zero)")!
    const linear = style.get("top-p 0.9 (linear, drop zero)")!
    expect(softmax.stroke).not.toBe(linear.stroke)
    expect(softmax.dash).not.toBe(linear.dash)
    expect(style.size).toBe(quickPage.lb.filters.length)
    expect(new Set([...style.values()].map((s) => s.stroke)).size).toBe(style.size)
    expect(new Set([...style.values()].map((s) => s.dash)).size).toBe(style.size)
    // The legend line draws each as its curve is drawn.
    for (const [name, s] of style) {
      const line = d.querySelector(`section.group .legend-line [data-series="${name}"] line`)
      expect(line.getAttribute("stroke")).toBe(s.stroke)
      expect(line.getAttribute("stroke-dasharray") ?? "").toBe(s.dash)
    }
  })

  test("twelve filters, plain or labelled: unique colours and dashes; only none is black and solid; no colour near black", () => {
    const names = ["none", "none′ (noise floor)", "top-p", "top-p-softmax", "random", "quantile", "a", "b", "c", "d", "e", "f"]
    const styles = filterStyles(names)
    const others = names.filter((n) => !n.startsWith("none"))
    expect(new Set(others.map((n) => styles.get(n)!.colour)).size).toBe(others.length)
    expect(new Set(others.map((n) => styles.get(n)!.dash)).size).toBe(others.length)
    expect(styles.get("none")).toEqual({ colour: "#000000", dash: "" })
    for (const n of others) expect(styles.get(n)!.dash).not.toBe("")
    expect(styles.get("top-p")!.colour).not.toBe(styles.get("top-p-softmax")!.colour)
    // Contrast with black (WCAG relative luminance) of at least 2: the old dark brown #661100 had 1.6.
    const lum = (hex: string): number => {
      const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
    }
    for (const c of COLOURS) expect((lum(c) + 0.05) / 0.05).toBeGreaterThanOrEqual(2)
    expect((lum("#661100") + 0.05) / 0.05).toBeLessThan(2)
  })
})

/** Reference runs (none and a 9-seed filter) in one folder, the user's 2-seed filter in another. */
const userAndReference = (base: string) => {
  const ref = join(base, "reference")
  const mine = join(base, "mine")
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9]
  writeRuns(ref, [
    ...seeds.map((seed) => ({ env: "sokoban", filter: "none", seed, peak: 0.5 + 0.01 * seed, start: 0.4 })),
    ...seeds.map((seed) => ({ env: "sokoban", filter: "quantile", filterOptions: { lo: 0.75, hi: 1 }, seed, peak: 0.2 + 0.01 * seed, start: 0.4 }))
  ])
  // The user's filter ranks first by its mean (+30 points), from two seeds.
  writeRuns(
    mine,
    [1, 2].map((seed) => ({ env: "sokoban", filter: "spread/min-range", filterOptions: { minRange: 1 }, seed, peak: 0.9, start: 0.4 }))
  )
  return { ref, mine }
}

describe("the ranking and the verdict", () => {
  test("a 2-seed filter is not ranked (n = 2, the seeds its test needs) and the verdict leads with it", () => {
    const { ref, mine } = userAndReference(tempDir("labels-user"))
    const site = join(ref, "..", "site")
    const refRuns = Effect.runSync(collectRuns([ref], site))
    const myRuns = Effect.runSync(collectRuns([mine], site))
    const lb = buildLeaderboard({
      runs: [...myRuns.runs, ...refRuns.runs],
      problems: [],
      sources: ["mine", "reference"],
      siteDir: site,
      reference: refRuns.runs.map((r) => r.run.config.runId),
      labels: [{ id: "spread/min-range", options: { minRange: 1 }, label: "min-range 1 (my filter)" }]
    })
    const my = "min-range 1 (my filter)"
    expect(lb.filters).toContain(my)
    // Ranked: none and the 9-seed filter; the user's is listed apart, never first.
    expect(lb.ranking.map((r) => r.filter)).toEqual(["none", "quantile"])
    const needed = pairsToReject("sign-flip", 0.05 / 2)
    expect(lb.notRanked).toEqual([{ filter: my, rows: 1, n: 2, needed }])
    expect(lb.verdict.sentence).toStartWith(`Your filter: ${my} cannot separate from none on sokoban at n = 2 (${needed} seeds needed; +`)
    expect(lb.verdict.sentence).toContain("The reference's filters: ")
    expect(lb.verdict.sentence).toContain("quantile below none on sokoban")
    // Without a reference set nothing is "yours": the sentence is the page's usual one.
    const alone = buildLeaderboard({ runs: [...myRuns.runs, ...refRuns.runs], problems: [], sources: [], siteDir: site })
    expect(alone.verdict.sentence).not.toContain("Your filter")
  })

  test("the page lists the not-ranked filter in its ranking table with its reason", () => {
    const base = tempDir("labels-user-site")
    const { ref, mine } = userAndReference(base)
    const site = join(base, "site")
    const collected = Effect.map(collectRuns([mine, ref], site), (c) => ({ ...c, reference: c.runs.filter((r) => r.run.dir.startsWith(ref)).map((r) => r.run.config.runId) }))
    const written = Effect.runSync(writeSite([mine, ref], site, collected))
    const d = doc(written.files.html)
    const row = d.querySelector('#ranking tr.not-ranked[data-filter="min-range"]')
    expect(row.textContent).toContain("not ranked: n = 2 (")
    // Nor does the probability-of-improvement panel mark it above ½ from its two seeds.
    const improvement = [...d.querySelectorAll('#across-plots svg.improvement [data-label="min-range"] text')].map((t: any) => t.textContent)
    expect(improvement.join(" ")).toContain("? not ranked")
    expect(d.querySelector("#verdict").textContent).toStartWith("Your filter: min-range cannot separate")
  })
})

describe("curves of different evaluation grids", () => {
  test("a cell whose seeds log different steps is drawn on the steps every seed logged, in the JSON and on the page", () => {
    const base = tempDir("labels-grid")
    const dir = join(base, "results")
    const dirs = writeRuns(dir, [...[1, 2].map((seed) => ({ env: "sokoban", filter: "none", seed, peak: 0.5 })), ...[3, 4, 5].map((seed) => ({ env: "sokoban", filter: "none", seed, peak: 0.6 }))])
    // Seeds 3–5 as compact records keep them: their evaluation steps only (0, 2, 4).
    for (const d of dirs.slice(2)) {
      const path = join(d, "metrics.jsonl")
      const lines = readFileSync(path, "utf8").trim().split("\n")
      writeFileSync(path, `${lines.filter((l) => [0, 2, 4].includes(JSON.parse(l).step)).join("\n")}\n`)
    }
    const site = join(base, "site")
    const c = Effect.runSync(collectRuns([dir], site))
    const lb = buildLeaderboard({ ...c, siteDir: site })
    const series = lb.groups[0]!.charts.find((ch) => ch.metric === "train/entropy")!.series.find((s) => s.name === "none")!
    expect(series.points.map((p) => p[0])).toEqual([0, 2, 4])
    const bands = curveBands(
      c.runs,
      lb.entries,
      CHART_METRICS.map((m) => m.metric)
    )
    const pts = bands.get(lb.rows[0]!.key)!.get("none")!.get("train/entropy")!
    expect(pts.map((p) => [p[0], p[4]])).toEqual([
      [0, 5],
      [2, 5],
      [4, 5]
    ])
    const written = Effect.runSync(writeSite([dir], site))
    const poly = doc(written.files.html).querySelector('section.group figure[data-metric="train/entropy"] polyline[data-series="none"]')
    expect(poly.getAttribute("points").split(" ").length).toBe(3)
  })

  test("onCommonGrid: shared steps when there are; else the largest set of seeds on one grid, alone", () => {
    const m = (entries: Array<[number, Array<[number, number]>]>) => new Map(entries.map(([s, vs]) => [s, new Map(vs)]))
    // Every seed at every step: all kept.
    expect(
      onCommonGrid(
        m([
          [
            1,
            [
              [1, 0.1],
              [2, 0.2]
            ]
          ],
          [
            2,
            [
              [1, 0.1],
              [2, 0.2]
            ]
          ]
        ])
      ).map(([s]) => s)
    ).toEqual([1, 2])
    // Seed 1 every step, seeds 2–3 at steps 0 and 10: the shared steps.
    expect(
      onCommonGrid(
        m([
          [
            0,
            [
              [1, 0],
              [2, 0],
              [3, 0]
            ]
          ],
          [5, [[1, 0]]],
          [
            10,
            [
              [1, 0],
              [2, 0],
              [3, 0]
            ]
          ]
        ])
      ).map(([s, v]) => [s, v.size])
    ).toEqual([
      [0, 3],
      [10, 3]
    ])
    // Grids that meet at one step only: seeds 2–3 (the larger set) on their own grid.
    const apart = onCommonGrid(
      m([
        [1, [[1, 0]]],
        [2, [[1, 0]]],
        [
          3,
          [
            [1, 0],
            [2, 0],
            [3, 0]
          ]
        ],
        [
          6,
          [
            [2, 0],
            [3, 0]
          ]
        ],
        [
          9,
          [
            [2, 0],
            [3, 0]
          ]
        ]
      ])
    )
    expect(apart.map(([s, v]) => [s, [...v.keys()]])).toEqual([
      [3, [2, 3]],
      [6, [2, 3]],
      [9, [2, 3]]
    ])
  })
})
