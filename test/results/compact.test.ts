import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { budgetTotals, compactRun, encodeCompact, MAX_COMPACT_BYTES, readCompact, round6, writeCompactFiles } from "../../core/results/compact.ts"
import { openRun, readRun } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { buildLeaderboard } from "../../plugins/leaderboard/build.ts"
import { collectInputs } from "../../plugins/leaderboard/collect.ts"
import { LEADERBOARD_KEYS } from "../../plugins/leaderboard/compact-command.ts"
import { runCli } from "../helpers/cli.ts"
import { standardRuns, writeRuns } from "../leaderboard/fixtures.ts"
import { tempDir } from "../sweep/helpers.ts"

/** A run of 10 steps, validated at 0, 5 and 10, logging every kind of metric the compaction sorts. */
const writeDetailedRun = (dir: string): string => {
  const c = decodeSync(RunConfig, { env: "frozenlake", filter: "none", seed: 3, steps: 10, lr: 0.001 })
  if (!c.ok) throw new Error(c.message)
  const run = openRun(dir, c.value)
  for (let s = 0; s <= 10; s++) {
    const line: Record<string, number | null> = {
      step: s,
      "train/entropy": 1 + s / 3,
      "filter/kept_ratio": 0.5,
      "perf/step_seconds": 0.25,
      "budget/env_steps": 100 + s,
      "budget/tokens": 1_234_567 + s,
      "train/optimizer_steps": 4,
      "mi/first_turn/retrieval_acc": s % 2 === 0 ? 0.9 : null
    }
    if (s % 5 === 0) {
      line["val/success@0.5"] = 0.0123456789 * (s + 1)
      line["val/success@1.0"] = 0.1
      line["reasoning/fact_accuracy"] = 0.75
      line["grad/task_norm/b1"] = 2.5
    } else line["val/success@0.5"] = null
    run.appendMetrics(line)
  }
  run.writeSummary({ status: "complete", stepsDone: 10, wallSeconds: 2, finalValSuccess: 0.0123456789 * 11, peakValSuccess: 0.0123456789 * 11, final: { step: 10 } })
  return run.dir
}

const read = (dir: string) => Effect.runSync(readRun(dir))
const readC = (path: string) => Effect.runSync(Effect.result(readCompact(path)))

