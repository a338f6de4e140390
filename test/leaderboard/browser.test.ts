/**
 * End to end in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * open index.html from file://, click a column header, check the order, take a screenshot
 * into its temporary folder. Skips with a reason when /usr/bin/chromium is missing outside CI.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { chromium } from "playwright-core"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { tempDir } from "../sweep/helpers.ts"
import { standardRuns, writeRuns } from "./fixtures.ts"

const CHROMIUM = "/usr/bin/chromium"
const available = existsSync(CHROMIUM)
if (!available) {
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: .ci/run must apt-get install chromium`)
  console.log(`skipping the headless-browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`)
}

describe("leaderboard page in headless Chromium", () => {
  test("sorts by a clicked header and renders the charts", async () => {
    if (!available) return // reason printed above
    const base = tempDir("browser")
    writeRuns(join(base, "results"), standardRuns)
    const site = Effect.runSync(writeSite([join(base, "results")], join(base, "site")))
    const profile = mkdtempSync(join(tmpdir(), "ragen-chromium-"))
    // A fresh profile (--user-data-dir) per run: playwright takes it as launchPersistentContext's argument.
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1200, height: 900 },
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"]
    })
    try {
      const page = await browser.newPage()
      const errors: string[] = []
      page.on("pageerror", (e) => errors.push(String(e)))
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text())
      })
      await page.goto(pathToFileURL(site.files.html).href)
      const col = (i: number) => page.$$eval(`#ranking tbody tr td:nth-child(${i})`, (tds) => tds.map((t) => (t.textContent ?? "").trim()))
      // Sort by "wins", descending after two clicks.
      const wins = page.locator("#ranking thead th", { hasText: "wins" })
      await wins.click()
      const asc = (await col(5)).map(Number)
      expect(asc).toEqual([...asc].sort((a, b) => a - b))
      await wins.click()
      const desc = (await col(5)).map(Number)
      expect(desc).toEqual([...asc].sort((a, b) => b - a))
      expect(await wins.getAttribute("aria-sort")).toBe("descending")
      await page.locator("#results thead th", { hasText: "env" }).click()
      const envs = await page.$$eval("#results tbody tr td:first-child", (tds) => tds.map((t) => t.textContent))
      expect(envs).toEqual(["frozenlake", "sokoban"])
      expect(await page.locator("section.group svg polyline").count()).toBeGreaterThan(6)
      expect(errors).toEqual([]) // the CSP lets our own script run and nothing else
      const shot = join(base, "leaderboard.png") // in the test's temporary folder, never the tree
      await page.screenshot({ path: shot, fullPage: true })
      expect(statSync(shot).size).toBeGreaterThan(10_000)
    } finally {
      await browser.close()
      rmSync(profile, { recursive: true, force: true })
    }
  }, 60_000)
})
