import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { listRunDirs } from "../../core/results/store.ts"
import { compareMetrics, kernelsMismatch } from "../../plugins/leaderboard/verify.ts"
import { MARKS_FILE } from "../../plugins/leaderboard/verify-marks.ts"
import { runCli } from "../helpers/cli.ts"
import { fakeEnv, fixturePlugin, smallSpec, tempDir, writeSpec } from "../sweep/helpers.ts"

describe("leaderboard CLI and verify", () => {
  test("compareMetrics ignores timing metrics and names the first difference", () => {
    expect(compareMetrics([{ step: 0, a: 1, "perf/step_seconds": 0.3 }], [{ step: 0, a: 1, "perf/step_seconds": 0.5 }])).toBe("")
    expect(compareMetrics([{ step: 0, a: 1 }], [{ step: 0, a: 2 }])).toContain("a recorded 1, re-run 2")
    expect(compareMetrics([{ step: 0 }], [])).toContain("1 metrics lines")
  })

  test("verify re-runs a sample, marks it in the builder's --marks folder, and detects a tampered run", () => {
    const dir = tempDir("verify")
    const spec = writeSpec(dir, smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p" }], seeds: [1, 2] }, budget: { steps: 6, evalEvery: 3 } }))
    const results = join(dir, "results")
    const env = fakeEnv(0)
    expect(runCli(["sweep", spec, "--plugin", fixturePlugin, "--out", results, "--leaderboard", join(dir, "site"), "--workers", "1"], { env }).code).toBe(0)
    const marks = join(dir, "marks")
    const ok = runCli(["leaderboard", "verify", results, "--sample", "4", "--plugin", fixturePlugin, "--marks", marks], { env })
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
    const bad = runCli(["leaderboard", "verify", results, "--sample", "4", "--plugin", fixturePlugin, "--marks", marks], { env })
    expect(bad.code).toBe(1)
    expect(bad.stdout).toContain("MISMATCH")
    expect(bad.stdout).toContain("train/entropy recorded 42")
    // Marks are the builder's, keyed by content hash: the tampered run is a new entry marked not ok,
    // the untampered ones keep their one mark each; nothing is written into the results folder.
    expect(existsSync(join(results, "verify.json"))).toBe(false)
    const file = JSON.parse(readFileSync(join(marks, MARKS_FILE), "utf8"))
    const all = Object.values(file.marks) as Array<{ ok: boolean }>
    expect(all.filter((m) => m.ok).length).toBe(4)
    expect(all.filter((m) => !m.ok).length).toBe(1)
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
    // An old AVX-512 record (before numeric families: avx512-v0) against today's AVX2 build (fma8-v1).
    expect(kernelsMismatch({ kernels: "tinylm:native", kernelsIsa: "avx512" }, { kernels: "tinylm:native", kernelsIsa: "avx2" })).toBe(
      "recorded numeric family avx512-v0 (tinylm:native avx512), here fma8-v1 (tinylm:native avx2)"
    )
    // A published AVX2 record re-run on today's AVX-512 build: one family, the same bits.
    expect(kernelsMismatch({ kernels: "tinylm:native", kernelsIsa: "avx2" }, { kernels: "tinylm:native", kernelsIsa: "avx512", numericFamily: "fma8-v1" })).toBe("")
    expect(kernelsMismatch(undefined, { kernels: "tinylm:wasm" })).toBe("")
  })
})
