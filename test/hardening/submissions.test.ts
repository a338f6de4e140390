/**
 * Issue 40, what a received folder may not do to the builder (docs/leaderboard.md, trust
 * boundaries): bring files from outside itself into the site through links; abort or hang the
 * build with a FIFO, a device or an `agents` that is a file; mark its own runs verified; change a
 * verdict with copies of runs; blow a site up with one long label; run formulas in a spreadsheet;
 * leave stale pages in a reused site folder; print a near-copy of the API key or a spec's escape
 * sequences. Every fixture is built here, in a temp folder.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { compactRun, encodeCompact } from "../../core/results/compact.ts"
import { readRun, runIdOf } from "../../core/results/store.ts"
import { buildLeaderboard, type RunInput } from "../../plugins/leaderboard/build.ts"
import { collectInputs } from "../../plugins/leaderboard/collect.ts"
import { gatherCompact } from "../../plugins/leaderboard/compact-command.ts"
import { renderCellsCsv } from "../../plugins/leaderboard/csv.ts"
import { joinReference } from "../../plugins/leaderboard/reference.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { runContentHash, writeMarks } from "../../plugins/leaderboard/verify-marks.ts"
import { safeText } from "../../plugins/openai/http.ts"
import { createProgress } from "../../plugins/sweep/progress.ts"
import { runCli } from "../helpers/cli.ts"
import { writeRuns } from "../leaderboard/fixtures.ts"
import { fixturePlugin, smallSpec, writeSpec } from "../sweep/helpers.ts"
import { tempRoot } from "./helpers.ts"

const { root, fresh } = tempRoot("rb-submissions-")
const QUICK = join(import.meta.dir, "..", "..", "plugins", "leaderboard", "reference", "quick")
const SECRET = "SECRET-MARK-7f3a"

const problemsText = (ps: ReadonlyArray<{ path: string; message: string }>): string => ps.map((p) => `${p.path}: ${p.message}`).join("\n")

/** Every regular file's text under `dir`, joined (a site is small enough). */
const allText = (dir: string): string => {
  let out = ""
  for (const n of readdirSync(dir)) {
    const p = join(dir, n)
    const st = lstatSync(p)
    if (st.isDirectory()) out += allText(p)
    else if (st.isFile()) out += readFileSync(p, "utf8")
  }
  return out
}

/** Total bytes of the regular files under `dir`. */
const bytesUnder = (dir: string): number =>
  readdirSync(dir).reduce((n, name) => {
    const st = lstatSync(join(dir, name))
    return n + (st.isDirectory() ? bytesUnder(join(dir, name)) : st.isFile() ? st.size : 0)
  }, 0)

const collect = (dirs: string[], siteDir: string, marksDir: string | null = null) => Effect.runSync(collectInputs(dirs, siteDir, { marksDir }))

/** An agent evaluation's config.json and summary.json (ragen-bench eval), valid. */
const agentFiles = (runId: string, agent = "tinylm (ckpt)") => ({
  "config.json": {
    format: 1,
    kind: "agent-eval",
    runId,
    hash: "0123456789ab",
    codeVersion: "abc",
    runtime: { name: "bun", version: "1" },
    createdAt: "2026-12-03T00:00:00Z",
    reproducible: true,
    config: { env: "envs/frozenlake-v1", envOptions: {}, policy: "tinylm", policyOptions: {}, episodes: 2, seedStart: 123, temperature: 0.5, topP: 1, minP: 0, maxTokens: 8, maxTurns: 5, seed: 1 }
  },
  "summary.json": {
    format: 1,
    kind: "agent-eval",
    runId,
    status: "complete",
    agent,
    env: "envs/frozenlake-v1",
    episodes: 2,
    success: { mean: 0.5, lo: 0.1, hi: 0.9, n: 2, method: "wilson-95" },
    return: { mean: 0.5, lo: 0, hi: 1, n: 2, method: "bootstrap-percentile-95" },
    means: { success: 0.5 },
    reproducible: true,
    wallSeconds: 1
  }
})

const writeAgent = (results: string, name: string, runId = name, agent?: string): string => {
  const d = join(results, "agents", name)
  mkdirSync(d, { recursive: true })
  for (const [f, v] of Object.entries(agentFiles(runId, agent))) writeFileSync(join(d, f), JSON.stringify(v))
  return d
}

