/**
 * The site in a real headless Chromium (Debian's `chromium`, driven by playwright-core), opened
 * from a copy of site/ alone in a fresh folder: the plots render with a size, every link of every
 * page resolves inside the copy, a click on a line opens its runs, the search box filters, and the
 * page reads at 1,400 px and at a phone's 390 px (no horizontal overflow of the body, no text cut
 * off outside a scrolling table). Screenshots of both widths go to the temp folder (printed).
 * Skips with a reason when /usr/bin/chromium is missing outside CI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { cpSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { tempDir } from "../sweep/helpers.ts"
import { buildSiteFixture } from "./site-fixture.ts"

const CHROMIUM = "/usr/bin/chromium"
const available = existsSync(CHROMIUM)
if (!available) {
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: .ci/run must apt-get install chromium`)
  console.log(`skipping the site's headless-browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`)
}

let copy = ""
let browser: BrowserContext | undefined
const profile = mkdtempSync(join(tmpdir(), "ragen-chromium-"))

beforeAll(async () => {
  if (!available) return
  const fx = await buildSiteFixture(tempDir("site-browser"))
  // site/ alone, in a fresh folder; the results it was built from are gone.
  copy = join(mkdtempSync(join(tmpdir(), "ragen-site-copy-")), "site")
  cpSync(fx.siteDir, copy, { recursive: true })
  rmSync(join(fx.siteDir, ".."), { recursive: true, force: true })
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"]
  })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  rmSync(profile, { recursive: true, force: true })
})

const open = async (width: number, file = "index.html"): Promise<Page> => {
  const page = await browser!.newPage()
  await page.setViewportSize({ width, height: 900 })
  await page.goto(pathToFileURL(join(copy, file)).href)
  return page
}

/** Elements whose box leaves the viewport on the right, outside a horizontally scrolling table. */
const overflow = (page: Page): Promise<{ scroll: number; width: number; out: string[] }> =>
  page.evaluate(() => {
    const out: string[] = []
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      if (el.closest(".wide") || (el as HTMLElement).offsetParent === null) continue
      const r = el.getBoundingClientRect()
      if (r.width > 0 && r.right > window.innerWidth + 1) out.push(`${el.tagName.toLowerCase()}.${el.getAttribute("class") ?? ""}: ${Math.round(r.right)}`)
    }
    return { scroll: document.documentElement.scrollWidth, width: window.innerWidth, out: out.slice(0, 10) }
  })

describe("the site in headless Chromium, from a copied site/", () => {
  test("the plots render with a size; a click on a line opens its cell's runs; the search box filters", async () => {
    if (!available) return // reason printed above
    const page = await open(1400)
    const errors: string[] = []
    page.on("pageerror", (e) => errors.push(String(e)))
    for (const sel of ["#forest svg.forest", "#across-plots svg.iqm", "#across-plots svg.improvement", "section.group svg.curves"]) {
      const boxes = await page.$$eval(sel, (els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.width, r.height]))
      expect(boxes.length).toBeGreaterThan(0)
      for (const [w, h] of boxes) expect(w! * h!).toBeGreaterThan(100 * 50)
    }
    expect(await page.locator("section.group svg polygon.band").count()).toBeGreaterThan(0)
    await page.locator("#q").fill("sokoban")
    expect(await page.locator('#forest figure[data-search*="frozenlake"]').isVisible()).toBe(false)
    expect(await page.locator('#forest figure[data-search*="sokoban"]').isVisible()).toBe(true)
    await page.locator("#q").fill("")
    await page.locator('#forest a.item[data-label="top-p"]').first().click()
    await page.waitForURL(/rows\/.+\.html#cell-\d+$/)
    const anchor = new URL(page.url()).hash.slice(1)
    expect(await page.locator(`section#${anchor} table.runs tbody tr`).count()).toBe(7)
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  test("every link of every page resolves inside the copied site", async () => {
    if (!available) return
    const page = await browser!.newPage()
    const root = pathToFileURL(copy).href
    const seen = new Set<string>()
    const queue = [pathToFileURL(join(copy, "index.html")).href]
    let links = 0
    const ids = new Map<string, Set<string>>()
    const anchors: Array<[string, string]> = []
    while (queue.length) {
      const url = queue.shift()!
      if (seen.has(url)) continue
      seen.add(url)
      await page.goto(url)
      ids.set(url, new Set(await page.$$eval("[id]", (els) => els.map((e) => e.id))))
      // HTML and SVG links alike, resolved against the page.
      const hrefs = await page.$$eval("a[href]", (as) => as.map((a) => new URL(a.getAttribute("href")!, document.baseURI).href))
      for (const href of hrefs) {
        links++
        expect(href.startsWith(`${root}/`)).toBe(true)
        const target = new URL(href)
        const path = fileURLToPath(`${target.origin === "null" ? "file://" : target.origin}${target.pathname}`)
        expect(existsSync(path) && statSync(path).isFile()).toBe(true)
        if (path.endsWith(".html")) queue.push(`file://${target.pathname}`)
        if (target.hash && path.endsWith(".html")) anchors.push([`file://${target.pathname}`, decodeURIComponent(target.hash.slice(1))])
      }
    }
    // Every #fragment names an element of its page.
    for (const [url, id] of anchors) expect(`${url}#${ids.get(url)?.has(id) ? "found" : id}`).toBe(`${url}#found`)
    expect(anchors.length).toBeGreaterThan(20)
    expect(seen.size).toBeGreaterThan(8) // index, rows, episode pages, side-by-side pages
    expect(links).toBeGreaterThan(100)
    await page.close()
  }, 90_000)

  for (const width of [1400, 390]) {
    test(`readable at ${width} px: no horizontal overflow, nothing cut off; a screenshot`, async () => {
      if (!available) return
      for (const file of ["index.html", "rows/1-frozenlake-grpo.html"]) {
        const page = await open(width, file)
        const o = await overflow(page)
        expect(o.out).toEqual([])
        expect(o.scroll).toBeLessThanOrEqual(o.width)
        if (file === "index.html") {
          const shot = join(tmpdir(), `ragen-leaderboard-${width}.png`)
          await page.screenshot({ path: shot, fullPage: true })
          expect(statSync(shot).size).toBeGreaterThan(20_000)
          console.log(`screenshot: ${shot}`)
        }
        await page.close()
      }
    }, 60_000)
  }
})
