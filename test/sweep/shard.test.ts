import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { isComplete } from "../../core/results/store.ts"
import { parseShard, shardRuns } from "../../core/sweep/shard.ts"
import { runCli } from "../helpers/cli.ts"
import { fakeEnv, fixturePlugin, grid, smallSpec, tempDir, writeSpec } from "./helpers.ts"

const parse = (v: unknown) => Effect.runSync(Effect.result(parseShard(v)))

describe("sweep shards", () => {
  test("--shard i/n parses; anything else is a one-line error naming the flag", () => {
    expect(parse("2/4")).toMatchObject({ _tag: "Success", success: { index: 2, count: 4 } })
    expect(parse(" 1 / 1 ")).toMatchObject({ _tag: "Success", success: { index: 1, count: 1 } })
    for (const bad of ["0/3", "4/3", "1/0", "2", "a/b", "1/2/3", "-1/2", true]) {
      const r = parse(bad)
      expect(r._tag).toBe("Failure")
      if (r._tag === "Failure") expect(r.failure).toMatchObject({ _tag: "UsageError", field: "--shard" })
    }
  })

  test("the n slices partition the grid: every run in exactly one, in order, sizes within one", () => {
    for (let total = 0; total <= 23; total++) {
      const runs = Array.from({ length: total }, (_, i) => i)
      for (let n = 1; n <= 7; n++) {
        const slices = Array.from({ length: n }, (_, i) => shardRuns(runs, { index: i + 1, count: n }))
        expect(slices.flat()).toEqual(runs)
        const sizes = slices.map((s) => s.length)
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1)
      }
    }
    // on a real grid (12 runs, seeds outermost): 3 shards are the whole filter comparisons of (seed, env) pairs
    const runs = grid(smallSpec())
    const ids = (i: number, n: number) => shardRuns(runs, { index: i, count: n }).map((r) => r.runId)
    expect([...ids(1, 5), ...ids(2, 5), ...ids(3, 5), ...ids(4, 5), ...ids(5, 5)]).toEqual(runs.map((r) => r.runId))
    const first = shardRuns(runs, { index: 1, count: 4 })
    expect(new Set(first.map((r) => `${r.config.env} ${r.config.seed}`)).size).toBe(1)
    expect(first.map((r) => r.config.filter.replace(/^.*\//, ""))).toEqual(["none", "top-p", "random"])
  })

  test("sweep --shard runs its slice only and --compact-to compacts each run as it completes", () => {
    const dir = tempDir("shard")
    const spec = writeSpec(dir, smallSpec())
    const all = grid(smallSpec())
    const dry = runCli(["sweep", spec, "--plugin", fixturePlugin, "--dry-run", "--shard", "2/3"])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toContain("(shard 2/3: 4 of 12 runs)")
    const mine = shardRuns(all, { index: 2, count: 3 })
    for (const r of all) expect(dry.stdout.includes(r.runId)).toBe(mine.includes(r))
    const bad = runCli(["sweep", spec, "--plugin", fixturePlugin, "--dry-run", "--shard", "4/3"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^error: --shard must be i\/n/)

    const args = ["sweep", spec, "--plugin", fixturePlugin, "--out", join(dir, "results"), "--leaderboard", join(dir, "site"), "--workers", "2", "--shard", "2/3", "--compact-to", join(dir, "compact")]
    const r = runCli(args, { env: fakeEnv(), timeoutMs: 90_000 })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("compact: 4 run(s) in")
    for (const run of all) expect(isComplete(join(dir, "results", run.runId))).toBe(mine.includes(run))
    const files = readdirSync(join(dir, "compact")).sort()
    expect(files).toEqual(mine.map((m) => `${m.runId}.json`).sort())
    // the same bytes as `results compact` of the run folders
    expect(runCli(["results", "compact", join(dir, "results"), "--out", join(dir, "again")]).code).toBe(0)
    for (const f of files) expect(readFileSync(join(dir, "compact", f), "utf8")).toBe(readFileSync(join(dir, "again", f), "utf8"))
    // a second invocation of the shard skips its complete runs and compacts them again to the same bytes
    const again = runCli(args, { env: fakeEnv(), timeoutMs: 90_000 })
    expect(again.code).toBe(0)
    expect(again.stdout).toContain("0 done, 4 already complete")
    for (const f of files) expect(readFileSync(join(dir, "compact", f), "utf8")).toBe(readFileSync(join(dir, "again", f), "utf8"))
  }, 120_000)
})