/** A run folder's compact record written into `dir` (optionally changed first); its path. */
const writeRecord = (dir: string, runDir: string, change?: (rec: any) => void): string => {
  const rec = JSON.parse(JSON.stringify(compactRun(Effect.runSync(readRun(runDir)))))
  change?.(rec)
  mkdirSync(dir, { recursive: true })
  const p = join(dir, `${rec.run.runId}.json`)
  writeFileSync(p, encodeCompact(rec))
  return p
}

describe("a submitted folder is read, never trusted as a tree", () => {
  test("links to files outside the folder never reach the site: a linked metrics.jsonl, run folder, compact record or agent file is a warning, left out", async () => {
    const outside = fresh("outside")
    const results = fresh("linked-results")
    const compact = fresh("linked-compact")
    const [good, linkedMetrics] = writeRuns(results, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.6 }
    ])
    // A metrics.jsonl that decodes, outside the folder: the old build copied it byte for byte into the site.
    writeFileSync(join(outside, "secret-metrics.jsonl"), `${JSON.stringify({ step: 0, "val/success@0.5": 0.5, "secret/marker": 7 })}\n`)
    rmSync(join(linkedMetrics!, "metrics.jsonl"))
    symlinkSync(join(outside, "secret-metrics.jsonl"), join(linkedMetrics!, "metrics.jsonl"))
    // A whole run folder and a compact record that are links to runs outside.
    const [outsideRun] = writeRuns(join(outside, "runs"), [{ env: "frozenlake", filter: "none", seed: 3, peak: 0.9 }])
    symlinkSync(outsideRun!, join(results, basename(outsideRun!)))
    const [recordRun] = writeRuns(join(outside, "more"), [{ env: "frozenlake", filter: "none", seed: 4, peak: 0.9 }])
    const outsideRecord = writeRecord(join(outside, "records"), recordRun!)
    symlinkSync(outsideRecord, join(compact, basename(outsideRecord)))
    // An agent run whose metrics.jsonl links to a private key; another whose metrics.jsonl is not metrics at all.
    writeFileSync(join(outside, "id_rsa"), `-----BEGIN PRIVATE KEY----- ${SECRET}\n`)
    const linkedAgent = writeAgent(results, "agent-linked")
    symlinkSync(join(outside, "id_rsa"), join(linkedAgent, "metrics.jsonl"))
    const textAgent = writeAgent(results, "agent-text")
    writeFileSync(join(textAgent, "metrics.jsonl"), `${SECRET} is not a metrics line\n`)
    writeAgent(results, "agent-good")
    writeFileSync(join(results, "agents", "agent-good", "metrics.jsonl"), `${JSON.stringify({ episode: 0, success: 1 })}\n`)

    const site = fresh("linked-site")
    const w = await Effect.runPromise(writeSite([results, compact], site, collectInputs([results, compact], site, { marksDir: null })))
    expect(w.leaderboard.entries.map((e) => e.runId)).toEqual([basename(good!)])
    const text = problemsText(w.leaderboard.problems)
    for (const p of [join(basename(linkedMetrics!), "metrics.jsonl"), basename(outsideRun!), basename(outsideRecord), join("agent-linked", "metrics.jsonl")]) {
      expect(text).toContain(p)
    }
    expect(text.match(/symbolic link/g)?.length).toBe(4)
    expect(text).toContain(join("agent-text", "metrics.jsonl"))
    // The good agent run is in, with its decoded lines; nothing from outside is anywhere in the site.
    expect(readFileSync(join(site, "agents", "agent-good", "metrics.jsonl"), "utf8")).toBe(`${JSON.stringify({ episode: 0, success: 1 })}\n`)
    expect(existsSync(join(site, "agents", "agent-linked"))).toBe(false)
    const all = allText(site)
    expect(all).not.toContain(SECRET)
    expect(all).not.toContain("secret/marker")
    expect(all).not.toContain("PRIVATE KEY")
  })

  test("`results compact` of a received folder follows no link either", async () => {
    const outside = fresh("compact-outside")
    const received = fresh("compact-received")
    const [mine] = writeRuns(received, [{ env: "frozenlake", filter: "none", seed: 1, peak: 0.5 }])
    const [theirs] = writeRuns(outside, [{ env: "frozenlake", filter: "none", seed: 2, peak: 0.9 }])
    symlinkSync(theirs!, join(received, basename(theirs!)))
    const g = await Effect.runPromise(gatherCompact([received]))
    expect(g.records.map((r) => r.run.runId)).toEqual([basename(mine!)])
    expect(problemsText(g.problems)).toContain(`${basename(theirs!)} is a symbolic link`)
  })

  test("the CLI: a dangling agents link, agents as a file, a FIFO and /dev/zero are one warning each — no hang, no stack trace, exit 0 with the site", () => {
    const dirs = ["dangling", "file", "fifo", "zero"].map((n) => fresh(`cli-${n}`))
    dirs.forEach((d, i) => writeRuns(d, [{ env: "frozenlake", filter: "none", seed: i + 1, peak: 0.5 }]))
    const [dangling, asFile, fifo, zero] = dirs as [string, string, string, string]
    symlinkSync(join(root, "nowhere"), join(dangling, "agents"))
    writeFileSync(join(asFile, "agents"), "not a folder\n")
    const fifoAgent = writeAgent(fifo, "agent-fifo")
    const hasFifo = spawnSync("mkfifo", [join(fifoAgent, "metrics.jsonl")]).status === 0 && spawnSync("mkfifo", [join(fifo, "agents", "a-fifo-entry")]).status === 0
    symlinkSync(join(root, "nowhere"), join(fifo, "agents", "a-dangling-entry"))
    const zeroAgent = writeAgent(zero, "agent-zero")
    symlinkSync("/dev/zero", join(zeroAgent, "metrics.jsonl"))
    symlinkSync("/dev/zero", join(zero, "zero-run"))
    const site = join(root, "cli-site")
    const r = runCli(["leaderboard", ...dirs, "--out", site, "--reference", "none", "--marks", fresh("cli-marks")], { timeoutMs: 60_000 })
    expect(r.stderr).not.toContain("    at ")
    expect(r.code).toBe(0)
    expect(existsSync(join(site, "index.html"))).toBe(true)
    expect(r.stdout).toContain("4 runs")
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: "))
    const about = (p: string) => warnings.filter((l) => l.includes(p)).length
    expect(about(join(basename(dangling), "agents"))).toBe(1)
    expect(about(join(basename(asFile), "agents"))).toBe(1)
    expect(about("a-dangling-entry")).toBe(1)
    expect(about(join("agent-zero", "metrics.jsonl"))).toBe(1)
    expect(about("zero-run")).toBe(1)
    if (hasFifo) {
      expect(about(join("agent-fifo", "metrics.jsonl"))).toBe(1)
      expect(about("a-fifo-entry")).toBe(1)
    }
  }, 90_000)
})

