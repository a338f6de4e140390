/**
 * The leaderboard's arithmetic on untrusted files (docs/decisions.md#issue-27): a value like 1.7e308 in one run
 * folder or one compact record overflowed a mean to Infinity and aborted the whole build with a
 * stack trace; a dangling metrics.jsonl link was listed as a complete run with peak 0. Both are
 * reported and the run left out, the rest builds.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { compactRun, encodeCompact } from "../../core/results/compact.ts"
import { readRun } from "../../core/results/store.ts"
import { writeSite } from "../../plugins/leaderboard/site.ts"
import { runCli } from "../helpers/cli.ts"
import { tempRoot } from "./helpers.ts"
import { writeRuns } from "../leaderboard/fixtures.ts"

const { root, fresh } = tempRoot("rb-lb-input-")
const problemsText = (lb: { problems: ReadonlyArray<{ path: string; message: string }> }): string => lb.problems.map((p) => `${p.path}: ${p.message}`).join("\n")

describe("values outside a metric's range are reported and their run left out", () => {
  test("1.7e308 in two run folders' metrics.jsonl: the build finishes, both reported, the good run listed", async () => {
    const dir = fresh("overflow-folders")
    const [good, bad1, bad2] = writeRuns(dir, [
      { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
      { env: "frozenlake", filter: "none", seed: 2, peak: 0.6 },
      { env: "frozenlake", filter: "none", seed: 3, peak: 0.7 }
    ])
    for (const d of [bad1!, bad2!]) appendFileSync(join(d, "metrics.jsonl"), `${JSON.stringify({ step: 5, "val/success@0.5": 1.7e308, "budget/tokens": 1.7e308 })}\n`)
    const site = await Effect.runPromise(writeSite([dir], fresh("overflow-folders-site")))
    expect(site.leaderboard.entries.map((e) => e.runId)).toEqual([good!.split("/").pop()!])
    const text = problemsText(site.leaderboard)
    expect(text).toContain(`${bad1!.split("/").pop()}: metrics.jsonl line 6: val/success@0.5 = 1.7e+308`)
    expect(text).toContain(bad2!.split("/").pop()!)
  })

  test("a share above 1 and a huge budget in compact records: reported, left out", async () => {
    const src = fresh("compact-src")
    const dirs = writeRuns(src, [
      { env: "sokoban", filter: "none", seed: 1, peak: 0.4, budget: { envSteps: 10, tokens: 100, rollouts: 4, optimizerSteps: 1 } },
      { env: "sokoban", filter: "none", seed: 2, peak: 0.5, budget: { envSteps: 10, tokens: 100, rollouts: 4, optimizerSteps: 1 } },
      { env: "sokoban", filter: "none", seed: 3, peak: 0.6, budget: { envSteps: 10, tokens: 100, rollouts: 4, optimizerSteps: 1 } }
    ])
    const out = fresh("compact")
    const ids: string[] = []
    dirs.forEach((d, i) => {
      const rec = compactRun(Effect.runSync(readRun(d))) as any
      if (i === 1) rec.budget["budget/tokens"] = 1.7e308
      if (i === 2) rec.summary.peakValSuccess = 3
      ids.push(rec.run.runId)
      writeFileSync(join(out, `${rec.run.runId}.json`), encodeCompact(rec))
    })
    const site = await Effect.runPromise(writeSite([out], fresh("compact-site")))
    expect(site.leaderboard.entries.map((e) => e.runId)).toEqual([ids[0]!])
    const text = problemsText(site.leaderboard)
    expect(text).toContain(`${ids[1]}.json: budget: budget/tokens = 1.7e+308`)
    expect(text).toContain(`${ids[2]}.json: summary.json: peakValSuccess = 3 is outside 0–1`)
  })
})

test("a dangling metrics.jsonl symlink is a problem, not a complete run with peak 0", async () => {
  const dir = fresh("dangling-metrics")
  const [good, linked] = writeRuns(dir, [
    { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
    { env: "frozenlake", filter: "none", seed: 2, peak: 0.7 }
  ])
  rmSync(join(linked!, "metrics.jsonl"))
  symlinkSync(join(root, "nowhere.jsonl"), join(linked!, "metrics.jsonl"))
  const site = await Effect.runPromise(writeSite([dir], fresh("dangling-metrics-site")))
  expect(site.leaderboard.entries.map((e) => e.runId)).toEqual([good!.split("/").pop()!])
  expect(problemsText(site.leaderboard)).toContain("metrics.jsonl is a dangling link")
})

test("the CLI build of a folder with one overflowing run exits 0 and names it", () => {
  const dir = fresh("overflow-cli")
  const [, bad] = writeRuns(dir, [
    { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
    { env: "frozenlake", filter: "none", seed: 2, peak: 0.6 }
  ])
  writeFileSync(join(bad!, "metrics.jsonl"), `${JSON.stringify({ step: 0, "val/success@0.5": 1.7e308 })}\n${JSON.stringify({ step: 1, "val/success@0.5": 1.7e308 })}\n`)
  const r = runCli(["leaderboard", dir, "--out", join(root, "overflow-cli-site"), "--reference", "none"])
  expect(r.stderr).not.toContain("    at ")
  expect(r.code).toBe(0)
  expect(r.stdout + r.stderr).toContain("1.7e+308")
}, 60_000)
