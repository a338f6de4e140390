import { describe, expect, test } from "bun:test"
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { isComplete, listRunDirs } from "../../core/results/store.ts"
import { estimateGridSeconds, estimateSweepSeconds, fmtDuration } from "../../core/sweep/estimate.ts"
import { runSweep, type SweepEvent } from "../../plugins/sweep/runner.ts"
import { bunBin, mainTs, root, runCli } from "../helpers/cli.ts"
import { fakeEnv, fixturePlugin, grid, smallSpec, tempDir, writeSpec } from "./helpers.ts"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const sweepArgs = (spec: string, dir: string) => ["sweep", spec, "--plugin", fixturePlugin, "--out", join(dir, "results"), "--leaderboard", join(dir, "site"), "--workers", "2"]

describe("sweep runner", () => {
  test("runs every run once in worker processes, then skips complete runs", async () => {
    const dir = tempDir("runner")
    const runs = grid(smallSpec())
    const events: SweepEvent[] = []
    // 40 ms a step (≈ 6 s of runs): long enough that both workers are up before the first takes them all, even on a busy machine.
    const out = await runSweep(runs, { outDir: dir, workers: 2, env: fakeEnv(40), onEvent: (e) => events.push(e) })
    expect(out).toMatchObject({ total: 12, done: 12, failed: 0, skipped: 0, unfinished: 0 })
    expect(events.filter((e) => e.type === "start").length).toBe(12)
    expect(new Set(events.flatMap((e) => (e.type === "start" ? [e.worker] : []))).size).toBe(2)
    expect(events.some((e) => e.type === "progress")).toBe(true)
    for (const r of runs) expect(isComplete(join(dir, r.runId))).toBe(true)
    const again = await runSweep(runs, { outDir: dir, workers: 2, env: fakeEnv() })
    expect(again).toMatchObject({ total: 12, done: 0, skipped: 12 })
  }, 30_000)

  test("runs sharing one SFT warm start: the second worker waits for it instead of training it again", async () => {
    const dir = tempDir("runner")
    const runs = grid(
      smallSpec({
        axes: { env: ["frozenlake"], filter: ["none", { id: "top-p", options: { p: 0.9 } }], seeds: [1, 2] },
        fixed: { policy: "fake-policy", P: 4, G: 4, train: { sftSteps: 10, sftSeed: 1 } }
      })
    )
    expect(runs.length).toBe(4)
    const events: SweepEvent[] = []
    const out = await runSweep(runs, { outDir: dir, workers: 2, env: { ...fakeEnv(), RAGEN_SWEEP_FAKE_SFT_MS: "400" }, onEvent: (e) => events.push(e) })
    expect(out).toMatchObject({ total: 4, done: 4, failed: 0 })
    const trained = readFileSync(join(dir, ".sft-cache", "fake-trained.log"), "utf8")
      .trim()
      .split("\n")
    expect(trained.length).toBe(1)
    // both workers still ran runs
    expect(new Set(events.flatMap((e) => (e.type === "start" ? [e.worker] : []))).size).toBe(2)
  }, 30_000)

  test("a failed run and a crashed worker are recorded; the others go on", async () => {
    const dir = tempDir("runner")
    const runs = grid(
      smallSpec({
        axes: {
          env: ["frozenlake"],
          filter: ["none"],
          seeds: [1, 2],
          train: [
            { label: "ok", set: {} },
            { label: "boom", set: { "policyOptions.fakeFail": "boom <b>", "policyOptions.fakeFailAt": 3 } },
            { label: "crash", set: { "policyOptions.fakeExit": 3, "policyOptions.fakeFailAt": 2 } }
          ]
        }
      })
    )
    const events: SweepEvent[] = []
    const out = await runSweep(runs, { outDir: dir, workers: 2, env: fakeEnv(), onEvent: (e) => events.push(e) })
    expect(out).toMatchObject({ total: 6, done: 2, failed: 4 })
    for (const r of runs) {
      const s = JSON.parse(readFileSync(join(dir, r.runId, "summary.json"), "utf8"))
      const label = r.label
      if (label.includes("ok")) expect(s.status).toBe("complete")
      else expect(s.status).toBe("failed")
      if (label.includes("boom")) expect(s.error).toBe("boom <b>")
      if (label.includes("crash")) expect(s.error).toContain("worker exited (code 3)")
    }
  }, 30_000)

  test("resume after SIGKILL: only unfinished runs re-run, the leaderboard is identical", async () => {
    const a = tempDir("sweepA")
    const b = tempDir("sweepB")
    const specA = writeSpec(a, smallSpec())
    const specB = writeSpec(b, smallSpec())
    const env = fakeEnv(10)
    const full = runCli(sweepArgs(specA, a), { env })
    expect(full.stderr).not.toContain("error")
    expect(full.code).toBe(0)
    expect(full.stdout).toContain("12 done")

    const child = spawn(bunBin, [mainTs, ...sweepArgs(specB, b)], { cwd: root, env: { ...process.env, ...env }, stdio: "ignore" })
    const resultsB = join(b, "results")
    // Kill once a few runs are complete and others are mid-way.
    for (let i = 0; i < 400; i++) {
      await sleep(25)
      if (listRunDirs(resultsB).filter(isComplete).length >= 4) break
    }
    child.kill("SIGKILL")
    await new Promise((r) => child.once("exit", r))
    await sleep(300) // orphaned workers see stdin close and exit
    const completeBefore = new Set(
      listRunDirs(resultsB)
        .filter(isComplete)
        .map((d) => d.split("/").pop()!)
    )
    expect(completeBefore.size).toBeGreaterThanOrEqual(4)
    expect(completeBefore.size).toBeLessThan(12)
    expect(existsSync(join(b, "site"))).toBe(false)

    const resumed = runCli(sweepArgs(specB, b), { env })
    expect(resumed.code).toBe(0)
    const started = [...resumed.stderr.matchAll(/^start .*\[(.+)\]$/gm)].map((m) => m[1]!)
    expect(started.length).toBe(12 - completeBefore.size)
    for (const id of started) expect(completeBefore.has(id)).toBe(false)
    expect(resumed.stdout).toContain(`${completeBefore.size} already complete`)

    const lbA = readFileSync(join(a, "site", "leaderboard.json"), "utf8")
    const lbB = readFileSync(join(b, "site", "leaderboard.json"), "utf8")
    expect(lbB).toBe(lbA)
    // Metrics files too: a resumed run writes exactly what an uninterrupted one did.
    for (const id of readdirSync(join(a, "results"))) {
      expect(readFileSync(join(b, "results", id, "metrics.jsonl"), "utf8")).toBe(readFileSync(join(a, "results", id, "metrics.jsonl"), "utf8"))
    }
  }, 60_000)

  test("SIGINT stops cleanly; the next sweep finishes the rest", async () => {
    const dir = tempDir("sigint")
    const spec = writeSpec(dir, smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p" }], seeds: [1, 2] }, budget: { steps: 40 } }))
    const env = fakeEnv(20)
    const child = spawn(bunBin, [mainTs, ...sweepArgs(spec, dir)], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    const results = join(dir, "results")
    for (let i = 0; i < 400 && listRunDirs(results).length < 2; i++) await sleep(25)
    await sleep(150)
    child.kill("SIGINT")
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)))
    expect(code).toBe(130)
    expect(stdout).toContain("stopped: run the same command again")
    const statuses = listRunDirs(results).map((d) => JSON.parse(readFileSync(join(d, "summary.json"), "utf8")).status)
    expect(statuses).toContain("stopped")
    const again = runCli(sweepArgs(spec, dir), { env })
    expect(again.code).toBe(0)
    expect(listRunDirs(results).filter(isComplete).length).toBe(4)
  }, 60_000)

  test("runs under Deno too (workers are started with the same runtime)", () => {
    const dir = tempDir("deno")
    const spec = writeSpec(dir, smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p" }], seeds: [1] }, budget: { steps: 4 } }))
    const r = runCli(sweepArgs(spec, dir), { runtime: "deno", env: fakeEnv(0) })
    expect(r.stderr).not.toContain("FAILED")
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("2 done")
    expect(listRunDirs(join(dir, "results")).filter(isComplete).length).toBe(2)
    expect(JSON.parse(readFileSync(join(listRunDirs(join(dir, "results"))[0]!, "config.json"), "utf8")).runtime.name).toBe("deno")
  }, 60_000)

  test("--dry-run lists the runs and an estimate without running", () => {
    const dir = tempDir("dry")
    const spec = writeSpec(dir, smallSpec({ secondsPerStep: 1 }))
    const r = runCli([...sweepArgs(spec, dir), "--dry-run"], { env: fakeEnv() })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("sweep small: 12 runs")
    expect(r.stdout.split("\n").filter((l) => l.startsWith("  ")).length).toBe(12)
    // The spec's secondsPerStep replaces the step figure; validation and diagnostics come on top.
    const runs = grid(smallSpec({ secondsPerStep: 1 }))
    const perRun = estimateGridSeconds(
      runs.map((x) => x.config),
      1
    )
    expect(perRun[0]).toBeGreaterThan(12)
    expect(r.stdout).toContain(`estimated time: ${fmtDuration(estimateSweepSeconds(perRun, 2))} with 2 worker(s)`)
    expect(existsSync(join(dir, "results"))).toBe(false)
  }, 30_000)

  test("a bad spec or an unknown filter is a usage error (exit 2)", () => {
    const dir = tempDir("bad")
    const spec = writeSpec(dir, smallSpec({ axes: { env: ["frozenlake"], filter: ["nope"] } }))
    const r = runCli(sweepArgs(spec, dir), { env: fakeEnv() })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown filter "nope"')
    const w = runCli([...sweepArgs(spec, dir).slice(0, -2), "--workers", "0"], { env: fakeEnv() })
    expect(w.code).toBe(2)
    expect(w.stderr).toContain("--workers")
  }, 30_000)
})