describe("marks come from the builder", () => {
  test("a verify.json inside the submitted folder marks nothing; the builder's marks, tied to the content, do", () => {
    const src = fresh("marks-src")
    const [a, b] = writeRuns(src, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.6 }
    ])
    const sub = fresh("marks-submitted")
    const pa = writeRecord(sub, a!)
    writeRecord(sub, b!)
    const ids = [a!, b!].map((d) => basename(d))
    const forged = { format: 1, runs: Object.fromEntries(ids.map((id) => [id, { ok: true, checkedAt: "2026-12-01T00:00:00Z", codeVersion: "x", detail: "9 of 9" }])) }
    writeFileSync(join(sub, "verify.json"), JSON.stringify(forged))
    const marks = fresh("marks-builder")
    const site = fresh("marks-site")
    expect(collect([sub], site, marks).runs.map((r) => r.verified)).toEqual([null, null])
    // The builder's own mark for run a's content.
    const runA = collect([sub], site).runs.find((r) => r.run.config.runId === ids[0])!.run
    Effect.runSync(writeMarks(marks, { [runContentHash(runA)]: { runId: ids[0]!, ok: true, checkedAt: "2026-12-06T00:00:00Z", codeVersion: "x", detail: "identical" } }))
    const marked = collect([sub], site, marks).runs
    expect(Object.fromEntries(marked.map((r) => [r.run.config.runId, r.verified]))).toEqual({ [ids[0]!]: true, [ids[1]!]: null })
    // The same run id with other content (its success raised) reads as never verified.
    const edited = fresh("marks-edited")
    writeRecord(edited, a!, (rec) => (rec.curves["val/success@0.5"] = rec.curves["val/success@0.5"].map(() => 1)))
    expect(collect([edited], site, marks).runs.map((r) => r.verified)).toEqual([null])
    // A marks folder inside the input is not read.
    const inside = join(sub, "marks")
    Effect.runSync(writeMarks(inside, { [runContentHash(runA)]: { runId: ids[0]!, ok: true, checkedAt: "x", codeVersion: "x", detail: "forged" } }))
    const c = collect([sub], site, inside)
    expect(c.runs.map((r) => r.verified)).toEqual([null, null])
    expect(problemsText(c.problems)).toContain("the marks folder lies inside the input")
    expect(readFileSync(pa, "utf8").length).toBeGreaterThan(0)
  })
})

