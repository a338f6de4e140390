/**
 * Budgets on untrusted work (docs/decisions.md#issue-27): `leaderboard verify` re-ran a received config of 10^9
 * steps at P × G = 4096 × 64 (2.5 GB in 27 s); `sweep --dry-run` of a 10^9-run grid expanded it
 * silently for minutes; `train --from` a 100k-deep JSON died with a stack trace, and ran someone
 * else's config that reads files without a word. Each is now refused up front with the numbers.
 */
import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { openRun } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { verifyRuns } from "../../plugins/leaderboard/verify.ts"
import { DEFAULT_RERUN_BUDGET, overBudget } from "../../plugins/leaderboard/rerun-budget.ts"
import { listCompactFiles } from "../../core/results/compact.ts"
import { runCli } from "../helpers/cli.ts"
import { tempRoot } from "./helpers.ts"

const { fresh } = tempRoot("rb-budgets-")

describe("leaderboard verify has a re-run budget", () => {
  const hugeRun = (name: string): string => {
    const dir = fresh(name)
    const c = decodeSync(RunConfig, { env: "frozenlake", steps: 1e9, P: 4096, G: 64 })
    if (!c.ok) throw new Error(c.message)
    const run = openRun(dir, c.value)
    run.appendMetrics({ step: 0 })
    run.writeSummary({ status: "complete", stepsDone: 1e9, wallSeconds: 1, finalValSuccess: null, peakValSuccess: null, final: {} } as never)
    return dir
  }

  test("10^9 steps at 4096 × 64 is refused, naming the numbers and the flags; raised limits let it run", async () => {
    const dir = hugeRun("verify-huge")
    let calls = 0
    const train = async () => {
      calls++
      throw new Error("re-run attempted")
    }
    const refused = await Effect.runPromise(verifyRuns(dir, 5, 1, train as never))
    expect(calls).toBe(0)
    expect(refused).toHaveLength(1)
    expect(refused[0]!.refused).toBe(true)
    expect(refused[0]!.detail).toContain("optimizer steps 1000000000 (steps 1000000000 × epochs 1 + SFT steps 0) > 10000 (--max-steps)")
    expect(refused[0]!.detail).toContain("P × G 4096 × 64 = 262144 > 1024 (--max-pg)")
    expect(refused[0]!.detail).toContain("(--max-tokens)")
    await Effect.runPromise(verifyRuns(dir, 5, 1, train as never, [], { budget: { steps: 1e9, pg: 262144, tokens: Infinity, episodes: Infinity } }))
    expect(calls).toBe(1)
  })

  test("every loop the config controls counts: 10^9 validation seeds, epochs or SFT steps are refused before anything runs", async () => {
    const run = (name: string, over: Record<string, unknown>): string => {
      const dir = fresh(name)
      const c = decodeSync(RunConfig, { env: "frozenlake", steps: 10, P: 4, G: 4, ...over })
      if (!c.ok) throw new Error(c.message)
      const r = openRun(dir, c.value)
      r.appendMetrics({ step: 0 })
      r.writeSummary({ status: "complete", stepsDone: 10, wallSeconds: 1, finalValSuccess: null, peakValSuccess: null, final: {} } as never)
      return dir
    }
    let calls = 0
    const train = async () => {
      calls++
      throw new Error("re-run attempted")
    }
    const refusal = async (dir: string): Promise<string> => {
      const [r] = await Effect.runPromise(verifyRuns(dir, 1, 1, train as never))
      expect(r!.refused).toBe(true)
      return r!.detail
    }
    // 1e9 validation seeds once took 7.4 GB of memory in 25 s.
    const val = await refusal(run("val-seeds", { train: { valSeeds: 1e9 } }))
    expect(val).toContain("valSeeds 1000000000")
    expect(val).toContain("(--max-episodes)")
    expect(val).toContain("(--max-tokens)")
    expect(await refusal(run("epochs", { train: { epochs: 1e9 } }))).toContain("epochs 1000000000")
    expect(await refusal(run("sft", { train: { sftSteps: 1e9 } }))).toContain("SFT steps 1000000000")
    expect(await refusal(run("turns", { train: { maxTurns: 1e6, maxTokens: 1e6 } }))).toContain("(--max-tokens)")
    expect(calls).toBe(0)
  })

  test("every published reference record fits the default re-run budget", () => {
    const root = join(import.meta.dir, "..", "..", "plugins", "leaderboard", "reference")
    let n = 0
    for (const set of readdirSync(root)) {
      for (const f of listCompactFiles(join(root, set))) {
        const rec = JSON.parse(readFileSync(f, "utf8"))
        expect(`${f}: ${overBudget(rec.run.config, DEFAULT_RERUN_BUDGET)}`).toBe(`${f}: `)
        n++
      }
    }
    expect(n).toBeGreaterThan(50)
  })

  test("the CLI says REFUSED with the numbers and exits 1; a bad --max-steps is a one-line exit 2", () => {
    const dir = hugeRun("verify-huge-cli")
    const r = runCli(["leaderboard", "verify", dir])
    expect(r.stdout).toContain("REFUSED")
    expect(r.stdout).toContain("optimizer steps 1000000000 (steps 1000000000 × epochs 1 + SFT steps 0) > 10000")
    expect(r.code).toBe(1)
    const bad = runCli(["leaderboard", "verify", dir, "--max-steps", "lots"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--max-steps")
    expect(bad.stderr).not.toContain("    at ")
  }, 60_000)
})

describe("sweep counts its grid before expanding it", () => {
  const bigSpec = (dir: string, extra: Record<string, unknown> = {}): string => {
    const seeds = Array.from({ length: 1000 }, (_, i) => i + 1)
    const path = join(dir, "huge.json")
    writeFileSync(
      path,
      JSON.stringify({ name: "huge", axes: { env: ["frozenlake"], filter: ["none", "top-p", "top-k"], seeds, lr: seeds.map((s) => s / 1e6), PG: seeds.map((s) => ({ P: 1, G: s + 1 })) }, ...extra })
    )
    return path
  }

  test("a 3×10^9-run grid: --dry-run refuses at once with the count and the option that raises the limit", () => {
    const dir = fresh("grid")
    const t0 = Date.now()
    const r = runCli(["sweep", bigSpec(dir), "--dry-run"], { timeoutMs: 30_000 })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("3000000000 runs")
    expect(r.stderr).toContain("--max-runs")
    expect(r.stderr).not.toContain("    at ")
    // Refused before any run is resolved: well inside the 30 s the unbounded expansion ran past.
    expect(Date.now() - t0).toBeLessThan(30_000)
  }, 60_000)

  test("a spec's own maxRuns cannot lift the user's cap (--max-runs, default 10000); the user's flag can lower it", () => {
    const dir = fresh("grid-lift")
    const r = runCli(["sweep", bigSpec(dir, { maxRuns: 1e12 }), "--dry-run"], { timeoutMs: 30_000 })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("more than --max-runs 10000 (the spec's maxRuns 1000000000000 cannot raise it)")
    expect(r.stderr).toContain("--max-runs 3000000000")
    const path = join(dir, "two.json")
    writeFileSync(path, JSON.stringify({ name: "two", axes: { env: ["frozenlake"], seeds: [1, 2] }, budget: { steps: 1 } }))
    const low = runCli(["sweep", path, "--dry-run", "--max-runs", "1"])
    expect(low.code).toBe(2)
    expect(low.stderr).toContain("2 runs")
    expect(low.stderr).toContain("--max-runs 1")
  }, 60_000)

  test("maxRuns in the spec lowers the limit (the grid is then expanded: a small grid at a limit of 1 is refused)", () => {
    const dir = fresh("grid-small")
    const path = join(dir, "two.json")
    writeFileSync(path, JSON.stringify({ name: "two", axes: { env: ["frozenlake"], seeds: [1, 2] }, budget: { steps: 1 }, maxRuns: 1 }))
    const r = runCli(["sweep", path, "--dry-run"])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("2 runs")
    writeFileSync(path, JSON.stringify({ name: "two", axes: { env: ["frozenlake"], seeds: [1, 2] }, budget: { steps: 1 }, maxRuns: 2 }))
    const ok = runCli(["sweep", path, "--dry-run"])
    expect(ok.stderr).toBe("")
    expect(ok.code).toBe(0)
  }, 60_000)
})

describe("train --from someone else's config", () => {
  test("a 100k-deep JSON is a one-line exit 2, no stack trace", () => {
    const dir = fresh("deep")
    const path = join(dir, "deep.json")
    writeFileSync(path, `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`)
    const r = runCli(["train", "--from", path, "--steps", "0"])
    expect(r.code).toBe(2)
    expect(r.stderr).not.toContain("    at ")
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    expect(r.stderr).toContain("--from")
  }, 60_000)

  test("a config that reads files or reaches URLs is refused before it runs, naming the fields, unless --allow-external", () => {
    const dir = fresh("external")
    const path = join(dir, "config.json")
    writeFileSync(path, JSON.stringify({ env: "metamathqa", envOptions: { dataPath: "/etc/passwd" }, steps: 0 }))
    const r = runCli(["train", "--from", path, "--out", join(dir, "out")])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("envOptions.dataPath")
    expect(r.stderr).toContain("--allow-external")
    expect(r.stderr.trim().split("\n")).toHaveLength(1)
    // Allowed, it goes on to run (and fails on the file, which is not a MetaMathQA data set).
    const allowed = runCli(["train", "--from", path, "--out", join(dir, "out"), "--allow-external"])
    expect(allowed.stderr).not.toContain("--allow-external")
  }, 60_000)
})
