/**
 * The site as a whole (plugins/leaderboard/site.ts): the pictures and the marks say what the
 * numbers say, every link stays inside the site folder and finds its file, the runs' files and
 * the side-by-side episodes are there, yours and the reference's are told apart, cells.csv holds
 * the cells. The headless-browser checks of the same site are in site-browser.test.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { Window } from "happy-dom"
import { CSV_HEADER, renderCellsCsv } from "../../plugins/leaderboard/csv.ts"
import { colourOf, NOISE_FLOOR_COLOUR } from "../../plugins/leaderboard/plots/palette.ts"
import { tempDir } from "../sweep/helpers.ts"
import { buildSiteFixture, type SiteFixture } from "./site-fixture.ts"

let fx: SiteFixture
beforeAll(async () => {
  fx = await buildSiteFixture(tempDir("site"))
}, 120_000)

const doc = (file: string): any => {
  const w = new Window({ url: "file:///site/x.html" })
  w.document.write(readFileSync(file, "utf8"))
  return w.document
}

const htmlFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".html"))
    .map((f) => join(dir, f))

describe("the site's pages", () => {
  test("the first sentence states the verdict; the forest marks better and worse apart, with the noise floor as a band", () => {
    const d = doc(fx.site.files.html)
    const first = d.querySelector("body > p")
    expect(first.id).toBe("verdict")
    expect(first.textContent).toContain("top-p above none on frozenlake")
    expect(first.textContent).toContain("drop below none on frozenlake")
    // The first picture comes before any table.
    const order = [...d.querySelectorAll("h2")].map((h: any) => h.id)
    expect(order[0]).toBe("pictures-h")
    const fl = d.querySelector("#forest figure svg.forest")
    const item = (label: string) => fl.querySelector(`[data-label="${label}"]`)
    expect(item("top-p").textContent).toContain("▲ better")
    expect(item("drop").textContent).toContain("▼ worse")
    // The fixture's random keeps a fixed count (it controls no filter: controls.ts), so its label names the count.
    expect(fl.querySelector('[data-label^="random("]').textContent).toContain("≈ not separated")
    expect(item("top-p").querySelector("text.note-t").getAttribute("fill")).not.toBe(item("drop").querySelector("text.note-t").getAttribute("fill"))
    expect(item("none′ (noise floor)").textContent).toContain("noise floor")
    expect(fl.querySelectorAll("rect.band").length).toBe(1)
    // ★ only on the separated-better cell; never a bare ✓.
    expect([...d.querySelectorAll("#results td.best")].map((t: any) => t.textContent)).toEqual([expect.stringContaining("▲ better")])
    expect(d.body.textContent).not.toContain("✓ ")
  })

  test("one colour per filter label on every page; the noise floor grey", () => {
    expect(colourOf("top-p")).toBe(colourOf("top-p"))
    expect(colourOf("none′ (noise floor)")).toBe(NOISE_FLOOR_COLOUR)
    const page = ["none", "top-p", "random", "top-k"]
    expect(new Set(page.map((n) => colourOf(n, page))).size).toBe(4)
    const strokes = (file: string) => new Map([...doc(file).querySelectorAll("polyline[data-series]")].map((p: any) => [p.getAttribute("data-series"), p.getAttribute("stroke")]))
    const main = strokes(fx.site.files.html)
    const row = strokes(join(fx.siteDir, "rows", readdirSync(join(fx.siteDir, "rows")).sort()[0]!))
    for (const [name, stroke] of row) expect(main.get(name)).toBe(stroke)
    expect(main.get("top-p")).toBe(colourOf("top-p"))
  })

  test("learning curves: a band over seeds, on 0–100% for a rate, x from 0", () => {
    const d = doc(fx.site.files.html)
    const succ = d.querySelector('section.group figure[data-metric="val/success@0.5"] svg')
    expect(succ.querySelectorAll("polygon.band").length).toBeGreaterThan(0)
    const ticks = [...succ.querySelectorAll("text.tick")].map((t: any) => t.textContent)
    expect(ticks).toContain("0%")
    expect(ticks).toContain("100%")
    expect(ticks).toContain("0")
    // A click on a curve opens its cell's runs on the row's page.
    expect(succ.querySelector("a.curve").getAttribute("href")).toMatch(/^\.\/rows\/[^#]+\.html#cell-\d+$/)
  })

  test("every link of every page stays inside the site and finds its file and anchor", () => {
    const root = resolve(fx.siteDir)
    let links = 0
    for (const file of htmlFiles(root)) {
      for (const m of readFileSync(file, "utf8").matchAll(/href="([^"]*)"/g)) {
        const href = m[1]!.replace(/&amp;/g, "&")
        expect(href).not.toMatch(/^[a-z]+:/i)
        const [path, frag] = href.split("#") as [string, string | undefined]
        const target = path === "" ? file : resolve(dirname(file), decodeURIComponent(path))
        expect(relative(root, target).startsWith("..")).toBe(false)
        expect(existsSync(target)).toBe(true)
        if (frag && target.endsWith(".html")) expect(readFileSync(target, "utf8")).toContain(`id="${decodeURIComponent(frag)}"`)
        links++
      }
    }
    expect(links).toBeGreaterThan(100)
  })

  test("the runs' files are in the site; yours and the reference's are marked; each run links its episodes", () => {
    const d = doc(fx.site.files.html)
    const rows = [...d.querySelectorAll("#runs tbody tr")] as any[]
    const whose = (r: any) => r.cells[1].textContent
    const ref = rows.filter((r) => fx.reference.includes(r.cells[0].textContent))
    expect(ref.length).toBe(fx.reference.length)
    for (const r of ref) expect(whose(r)).toBe("reference")
    expect(rows.filter((r) => whose(r) === "yours").length).toBe(rows.length - ref.length)
    for (const e of fx.site.leaderboard.entries) expect(statSync(join(fx.siteDir, "runs", e.runId, "metrics.jsonl")).size).toBeGreaterThan(0)
    const withEpisodes = rows.filter((r) => r.querySelector('a[href*="episodes/"]'))
    expect(withEpisodes.length).toBe(3) // the trained runs kept samples
  })

  test("side by side: none against each other cell on the same seed, the noise floor marked", () => {
    const index = readFileSync(join(fx.siteDir, "episodes", "index.html"), "utf8")
    expect(index).toContain('id="side-by-side"')
    const pages = readdirSync(join(fx.siteDir, "episodes")).filter((f) => f.startsWith("vs-"))
    expect(pages.length).toBe(2)
    const texts = pages.map((f) => readFileSync(join(fx.siteDir, "episodes", f), "utf8"))
    const floor = texts.find((t) => t.includes("none′"))!
    expect(floor).toContain("The right-hand run is the noise floor")
    const other = texts.find((t) => !t.includes("none′"))!
    expect(other).toContain("Side by side: none | random, seed 1")
    expect(other).not.toContain("noise floor")
    // The noise floor's own episode page and its line in the index say what it is; the others do not.
    const floorRun = fx.site.leaderboard.entries.find((e) => e.samplingStream === 1 && e.env.includes("bandit"))!
    expect(readFileSync(join(fx.siteDir, "episodes", `${floorRun.runId}.html`), "utf8")).toContain("noise floor: none on sampling stream 1")
    expect(index.match(/<span class="floor">noise floor<\/span>/g)).toHaveLength(1)
    // Each step shows both sides of the same validation seeds.
    const d = doc(join(fx.siteDir, "episodes", pages[texts.indexOf(other)]!))
    const step = d.querySelector("section.step")
    expect(step.querySelectorAll("thead th").length).toBe(3)
    expect(step.querySelectorAll("tbody tr").length).toBeGreaterThan(0)
  })

  test("cells.csv: one line per cell with the verdict; text that a spreadsheet would run is defused", () => {
    const csv = readFileSync(join(fx.siteDir, "cells.csv"), "utf8").trim().split("\n")
    expect(csv[0]).toBe(CSV_HEADER.join(","))
    expect(csv.length - 1).toBe(fx.site.leaderboard.rows.reduce((n, r) => n + r.cells.length, 0))
    expect(csv.some((l) => l.includes('"top-p"') && l.includes(",better,"))).toBe(true)
    const lb = fx.site.leaderboard
    const hostile = { ...lb, rows: [{ ...lb.rows[0]!, env: '=HYPERLINK("http://x")', setting: '+1"' }] }
    expect(renderCellsCsv(hostile)).toContain(`"'=HYPERLINK(""http://x"")","`)
  })
})
