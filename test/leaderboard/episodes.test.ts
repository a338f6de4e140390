/**
 * Episode pages (plugins/leaderboard/episodes.ts): built from real run folders, safe against
 * hostile text in any field, bounded, and a bad samples.jsonl is reported, never fatal.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { chromium } from "playwright-core"
import { builtinPlugins } from "../../builtins.ts"
import { SAMPLES_FILE } from "../../core/results/samples.ts"
import { readRun } from "../../core/results/store.ts"
import type { SamplesLine } from "../../core/schema/samples.ts"
import { runTraining } from "../../core/train/run.ts"
import { EPISODES_DIR, episodesPagePath, MAX_PAGE_STEPS, renderEpisodesPage, writeEpisodePages } from "../../plugins/leaderboard/episodes.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { cfg, testPlugin } from "../train/fixtures.ts"

const tmp = () => mkdtempSync(join(tmpdir(), "ragen-episodes-"))
const quiet = { plugins: [...builtinPlugins, testPlugin], onLog: () => {} }

const HOSTILE = [
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(1)>',
  "</pre></td></tr></table></main><script src=//evil.example/x.js></script>",
  '<a href="javascript:alert(1)">x</a>',
  "&lt;already&gt; ' \" &amp;"
].join(" ")

const hostileLine = (step: number): SamplesLine => ({
  step,
  temperature: 0.5,
  episodes: [
    {
      seed: 7,
      success: false,
      return: -0.1,
      turns: [
        { prompt: HOSTILE, reasoning: HOSTILE, action: HOSTILE, response: HOSTILE, reward: -0.1, facts: [HOSTILE, "player 1 2"], factAccuracy: 0.5, consistency: null },
        { prompt: "p", reasoning: "r", action: "a", reward: 0, facts: null, factAccuracy: null, consistency: null }
      ]
    }
  ]
})

/** The tags a page may contain: anything else came from a result file. */
const ALLOWED = new Set([
  "!doctype",
  "html",
  "head",
  "meta",
  "title",
  "style",
  "body",
  "p",
  "a",
  "h1",
  "h2",
  "h3",
  "code",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "pre",
  "span",
  "br",
  "nav",
  "main",
  "section",
  "details",
  "summary",
  "ul",
  "li"
])

const expectInert = (html: string): void => {
  for (const m of html.matchAll(/<\/?([a-zA-Z!][a-zA-Z0-9]*)/g)) expect(ALLOWED.has(m[1]!.toLowerCase())).toBe(true)
  expect(html.toLowerCase()).not.toContain("<script")
  // Every link stays on the site: a fragment, a sibling page or the leaderboard.
  for (const m of html.matchAll(/href="([^"]*)"/g)) expect(m[1]!).toMatch(/^(#step-\d+|index\.html|\.\.\/index\.html|\.\/[A-Za-z0-9._%-]+\.html)$/)
  // No script at all may run, whatever slipped through.
  expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`)
}

describe("episode pages", () => {
  test("hostile text in every field, the run id and the config is escaped: no tag, attribute or link of its own", () => {
    const run = { runId: `x"><script>alert(2)</script>`, env: HOSTILE, algo: HOSTILE, filter: HOSTILE, seed: 1 }
    const html = renderEpisodesPage(run, [hostileLine(0), hostileLine(5)])
    expectInert(html)
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).toContain("&amp;lt;already&amp;gt; &#39; &quot; &amp;amp;")
    // The steps are a list of links to their sections; both steps and the seed's episodes are there.
    expect(html).toContain('<a href="#step-0"')
    expect(html).toContain('<section class="step" id="step-5">')
    expect(html.match(/<details data-seed="7"( open)?>/g)).toHaveLength(2)
  })

  test("a page is bounded: at most MAX_PAGE_STEPS evaluations (the last kept), the first-turn table per seed", () => {
    const lines = Array.from({ length: 250 }, (_, i) => ({
      ...hostileLine(i),
      episodes: [{ ...hostileLine(i).episodes[0]!, turns: [{ ...hostileLine(i).episodes[0]!.turns[1]!, reasoning: `step ${i} says` }] }]
    }))
    const html = renderEpisodesPage({ runId: "r", env: "e", algo: "a", filter: "f", seed: 0 }, lines)
    const sections = html.match(/<section class="step"/g) ?? []
    expect(sections.length).toBeLessThanOrEqual(MAX_PAGE_STEPS)
    expect(html).toContain('id="step-249"')
    expect(html).toContain("250 evaluations")
    expect(html).toContain("step 249 says")
  })

  test("page paths: a plain run id names its page; anything else becomes a hash (no path escapes the folder)", () => {
    expect(episodesPagePath("frozenlake-grpo-none-s1-abc123")).toBe(`${EPISODES_DIR}/frozenlake-grpo-none-s1-abc123.html`)
    for (const bad of ["../../etc/passwd", ".hidden", "a/b", "x y", "", "é"]) expect(episodesPagePath(bad)).toMatch(/^episodes\/run-[0-9a-f]{16}\.html$/)
    expect(episodesPagePath("../a")).not.toBe(episodesPagePath("../b"))
  })

  test("from run folders: a page per run with samples, an index; a malformed samples.jsonl is reported, not fatal", async () => {
    const results = tmp()
    const good = await runTraining(cfg({ steps: 2, P: 2, G: 2 }, { valSeeds: 4, evalEvery: 1, evalSamples: 2 }), { outDir: results, ...quiet })
    const bad = await runTraining(cfg({ steps: 1, P: 2, G: 2, seed: 2 }, { valSeeds: 4, evalEvery: 1, evalSamples: 2 }), { outDir: results, ...quiet })
    writeFileSync(join(results, bad.runId, SAMPLES_FILE), '{"step":0,"temperature":0.5,"episodes":[{"seed":1}]}\n')
    const hostile = await runTraining(cfg({ steps: 1, P: 2, G: 2, seed: 3 }, { valSeeds: 4, evalEvery: 1, evalSamples: 2 }), { outDir: results, ...quiet })
    writeFileSync(join(results, hostile.runId, SAMPLES_FILE), JSON.stringify(hostileLine(0)) + "\n")
    const site = join(tmp(), "site")
    const runs = [good, bad, hostile].map((s) => ({ run: Effect.runSync(readRun(join(results, s.runId))) }))
    const out = Effect.runSync(writeEpisodePages(runs, site))
    expect([...out.pages.keys()].sort()).toEqual([good.runId, hostile.runId].sort())
    expect(out.problems).toHaveLength(1)
    expect(out.problems[0]!.path).toEndWith(`${bad.runId}/${SAMPLES_FILE}`)
    expect(out.problems[0]!.path.startsWith("/")).toBe(false)
    expect(out.problems[0]!.message).toContain(`${SAMPLES_FILE}:1:`)
    expect(out.problems[0]!.message).not.toContain(results) // relative to the site, never absolute
    const page = readFileSync(join(site, out.pages.get(good.runId)!), "utf8")
    expectInert(page)
    expect(page).toContain('id="step-2"')
    expect(page).toContain("lamp") // the bandit's prompts and facts
    expectInert(readFileSync(join(site, out.pages.get(hostile.runId)!), "utf8"))
    const index = readFileSync(out.index, "utf8")
    expectInert(index)
    expect(index).toContain(good.runId)
    expect(index).toContain("Files left out")
  })

  test("the site build writes the episode pages next to index.html", async () => {
    const results = tmp()
    const s = await runTraining(cfg({ steps: 1, P: 2, G: 2 }, { valSeeds: 4, evalEvery: 1, evalSamples: 1 }), { outDir: results, ...quiet })
    mkdirSync(join(results, "empty"))
    const site = join(tmp(), "site")
    await Effect.runPromise(writeSite([results], site))
    expect(existsSync(join(site, "index.html"))).toBe(true)
    expect(readFileSync(join(site, EPISODES_DIR, "index.html"), "utf8")).toContain(s.runId)
    expect(existsSync(join(site, episodesPagePath(s.runId)))).toBe(true)
  })
})