describe("one run id, one content", () => {
  const twoRuns = (name: string) =>
    writeRuns(fresh(name), [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.6 }
    ])

  test("a run id met twice: different content (success flipped) is one problem naming both paths, both copies left out; the same content counts once", () => {
    const [a, b] = twoRuns("dup-src")
    const first = fresh("dup-first")
    const second = fresh("dup-second")
    const pa1 = writeRecord(first, a!)
    writeRecord(first, b!)
    const pa2 = writeRecord(second, a!, (rec) => {
      rec.curves["val/success@0.5"] = rec.curves["val/success@0.5"].map((v: number) => 1 - v)
    })
    const site = fresh("dup-site")
    const c = collect([first, second], site)
    expect(c.runs.map((r) => r.run.config.runId)).toEqual([basename(b!)])
    const dup = c.problems.filter((p) => p.message.includes(basename(a!)))
    expect(dup.length).toBe(1)
    expect(dup[0]!.message).toContain("different content")
    for (const p of [pa1, pa2]) expect(dup[0]!.message).toContain(join(basename(first.replace(/\/$/, "")), basename(p)))
    expect(dup[0]!.message).toContain(basename(second))
    // The same content twice counts once: one record in two compact folders, run folders beside their own records.
    const [c1, c2] = twoRuns("same-src")
    const one = fresh("same-one")
    const two = fresh("same-two")
    for (const d of [one, two]) writeRecord(d, c1!)
    const once = collect([one, two], site)
    expect(once.runs.map((r) => r.run.config.runId)).toEqual([basename(c1!)])
    expect(once.problems).toEqual([])
    // Two runs of one config that differ only in timing, date, code version and machine (a re-run): one run, no problem.
    const rerun = fresh("same-rerun")
    writeRecord(rerun, c1!, (rec) => {
      rec.run.createdAt = "2030-01-01T00:00:00.000Z"
      rec.run.codeVersion = "9.9.9+abc"
      rec.run.host = { ...rec.run.host, cpu: "another CPU" }
      rec.summary.wallSeconds = (rec.summary.wallSeconds ?? 1) * 3
      rec.summary.final = { ...rec.summary.final, "perf/step_seconds": 123 }
    })
    const timed = collect([one, rerun], site)
    expect(timed.runs.map((r) => r.run.config.runId)).toEqual([basename(c1!)])
    expect(timed.problems).toEqual([])
    // The run folders and the compact records made of them: two runs, no problem.
    const records = fresh("same-records")
    for (const d of [c1!, c2!]) writeRecord(records, d)
    const both = collect([join(c1!, ".."), records], site)
    expect(both.runs.map((r) => r.run.config.runId).sort()).toEqual([basename(c1!), basename(c2!)].sort())
    expect(both.problems).toEqual([])
  })

  test("a renamed copy (a run id that is not its config's hash) is left out and named", () => {
    const [a] = twoRuns("renamed-src")
    const dir = fresh("renamed")
    const fake = `${basename(a!).replace(/-[0-9a-f]{12}$/, "")}-${"f".repeat(12)}`
    const p = writeRecord(dir, a!, (rec) => {
      rec.run.runId = fake
      rec.summary.runId = fake
    })
    const c = collect([dir], fresh("renamed-site"))
    expect(c.runs).toEqual([])
    expect(problemsText(c.problems)).toContain(`${basename(p)}: run id ${fake} is not the one its config gives`)
  })

  test("the quick reference page rebuilt with a poisoned duplicate folder beside it keeps Q4 below none", () => {
    const poisoned = fresh("poisoned")
    let copies = 0
    for (const f of readdirSync(QUICK).filter((n) => n.endsWith(".json"))) {
      const rec = JSON.parse(readFileSync(join(QUICK, f), "utf8"))
      if (!String(rec.run.config.filter).endsWith("quantile")) continue
      // Ten renamed copies of each Q4 run, every evaluation a success.
      for (let k = 0; k < 10; k++) {
        const copy = JSON.parse(JSON.stringify(rec))
        const id = `${rec.run.runId.replace(/-[0-9a-f]{12}$/, "")}-${k.toString(16).padStart(12, "e")}`
        copy.run.runId = id
        copy.summary.runId = id
        copy.curves["val/success@0.5"] = copy.curves["val/success@0.5"].map(() => 1)
        copy.summary.peakValSuccess = 1
        writeFileSync(join(poisoned, `${id}.json`), JSON.stringify(copy))
        copies++
      }
    }
    expect(copies).toBe(90)
    const site = fresh("poisoned-site")
    for (const order of [
      [QUICK, poisoned],
      [poisoned, QUICK]
    ]) {
      const c = collect(order, site)
      expect(c.runs.length).toBe(54)
      expect(c.problems.filter((p) => p.message.includes("is not the one its config gives")).length).toBe(90)
      const lb = buildLeaderboard({ runs: c.runs, problems: c.problems, sources: c.sources, siteDir: site })
      const q4 = lb.rows.flatMap((r) => r.cells).find((x) => /Q4|quantile/.test(x.filter))!
      expect(q4.delta!.verdict).toBe("worse")
      expect(q4.delta!.mean).toBeCloseTo(-0.21, 2)
      expect(lb.verdict.sentence).toMatch(/Q4[^.]*below none/)
    }
  }, 60_000)

  test("your own run of a published config replaces exactly that published run, never its noise floor or a seed you did not run", () => {
    const site = fresh("yours-site")
    const reference = collect([QUICK], site).runs
    // You ran none on seeds 1 and 2 (stream 0) with another kernel backend: other run ids, the same runs.
    const yours: RunInput[] = reference
      .filter(({ run }) => run.config.config.filter.endsWith("/none") && (run.config.config.train as { samplingStream?: number }).samplingStream === 0 && run.config.config.seed <= 2)
      .map(({ run }) => {
        const config = { ...run.config.config, policyOptions: { ...run.config.config.policyOptions, kernels: "js" } }
        return { run: { ...run, config: { ...run.config, config, ...runIdOf(config, run.config.semantics) } }, verified: null }
      })
    expect(yours.length).toBe(2)
    const joined = joinReference(yours, reference, "quick")
    expect(joined.notes[0]).toContain("2 you also have (yours kept)")
    expect(joined.runs.length).toBe(52)
    const floorSeeds = joined.runs.filter(({ run }) => (run.config.config.train as { samplingStream?: number }).samplingStream === 1).map(({ run }) => run.config.config.seed)
    expect(floorSeeds.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9])
  })
})

