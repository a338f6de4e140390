import { afterEach, describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { atomicHooks, writeJsonAtomic } from "../../core/results/atomic.ts"
import { isComplete, listRunDirs, openRun, readMetrics, readRun, runIdOf } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { RunConfigFile, RunSummary } from "../../core/contracts/results.ts"

const tmp = () => mkdtempSync(join(tmpdir(), "ragen-results-"))
const config = () => {
  const r = decodeSync(RunConfig, { env: "frozenlake", filter: "top-p", filterOptions: { p: 0.9 }, seed: 3 })
  if (!r.ok) throw new Error(r.message)
  return r.value
}

afterEach(() => {
  delete atomicHooks.beforeRename
})

describe("atomic writes", () => {
  test("a write interrupted between temp file and rename leaves the previous file intact", () => {
    const dir = tmp()
    const p = join(dir, "summary.json")
    writeJsonAtomic(p, { v: 1 })
    atomicHooks.beforeRename = () => {
      throw new Error("killed")
    }
    expect(() => writeJsonAtomic(p, { v: 2 })).toThrow("killed")
    expect(JSON.parse(readFileSync(p, "utf8"))).toEqual({ v: 1 })
    expect(readdirSync(dir)).toEqual(["summary.json"])
  })
})

describe("results store", () => {
  test("run folder named by prefix + config hash, with config, metrics and summary", async () => {
    const out = tmp()
    const cfg = config()
    const run = openRun(out, cfg)
    const { hash, runId } = runIdOf(cfg)
    expect(run.runId).toBe(runId)
    expect(runId).toBe(`frozenlake-grpo-top-p-s3-${hash}`)
    expect(hash).toMatch(/^[0-9a-f]{12}$/)
    run.appendMetrics({ step: 0, "val/success@0.5": 0.5 })
    run.appendMetrics({ step: 1, "val/success@0.5": null })
    expect(isComplete(run.dir)).toBe(false)
    run.writeSummary({ status: "complete", stepsDone: 1, wallSeconds: 0.1, finalValSuccess: 0.5, peakValSuccess: 0.5, final: { step: 1 } })
    expect(isComplete(run.dir)).toBe(true)
    const read = await Effect.runPromise(readRun(run.dir))
    expect(read.config.hash).toBe(hash)
    expect(read.config.runtime.name).toBe("bun")
    expect(read.config.codeVersion.length).toBeGreaterThan(0)
    expect(read.metrics.lines.length).toBe(2)
    expect(read.summary?.status).toBe("complete")
    expect(listRunDirs(out)).toEqual([run.dir])
  })

  test("the same config gives the same id; a different one a different id", () => {
    expect(runIdOf(config()).runId).toBe(runIdOf(config()).runId)
    expect(runIdOf({ ...config(), seed: 4 }).hash).not.toBe(runIdOf(config()).hash)
  })

  test("a torn last metrics line is tolerated and reported; a torn middle line fails", async () => {
    const dir = tmp()
    const p = join(dir, "metrics.jsonl")
    writeFileSync(p, '{"step":0}\n{"step":1}\n{"step":2,"val')
    const r = await Effect.runPromise(readMetrics(p))
    expect(r.lines.length).toBe(2)
    expect(r.tornLastLine).toBe('{"step":2,"val')
    appendFileSync(p, '\n{"step":3}\n')
    const bad = await Effect.runPromise(Effect.flip(readMetrics(p)))
    expect(bad._tag).toBe("FileFormatError")
    expect(bad.message).toContain(":3:")
  })
})

describe("file schemas reject bad input with a clear message", () => {
  test("run config", () => {
    const r = decodeSync(RunConfig, { env: "x", P: 0 })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toContain("P")
    const r2 = decodeSync(RunConfig, { P: 2 })
    expect(r2.ok).toBe(false)
    if (!r2.ok) expect(r2.message).toContain("env")
  })
  test("config.json and summary.json", async () => {
    expect(decodeSync(RunConfigFile, { format: 1, runId: "a" }).ok).toBe(false)
    const s = decodeSync(RunSummary, { format: 1, runId: "a", status: "done", stepsDone: 1, wallSeconds: 1, finalValSuccess: null, peakValSuccess: null, final: {} })
    expect(s.ok).toBe(false)
    if (!s.ok) expect(s.message).toContain("status")
    const dir = tmp()
    writeFileSync(join(dir, "config.json"), JSON.stringify({ format: 1, runId: "x" }))
    const err = await Effect.runPromise(Effect.flip(readRun(dir)))
    expect(err._tag).toBe("FileFormatError")
    expect(err.message).toContain("config.json")
    expect(existsSync(join(dir, "summary.json"))).toBe(false)
  })
  test("metrics line values must be finite numbers or null", () => {
    expect(decodeSync(RunSummary.fields.final, { step: 1, x: "a" }).ok).toBe(false)
  })
})