describe("the first-turn table", () => {
  test("counts distinct texts against distinct states: one text for different states is marked", () => {
    const turn = (reasoning: string, facts: string[]) => ({ prompt: facts.join(" "), reasoning, action: "Up", reward: 0, facts, factAccuracy: 1, consistency: 1 })
    const ep = (seed: number, reasoning: string, facts: string[]) => ({ seed, success: true, return: 0, turns: [turn(reasoning, facts)] })
    const lines: SamplesLine[] = [
      { step: 0, temperature: 0.5, episodes: [ep(1, "player 0 0 goal 1 1", ["player 0 0", "goal 1 1"]), ep(2, "player 2 2 goal 0 3", ["player 2 2", "goal 0 3"])] },
      { step: 10, temperature: 0.5, episodes: [ep(1, "player 1 1 goal 1 1", ["player 0 0", "goal 1 1"]), ep(2, "player 1 1 goal 1 1", ["player 2 2", "goal 0 3"])] }
    ]
    const html = renderEpisodesPage({ runId: "r", env: "e", algo: "a", filter: "f", seed: 0 }, lines)
    expect(html).toContain('<td class="num">2 / 2</td>')
    expect(html).toContain('<td class="num bad">1 / 2</td>')
  })
})

const CHROMIUM = "/usr/bin/chromium"
const chromiumAvailable = existsSync(CHROMIUM)
if (!chromiumAvailable) {
  if (process.env.CI === "true") throw new Error(`${CHROMIUM} is missing: .ci/run must apt-get install chromium`)
  console.log(`skipping the episode page's headless-browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`)
}

describe("an episode page in headless Chromium", () => {
  test("hostile text runs nothing and shows as text; the last step shows until a step is picked", async () => {
    if (!chromiumAvailable) return // reason printed above
    const dir = tmp()
    const file = join(dir, "page.html")
    writeFileSync(file, renderEpisodesPage({ runId: "<script>alert(3)</script>", env: HOSTILE, algo: "a", filter: "f", seed: 0 }, [hostileLine(0), hostileLine(5)]))
    const profile = mkdtempSync(join(tmpdir(), "ragen-chromium-"))
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"]
    })
    try {
      const page = await browser.newPage()
      const dialogs: string[] = []
      page.on("dialog", (d) => {
        dialogs.push(d.message())
        void d.dismiss()
      })
      await page.goto(pathToFileURL(file).href)
      expect(await page.evaluate(() => document.scripts.length)).toBe(0)
      expect(await page.evaluate(() => document.querySelectorAll("img, iframe, object, embed").length)).toBe(0)
      expect(await page.locator("#step-5 pre").first().textContent()).toContain("<script>alert(1)</script>")
      expect(await page.locator("#step-5").isVisible()).toBe(true)
      expect(await page.locator("#step-0").isVisible()).toBe(false)
      await page.locator('nav.steps a[href="#step-0"]').click()
      expect(await page.locator("#step-0").isVisible()).toBe(true)
      expect(await page.locator("#step-5").isVisible()).toBe(false)
      expect(dialogs).toEqual([])
    } finally {
      await browser.close()
      rmSync(profile, { recursive: true, force: true })
    }
  }, 60_000)
})
