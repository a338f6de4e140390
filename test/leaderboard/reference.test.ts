import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { compactRun, writeCompactFiles } from "../../core/results/compact.ts"
import { openRun, runIdOf } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { collectInputs } from "../../plugins/leaderboard/collect.ts"
import { comparable, DEFAULT_REFERENCE_DIR, defaultReference, differences, joinReference } from "../../plugins/leaderboard/reference.ts"
import { runCli } from "../helpers/cli.ts"
import { tempDir } from "../sweep/helpers.ts"

interface R {
  env?: string
  filter: string
  filterOptions?: Record<string, unknown>
  seed: number
  peak: number
  lr?: number
  kernels?: string
}

const writeRun = (dir: string, r: R): string => {
  const c = decodeSync(RunConfig, {
    env: r.env ?? "frozenlake",
    filter: r.filter,
    filterOptions: r.filterOptions ?? {},
    seed: r.seed,
    steps: 4,
    lr: r.lr ?? 1e-4,
    policyOptions: { preset: "tiny", kernels: r.kernels ?? "auto" }
  })
  if (!c.ok) throw new Error(c.message)
  const run = openRun(dir, c.value)
  for (let s = 0; s <= 4; s++) run.appendMetrics({ step: s, "val/success@0.5": (r.peak * s) / 4 })
  run.writeSummary({ status: "complete", stepsDone: 4, wallSeconds: 1, finalValSuccess: r.peak, peakValSuccess: r.peak, final: { step: 4 } })
  return run.dir
}

/** The published baselines: none and random on two envs, two seeds, as a compact folder. */
const publish = (dir: string, over: Partial<R> = {}): string => {
  const runs = join(dir, "ref-runs")
  for (const env of ["frozenlake", "sokoban"])
    for (const seed of [1, 2]) {
      writeRun(runs, { env, filter: "none", seed, peak: 0.5 + seed / 10, ...over })
      writeRun(runs, { env, filter: "random", seed, peak: 0.4 + seed / 10, ...over })
    }
  const out = join(dir, "reference")
  const records = Effect.runSync(Effect.map(collectInputs([runs], dir), (c) => c.runs.map(({ run }) => compactRun(run))))
  Effect.runSync(writeCompactFiles(out, records, 1e7))
  return out
}

const collect = (dir: string) => Effect.runSync(collectInputs([dir], dir)).runs