describe("the site", () => {
  test("labels are cut to a few hundred characters: a 4·10⁶-character filter option builds a small site, the names kept apart", async () => {
    const results = fresh("long-label")
    const long = "0".repeat(4_000_000)
    writeRuns(results, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "top-p", filterOptions: { p: long }, seed: 1, peak: 0.6 },
      { env: "frozenlake", filter: "top-p", filterOptions: { p: `${long}1` }, seed: 1, peak: 0.7 }
    ])
    const site = fresh("long-label-site")
    const w = await Effect.runPromise(writeSite([results], site, collectInputs([results], site, { marksDir: null })))
    const names = w.leaderboard.filters
    expect(names.length).toBe(3)
    for (const n of names) expect(n.length).toBeLessThanOrEqual(200)
    // The site: the runs' own config.json files (4 MB each, once) and pages of a few kilobytes each.
    expect(bytesUnder(site)).toBeLessThan(8_000_000 * 2 + 4_000_000)
    expect(statSync(w.files.html).size).toBeLessThan(2_000_000)
  }, 60_000)

  test("leaderboard.md's Agents section is inert Markdown: no raw HTML, link or image from an agent's name", async () => {
    const results = fresh("agents-md")
    writeRuns(results, [{ env: "frozenlake", filter: "none", seed: 1, peak: 0.5 }])
    writeAgent(results, "agent-html", "agent-html", "<img src=x onerror=alert(1)> [x](javascript:alert(2)) ![i](http://e.example/i.png)")
    const site = fresh("agents-md-site")
    const w = await Effect.runPromise(writeSite([results], site, collectInputs([results], site, { marksDir: null })))
    const md = readFileSync(w.files.md, "utf8")
    const agents = md.slice(md.indexOf("## Agents"))
    expect(agents).toContain("&lt;img src=x onerror=alert\\(1\\)&gt;")
    expect(agents).not.toContain("<img")
    expect(agents).not.toContain("](javascript")
    expect(agents).not.toContain("![i](")
  })

  test("cells.csv defuses cells starting with a line feed, space, NBSP, BOM or zero-width space", () => {
    const starts = ["\n", " ", "\u00a0", "\ufeff", "\u200b"]
    const results = fresh("csv")
    writeRuns(
      results,
      starts.map((s, i) => ({ env: `${s}=HYPERLINK("http://e.example")`, filter: "none", seed: i + 1, peak: 0.5 }))
    )
    const c = collect([results], fresh("csv-site"))
    const lb = buildLeaderboard({ runs: c.runs, problems: c.problems, sources: c.sources, siteDir: results })
    expect(lb.rows.length).toBe(starts.length)
    const csv = renderCellsCsv(lb)
    for (const s of starts) {
      expect(csv).toContain(`"'${s}=HYPERLINK(""http://e.example"")"`)
      expect(csv).not.toContain(`"${s}=HYPERLINK`)
    }
  })

  test("a reused site folder holds only this build's files: stale run pages go, files the builder did not write stay", async () => {
    const results = fresh("reuse")
    const [keep, gone] = writeRuns(results, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "sokoban", filter: "none", seed: 1, peak: 0.6 }
    ])
    const site = fresh("reuse-site")
    const build = () => Effect.runPromise(writeSite([results], site, collectInputs([results], site, { marksDir: null })))
    await build()
    const rowsBefore = readdirSync(join(site, "rows"))
    expect(rowsBefore.length).toBe(2)
    expect(existsSync(join(site, "runs", basename(gone!), "metrics.jsonl"))).toBe(true)
    writeFileSync(join(site, "CNAME"), "bench.example\n")
    rmSync(gone!, { recursive: true })
    await build()
    expect(existsSync(join(site, "runs", basename(gone!)))).toBe(false)
    expect(existsSync(join(site, "runs", basename(keep!), "metrics.jsonl"))).toBe(true)
    expect(readdirSync(join(site, "rows")).length).toBe(1)
    expect(readFileSync(join(site, "CNAME"), "utf8")).toBe("bench.example\n")
    // A site built before the manifest existed: its stale run files at the builder's paths go too.
    writeRuns(results, [{ env: "sokoban", filter: "none", seed: 1, peak: 0.6 }])
    await build()
    rmSync(join(site, ".ragen-site.json"))
    rmSync(gone!, { recursive: true })
    await build()
    expect(existsSync(join(site, "runs", basename(gone!)))).toBe(false)
    expect(readFileSync(join(site, "CNAME"), "utf8")).toBe("bench.example\n")
  })
})

