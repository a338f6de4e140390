import { describe, expect, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { listRunDirs } from "../../core/results/store.ts"
import { compareMetrics, kernelsMismatch } from "../../plugins/leaderboard/verify.ts"
import { runCli } from "../helpers/cli.ts"
import { fakeEnv, fixturePlugin, smallSpec, tempDir, writeSpec } from "../sweep/helpers.ts"

describe("leaderboard CLI and verify", () => {
  test("compareMetrics ignores timing metrics and names the first difference", () => {
    expect(compareMetrics([{ step: 0, a: 1, "perf/step_seconds": 0.3 }], [{ step: 0, a: 1, "perf/step_seconds": 0.5 }])).toBe("")
    expect(compareMetrics([{ step: 0, a: 1 }], [{ step: 0, a: 2 }])).toContain("a recorded 1, re-run 2")
    expect(compareMetrics([{ step: 0 }], [])).toContain("1 metrics lines")
  })

  test("verify re-runs a sample, marks it, and detects a tampered run; the leaderboard shows the marks", () => {
    const dir = tempDir("verify")
    const spec = writeSpec(dir, smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p" }], seeds: [1, 2] }, budget: { steps: 6, evalEvery: 3 } }))
    const results = join(dir, "results")
    const env = fakeEnv(0)
    expect(runCli(["sweep", spec, "--plugin", fixturePlugin, "--out", results, "--leaderboard", join(dir, "site"), "--workers", "1"], { env }).code).toBe(0)
    const ok = runCli(["leaderboard", "verify", results, "--sample", "4"], { env })
    expect(ok.stdout).toContain("4/4 re-run(s) matched")
    expect(ok.code).toBe(0)
    // Tamper with one recorded metric.
    const victim = listRunDirs(results)[0]!
    const path = join(victim, "metrics.jsonl")
    const lines = readFileSync(path, "utf8").split("\n")
    const first = JSON.parse(lines[0]!)
    first["train/entropy"] = 42
    lines[0] = JSON.stringify(first)
    writeFileSync(path, lines.join("\n"))
    const bad = runCli(["leaderboard", "verify", results, "--sample", "4"], { env })
    expect(bad.code).toBe(1)
    expect(bad.stdout).toContain("MISMATCH")
    expect(bad.stdout).toContain("train/entropy recorded 42")
    const marks = JSON.parse(readFileSync(join(results, "verify.json"), "utf8"))
    expect(Object.values(marks.runs).filter((m: any) => m.ok).length).toBe(3)
    const lb = runCli(["leaderboard", results, "--out", join(dir, "site2")])
    expect(lb.code).toBe(0)
    expect(lb.stdout).toContain("leaderboard: ")
    const json = JSON.parse(readFileSync(join(dir, "site2", "leaderboard.json"), "utf8"))
    expect(json.entries.filter((e: any) => e.verified === true).length).toBe(3)
    expect(json.entries.filter((e: any) => e.verified === false).length).toBe(1)
    expect(readFileSync(join(dir, "site2", "index.html"), "utf8")).toContain("✗ mismatch")
  }, 60_000)

  test("a missing results folder is a usage error", () => {
    const r = runCli(["leaderboard", "/nonexistent/results"])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("does not exist")
  }, 30_000)
})

describe("verify re-runs on the recorded kernels", () => {
  test("kernelsMismatch names the difference, and nothing when the backend and instruction set agree", () => {
    expect(kernelsMismatch({ kernels: "tinylm:native", kernelsIsa: "avx512" }, { kernels: "tinylm:native", kernelsIsa: "avx512" })).toBe("")
    expect(kernelsMismatch({ kernels: "tinylm:native", kernelsIsa: "avx512" }, { kernels: "tinylm:native", kernelsIsa: "avx2" })).toBe("recorded tinylm:native avx512, here tinylm:native avx2")
    expect(kernelsMismatch(undefined, { kernels: "tinylm:wasm" })).toBe("")
  })
})