describe("a user's runs beside the published reference set", () => {
  test("configs that agree (seed, filter and kernel backend aside) join; the user's filter is compared with the reference baseline", () => {
    const dir = tempDir("ref")
    const ref = publish(dir, { kernels: "native" })
    const mine = join(dir, "mine")
    for (const seed of [1, 2]) writeRun(mine, { filter: "top-p", filterOptions: { p: 0.9 }, seed, peak: 0.8 + seed / 10, kernels: "wasm" })
    const joined = joinReference(collect(mine), collect(ref), "reference/")
    // frozenlake's 4 reference runs join; sokoban's have no run of the user's
    expect(joined.runs.map((r) => r.run.config.config.env)).toEqual(["frozenlake", "frozenlake", "frozenlake", "frozenlake"])
    expect(joined.left).toBe(4)
    expect(joined.notes[0]).toBe("reference reference/: 4 of 8 run(s) joined beside yours, 4 left out")
    expect(joined.notes[1]).toBe("reference: 1 configuration(s) with no run of yours of the same env and algorithm left out (sokoban · grpo)")
  })

  test("a configuration that differs is left out, and the note names the differing keys with both values", () => {
    const dir = tempDir("ref")
    const ref = publish(dir)
    const mine = join(dir, "mine")
    writeRun(mine, { filter: "top-p", seed: 1, peak: 0.9, lr: 0.001 })
    const joined = joinReference(collect(mine), collect(ref), "ref")
    expect(joined.runs).toEqual([])
    expect(joined.notes).toContain("reference frozenlake · grpo: 4 run(s) left out of your rows, the configuration differs: lr (reference 0.0001, yours 0.001)")
  })

  test("a different results-semantics version is named as such", () => {
    const dir = tempDir("ref")
    const ref = publish(dir)
    // an older reference set: its records say semantics 1
    const refRuns = collect(ref)
    for (const { run } of refRuns) {
      const rec = JSON.parse(readFileSync(run.dir, "utf8"))
      rec.run.semantics = 1
      // its run id and hash are those of its config under version 1 (else it reads as a renamed copy)
      Object.assign(rec.run, runIdOf(rec.run.config, 1))
      if (rec.summary) rec.summary.runId = rec.run.runId
      writeFileSync(run.dir, JSON.stringify(rec))
    }
    const mine = join(dir, "mine")
    writeRun(mine, { filter: "top-p", seed: 1, peak: 0.9 })
    const mineRuns = collect(mine)
    const joined = joinReference(mineRuns, collect(ref), "ref")
    expect(joined.runs).toEqual([])
    expect(joined.notes.join("\n")).toContain(`results-semantics version (reference 1, yours ${mineRuns[0]!.run.config.semantics})`)
    expect(differences(refRuns[0]!.run.config, mineRuns[0]!.run.config)).toEqual([])
  })

  test("a reference run the user also has is not counted twice", () => {
    const dir = tempDir("ref")
    const ref = publish(dir)
    const mine = join(dir, "mine")
    writeRun(mine, { filter: "none", seed: 1, peak: 0.6, kernels: "js" })
    writeRun(mine, { filter: "top-p", seed: 1, peak: 0.9 })
    const joined = joinReference(collect(mine), collect(ref), "ref")
    expect(joined.runs.map((r) => `${r.run.config.config.filter} ${r.run.config.config.seed}`).sort()).toEqual(["none 2", "random 1", "random 2"])
    expect(joined.notes[0]).toContain("1 you also have (yours kept)")
  })

  test("ragen-bench leaderboard --reference: rows with the reference baselines, the notes on stderr; none and a missing folder", () => {
    const dir = tempDir("ref")
    const ref = publish(dir)
    const mine = join(dir, "mine")
    for (const seed of [1, 2]) writeRun(mine, { filter: "top-p", filterOptions: { p: 0.9 }, seed, peak: 0.8 + seed / 10 })
    const site = join(dir, "site")
    const r = runCli(["leaderboard", mine, "--reference", ref, "--out", site])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("4 of 8 run(s) joined beside yours")
    const lb = JSON.parse(readFileSync(join(site, "leaderboard.json"), "utf8"))
    // one row: the user's top-p and the reference none and random, pooled by the build
    expect(lb.rows.map((r: { env: string }) => r.env)).toEqual(["frozenlake"])
    expect(lb.rows[0].cells.map((c: { filter: string }) => c.filter).sort()).toEqual(["none", "random", "top-p"])
    expect(lb.filters).toEqual(["none", "random", "top-p"])
    expect(lb.entries.length).toBe(6)
    expect(lb.entries.filter((e: { path: string }) => e.path.startsWith("../reference/")).length).toBe(4)
    const none = runCli(["leaderboard", mine, "--reference", "none", "--out", site])
    expect(none.code).toBe(0)
    expect(JSON.parse(readFileSync(join(site, "leaderboard.json"), "utf8")).filters).toEqual(["top-p"])
    const missing = runCli(["leaderboard", mine, "--reference", join(dir, "nope"), "--out", site])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^error: reference folder .*nope does not exist/)
    // a compact folder alone rebuilds the reference leaderboard
    const alone = runCli(["leaderboard", ref, "--out", join(dir, "site2"), "--json"])
    expect(alone.code).toBe(0)
    expect(JSON.parse(alone.stdout)).toMatchObject({ runs: 8, rows: 2, filters: ["none", "random"], problems: [] })
  }, 60_000)
})

describe("what a reference run must share", () => {
  test("seed, filter, kernel backend and sampling stream aside (the reference's noise floor joins as none′), everything else counts", () => {
    const file = (over: Record<string, unknown>, train: Record<string, unknown> = {}) => {
      const r = decodeSync(RunConfig, { env: "envs/frozenlake-v1", policyOptions: { kernels: "native", preset: "tiny" }, ...over, train: { evalEvery: 10, ...train } })
      if (!r.ok) throw new Error(r.message)
      return { config: r.value } as unknown as Parameters<typeof comparable>[0]
    }
    const mine = comparable(file({ seed: 1, filter: "filters/top-k" }))
    expect(comparable(file({ seed: 4, filter: "filters/none", policyOptions: { kernels: "js", preset: "tiny" } }, { samplingStream: 1 }))).toEqual(mine)
    expect(comparable(file({ seed: 1, filter: "filters/top-k", lr: 0.5 }))).not.toEqual(mine)
    expect(comparable(file({ seed: 1, filter: "filters/top-k" }, { evalEvery: 5 }))).not.toEqual(mine)
  })
})

describe("the default reference set", () => {
  test("a sweep with a published set of its own joins that set; any other name (or a path) gets the standard set", () => {
    expect(defaultReference("quick")).toMatch(/reference[\\/]quick[\\/]$/)
    // The standard set, or nothing while it is unpublished.
    const standard = existsSync(DEFAULT_REFERENCE_DIR) ? DEFAULT_REFERENCE_DIR : undefined
    expect(defaultReference("standard")).toBe(standard)
    expect(defaultReference("my-sweep")).toBe(standard)
    expect(defaultReference("../quick")).toBe(standard)
    expect(defaultReference()).toBe(standard)
  })
})