describe("compact run records", () => {
  test("evaluation steps only, the leaderboard's and diagnostics' keys, budgets summed over every step, 6 significant digits", () => {
    const run = read(writeDetailedRun(tempDir("compact")))
    const rec = compactRun(run, LEADERBOARD_KEYS)
    expect(rec.steps).toEqual([0, 5, 10])
    expect(Object.keys(rec.curves).sort()).toEqual(
      ["filter/kept_ratio", "grad/task_norm/b1", "mi/first_turn/retrieval_acc", "reasoning/fact_accuracy", "train/entropy", "val/success@0.5", "val/success@1.0"].sort()
    )
    expect(rec.curves["val/success@0.5"]).toEqual([0.0123457, 0.0740741, 0.135802])
    expect(rec.curves["train/entropy"]).toEqual([1, 2.66667, 4.33333])
    // step 5 logged MI as null: kept as null, not as 0
    expect(rec.curves["mi/first_turn/retrieval_acc"]).toEqual([0.9, null, 0.9])
    // 11 steps: sums exact for integers (token counts over a million stay exact)
    expect(rec.budget).toEqual({ "budget/env_steps": 1155, "budget/tokens": 1_234_567 * 11 + 55, "train/optimizer_steps": 44 })
    expect(rec.run).toEqual(run.config)
    expect(rec.summary).toEqual(run.summary!)
    expect(round6(1 / 3)).toBe(0.333333)
    expect(round6(12345678.9)).toBe(12345700)
  })

  test("the reader returns what the leaderboard reads, and the same budget sums as the run folder", () => {
    const dir = tempDir("compact")
    const run = read(writeDetailedRun(join(dir, "runs")))
    const rec = compactRun(run, LEADERBOARD_KEYS)
    const path = join(dir, "c", `${run.config.runId}.json`)
    Effect.runSync(writeCompactFiles(join(dir, "c"), [rec], 1e6))
    const back = readC(path)
    if (back._tag !== "Success") throw new Error(back.failure.message)
    expect(back.success.config).toEqual(run.config)
    expect(back.success.summary).toEqual(run.summary!)
    expect(back.success.metrics.lines.map((l) => l.step)).toEqual([0, 5, 10])
    expect(back.success.metrics.lines[1]).not.toHaveProperty("mi/first_turn/retrieval_acc")
    expect(budgetTotals(back.success)).toEqual(budgetTotals(run))
    // compacting a compact record gives it back unchanged
    expect(encodeCompact(compactRun(back.success))).toBe(readFileSync(path, "utf8"))
  })

  test("deterministic: the command run twice, and over its own output, writes identical bytes", () => {
    const dir = tempDir("compact")
    writeRuns(join(dir, "results"), standardRuns)
    const a = runCli(["results", "compact", join(dir, "results"), "--out", join(dir, "a")])
    expect(a.stderr).toBe("")
    expect(a.code).toBe(0)
    expect(a.stdout).toMatch(/compacted into .*: 12 run\(s\), \d+ bytes written; the folder holds \d+ bytes of 10000000 allowed/)
    expect(runCli(["results", "compact", join(dir, "results"), "--out", join(dir, "b")]).code).toBe(0)
    expect(runCli(["results", "compact", join(dir, "a"), "--out", join(dir, "c")]).code).toBe(0)
    const files = readdirSync(join(dir, "a")).sort()
    expect(files.length).toBe(12)
    expect(files.every((f) => f.endsWith(".json"))).toBe(true)
    for (const f of files) {
      const bytes = readFileSync(join(dir, "a", f), "utf8")
      expect(readFileSync(join(dir, "b", f), "utf8")).toBe(bytes)
      expect(readFileSync(join(dir, "c", f), "utf8")).toBe(bytes)
    }
  }, 60_000)

  test("round trip: the leaderboard from the compact folder equals the one from the run folders", () => {
    const dir = tempDir("compact")
    writeRuns(join(dir, "results"), [...standardRuns, { env: "frozenlake", filter: "none", seed: 7, peak: 0.3, status: "failed" }])
    const records = Effect.runSync(Effect.map(collectInputs([join(dir, "results")], dir), (c) => c.runs.map(({ run }) => compactRun(run, LEADERBOARD_KEYS))))
    Effect.runSync(writeCompactFiles(join(dir, "compact"), records, 1e7))
    const build = (src: string) => Effect.runSync(Effect.map(collectInputs([src], join(dir, "site")), (c) => buildLeaderboard({ ...c, siteDir: join(dir, "site") })))
    const full = build(join(dir, "results"))
    const compact = build(join(dir, "compact"))
    expect(compact.problems).toEqual([])
    expect(compact.rows).toEqual(full.rows)
    expect(compact.ranking).toEqual(full.ranking)
    expect(compact.filters).toEqual(full.filters)
    // the fixture validates at every step, so every chart point is kept
    expect(compact.groups).toEqual(full.groups)
    const strip = (e: (typeof full.entries)[number]) => ({ ...e, path: "" })
    expect(compact.entries.map(strip)).toEqual(full.entries.map(strip))
    expect(compact.entries.map((e) => e.path).every((p) => p.startsWith("../compact/") && p.endsWith(".json"))).toBe(true)
  })

  test("the folder cap: all or nothing, a one-line error naming the flag", () => {
    const dir = tempDir("compact")
    writeRuns(join(dir, "results"), standardRuns)
    const records = Effect.runSync(Effect.map(collectInputs([join(dir, "results")], dir), (c) => c.runs.map(({ run }) => compactRun(run))))
    const total = records.reduce((a, r) => a + encodeCompact(r).length, 0)
    const refused = Effect.runSync(Effect.result(writeCompactFiles(join(dir, "c"), records, total - 1)))
    expect(refused._tag).toBe("Failure")
    if (refused._tag === "Failure") {
      expect(refused.failure._tag).toBe("UsageError")
      expect(refused.failure.field).toBe("--max-mb")
      expect(refused.failure.message).toContain(`${total} bytes, over the cap of ${total - 1}`)
    }
    expect(existsSync(join(dir, "c"))).toBe(false)
    const ok = Effect.runSync(writeCompactFiles(join(dir, "c"), records, total))
    expect(ok).toEqual({ files: 12, bytes: total, folderBytes: total })
    // files already in the folder count; rewriting the same files does not double them
    expect(Effect.runSync(writeCompactFiles(join(dir, "c"), records, total)).folderBytes).toBe(total)
    const cli = runCli(["results", "compact", join(dir, "results"), "--out", join(dir, "d"), "--max-mb", "0.001"])
    expect(cli.code).toBe(2)
    expect(cli.stderr).toMatch(/^error: compact folder .* over the cap of 1000 \(0\.0 MB\); nothing written/)
    expect(cli.stderr).not.toContain("    at ")
    expect(existsSync(join(dir, "d"))).toBe(false)
  }, 60_000)

  test("hostile compact files are refused with a typed error naming the file; the leaderboard reports them and goes on", () => {
    const dir = tempDir("compact")
    const run = read(writeDetailedRun(join(dir, "runs")))
    const good = JSON.parse(encodeCompact(compactRun(run, LEADERBOARD_KEYS)))
    const c = join(dir, "c")
    Effect.runSync(writeCompactFiles(c, [compactRun(run, LEADERBOARD_KEYS)], 1e6))
    const variants: Record<string, [string, RegExp]> = {
      "not-json.json": ["{ nope", /not valid JSON/],
      "other-format.json": [JSON.stringify({ format: "something-else" }), /not a compact run record/],
      "version.json": [JSON.stringify({ ...good, version: 99 }), /compact version 99/],
      "unknown-key.json": [JSON.stringify({ ...good, extra: 1 }), /extra: unknown option/],
      "proto.json": [`{"format":"ragen-bench/compact-run","version":1,"budget":{},"curves":{"__proto__":[1,2,3]},"run":${JSON.stringify(good.run)},"steps":[0,5,10]}`, /__proto__/],
      "misaligned.json": [JSON.stringify({ ...good, curves: { ...good.curves, "val/success@0.5": [1] } }), /1 values for 3 steps/],
      "steps.json": [JSON.stringify({ ...good, steps: [0, 10, 5] }), /strictly increasing/],
      "path-id.json": [JSON.stringify({ ...good, run: { ...good.run, runId: "../../etc/passwd" }, summary: { ...good.summary, runId: "../../etc/passwd" } }), /not a plain run id/],
      "infinite.json": [JSON.stringify(good).replace('"val/success@0.5":[', '"val/success@0.5":[1e999,'), /finite number/],
      "deep.json": [`${"[".repeat(5000)}${"]".repeat(5000)}`, /nested deeper than 64/],
      "big.json": [" ".repeat(MAX_COMPACT_BYTES + 1), /over the limit/]
    }
    for (const [name, [text, why]] of Object.entries(variants)) {
      writeFileSync(join(c, name), text)
      const r = readC(join(c, name))
      expect(r._tag).toBe("Failure")
      if (r._tag === "Failure") {
        expect(r.failure._tag).toBe("FileFormatError")
        expect(r.failure.path).toBe(join(c, name))
        expect(r.failure.message).toMatch(why)
      }
    }
    const collected = Effect.runSync(collectInputs([c], dir))
    expect(collected.runs.map((r) => r.run.config.runId)).toEqual([run.config.runId])
    expect(collected.problems.map((p) => p.path.replace(/^.*\//, "")).sort()).toEqual(Object.keys(variants).sort())
    expect(Object.getPrototypeOf(collected.runs[0]!.run.metrics.lines[0])).toBe(Object.prototype)
  })
})