describe("what reaches the terminal", () => {
  test("near-copies of the API key are masked: one character short, upper-cased, base64, hex", () => {
    const KEY = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyz"
    const forms = [
      KEY.slice(0, -1),
      KEY.slice(1),
      KEY.toUpperCase(),
      Buffer.from(KEY).toString("base64"),
      Buffer.from(`user:${KEY}`).toString("base64"),
      Buffer.from(KEY).toString("base64url"),
      Buffer.from(KEY).toString("hex")
    ]
    const b64 = Buffer.from(KEY).toString("base64")
    for (const form of forms) {
      const shown = safeText(KEY, `{"error":"invalid key ${form} (check it)"}`).toLowerCase()
      for (let i = 0; i + 8 <= KEY.length; i++) expect(shown).not.toContain(KEY.slice(i, i + 8).toLowerCase())
      for (let i = 0; i + 8 <= b64.length - 4; i++) expect(shown).not.toContain(b64.slice(i, i + 8).toLowerCase())
      expect(shown).toContain("(check it)")
    }
    expect(safeText(KEY, "model gpt-4o-mini is not available")).toBe("model gpt-4o-mini is not available")
  })

  test("a spec's name and labels with escape sequences do not reach the terminal", () => {
    const dir = fresh("spec-name")
    const evil = "evil\u001b]0;pwned\u0007\u001b[2J"
    const spec = writeSpec(dir, smallSpec({ name: evil, description: `d\u001b[31m`, axes: { env: ["frozenlake"], filter: [{ id: "none", label: `n\u001b[1m` }], seeds: [1] } }))
    const r = runCli(["sweep", spec, "--plugin", fixturePlugin, "--out", join(dir, "results"), "--dry-run"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("sweep evil?]0;pwned??[2J")
    expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u0007]/)
    // The progress display: a run's label on one line, without its escapes.
    const out: string[] = []
    const p = createProgress({ total: 1, totalSteps: 1, tty: false, write: (s) => void out.push(s) })
    p.onEvent({ type: "start", worker: 0, resume: false, run: { runId: "r", label: `x\u001b[2Jy\nz`, config: { steps: 1 } } } as never)
    p.close()
    expect(out.join("")).not.toMatch(/\u001b/)
  }, 60_000)
})
