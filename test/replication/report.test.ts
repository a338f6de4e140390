import { afterAll, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildReport, parseArgs } from "../../plugins/leaderboard/replication/report.ts"
import { compactFileName, compactRun, encodeCompact } from "../../core/results/compact.ts"
import { readRun, scanRunDirs } from "../../core/results/store.ts"
import { runCli } from "../helpers/cli.ts"
import { type Fake, jitter, NONE, PAPER_TOP_P, rising, writeRunFolders } from "./fixtures.ts"

const root = mkdtempSync(join(tmpdir(), "ragen-replication-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const ROW_IDS = ["C1", "C2", "C3", "C4", "C5", "C6", "C7", "F1"]

/** The summary table's rows: id → verdict cell. */
const verdicts = (doc: string): Map<string, string> => {
  const out = new Map<string, string>()
  for (const line of doc.split("\n")) {
    const cells = line.split(" | ")
    const id = cells[0]?.replace(/^\| /, "")
    if (id && ROW_IDS.includes(id) && cells.length === 8) out.set(id, cells[6]!)
  }
  return out
}

const report = (dirs: string[]) => Effect.runSync(buildReport({ dirs, out: join(root, "replication.md") }))

/** none and top-p on Sokoban, 6 seeds (the fewest the sign-flip test can separate at α = 0.05), with MI and entropy curves: enough for C1, C2, C3 and F1. */
const fixture: Fake[] = [1, 2, 3, 4, 5, 6].flatMap((seed): Fake[] => [
  {
    ...NONE,
    seed,
    wallSeconds: 300,
    success: rising(0.3 + jitter(seed, 1, 0.05)),
    curves: {
      "mi/first_turn/retrieval_acc": [null, 1, 0.9, 0.8, 0.7],
      "mi/first_turn/mi_est": [null, 1.5 + jitter(seed, 2, 0.1), 1.4, 1.3, 1.2],
      "train/entropy": [null, 1, 1.1, 1.2, 1.3 + jitter(seed, 3, 0.05)],
      "val/fact_accuracy@0.5": [0.99, 0.99, 0.6, 0.5, 0.4]
    }
  },
  { ...PAPER_TOP_P, seed, wallSeconds: 300, success: rising(0.4 + jitter(seed, 1, 0.05)), curves: { "mi/first_turn/mi_est": [null, 1.5, 1.5, 1.5, 1.5], "train/entropy": [null, 1, 1, 1, 1] } }
])

describe("the replication report", () => {
  test("a folder without runs: a valid document, every row 'not run'", () => {
    const empty = join(root, "empty")
    mkdirSync(empty)
    const doc = report([empty])
    expect(doc).toContain("no figure is typed by hand")
    expect(doc).toContain(`node_modules/.bin/bun cli.ts leaderboard replicate ${empty} --out`)
    const v = verdicts(doc)
    expect([...v.keys()]).toEqual(ROW_IDS)
    for (const id of ROW_IDS) expect(v.get(id)).toBe("not run")
  })

  test("run folders and their compact records give the same rows; the header counts runs and versions", () => {
    const runsDir = join(root, "runs")
    const compactDir = join(root, "compact")
    mkdirSync(compactDir)
    writeRunFolders(runsDir, fixture)
    for (const dir of scanRunDirs(runsDir).dirs) {
      const run = Effect.runSync(readRun(dir))
      writeFileSync(join(compactDir, compactFileName(run.config.runId)!), encodeCompact(compactRun(run)))
    }
    const fromRuns = report([runsDir])
    const fromCompact = report([compactDir])
    expect(fromRuns).toContain(`\`${runsDir}\`: 12 run folder(s), 0 compact record(s)`)
    expect(fromCompact).toContain(`\`${compactDir}\`: 0 run folder(s), 12 compact record(s)`)
    expect(fromRuns).toMatch(/Results-semantics version\(s\): \d+ \(12 runs\)/)
    const body = (doc: string) => doc.slice(doc.indexOf("## Summary"))
    expect(body(fromCompact)).toBe(body(fromRuns))
    const v = verdicts(fromRuns)
    expect(v.get("C1")).toBe("reproduced")
    expect(v.get("C3")).toBe("reproduced")
    // none's success rises on every seed: there is no collapse for fact accuracy to see first (F1 reads the runs whose success collapses).
    expect(v.get("F1")).toBe("inconclusive at n = 0")
    expect(v.get("C4")).toBe("not run")
    // C1 uses all 12 runs: 12 × 300 s / 2 workers = 30 min.
    expect(fromRuns).toMatch(/\| C1 \|.*\| reproduced \| 30 min \|/)
    // Both folders at once: each run counts once, from the first folder that has it.
    const both = report([runsDir, compactDir])
    expect(both).toContain("- 12 run(s) read;")
    expect(both).toContain(`\`${compactDir}\`: 0 run folder(s), 0 compact record(s)`)
    expect(body(both)).toBe(body(fromRuns))
    // Seeded: the same input gives the same document.
    expect(report([runsDir])).toBe(fromRuns)
  })

  test("a file that does not decode is listed under 'Left out', not read as zeros", () => {
    const bad = join(root, "bad")
    mkdirSync(bad)
    writeFileSync(join(bad, "x.json"), JSON.stringify({ format: "ragen-bench/compact-run", version: 999 }))
    const doc = report([bad])
    expect(doc).toContain("## Left out")
    expect(doc).toMatch(/x\.json/)
  })

  test("arguments: folders and --out; mistakes are one line naming the fix", () => {
    const empty = join(root, "empty")
    expect(parseArgs([empty, "--out", "x.md"])).toEqual({ dirs: [empty], out: "x.md" })
    expect(parseArgs([empty])).toEqual({ dirs: [empty], out: "docs/replication.md" })
    expect(parseArgs([])).toMatchObject({ error: expect.stringMatching(/no folder given/) })
    expect(parseArgs([join(root, "nope")])).toMatchObject({ error: expect.stringMatching(/does not exist/) })
    expect(parseArgs([empty, "--out"])).toMatchObject({ error: expect.stringMatching(/--out needs a file/) })
    expect(parseArgs([empty, "--outt", "x"])).toMatchObject({ error: expect.stringMatching(/unknown option --outt/) })
  })

  test("`leaderboard replicate`: a mistake exits 2 with one line; a folder writes the document; --help names it", () => {
    const bad = runCli(["leaderboard", "replicate", join(root, "nope")])
    expect(bad.code).toBe(2)
    const err = bad.stderr.trim()
    expect(err.split("\n")).toHaveLength(1)
    expect(err).toMatch(/leaderboard replicate: folder .*nope does not exist/)
    const out = join(root, "doc", "replication.md")
    const ok = runCli(["leaderboard", "replicate", join(root, "empty"), "--out", out])
    expect(ok.code).toBe(0)
    expect(ok.stdout.trim()).toBe(`wrote ${out}`)
    expect(readFileSync(out, "utf8")).toBe(report([join(root, "empty")]).replace(join(root, "replication.md"), out))
    const help = runCli(["leaderboard", "replicate", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("leaderboard replicate")
    expect(help.stdout).toContain("docs/replication.md")
  }, 60_000)
})
