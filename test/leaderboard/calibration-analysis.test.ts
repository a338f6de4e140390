/**
 * plugins/leaderboard/analysis/calibration.ts (the tables of docs/results/calibration.md) on
 * synthetic runs with known curves: each run's curve is peak·s/4 at steps 0..4.
 */
import { expect, test } from "bun:test"
import { join } from "node:path"
import { tempDir } from "../sweep/helpers.ts"
import { sevenSeedRuns, writeRuns } from "./fixtures.ts"

const script = join(import.meta.dir, "..", "..", "plugins", "leaderboard", "analysis", "calibration.ts")

test("per-run curves and areas, the cut at --through, and paired area deltas against none with the exact sign-flip p", () => {
  const dir = join(tempDir("calib"), "results")
  writeRuns(dir, sevenSeedRuns)
  const r = Bun.spawnSync([process.execPath, script, dir, "--through", "2"], { stdout: "pipe", stderr: "pipe" })
  const text = r.stdout.toString()
  expect(r.stderr.toString()).toBe("")
  expect(r.exitCode).toBe(0)
  // none at seed 1: peak 0.42, curve 0, 10.5, 21, 31.5, 42 %; area = mean of steps 1..4 = 26.25 %, area ≤ 2 = 15.75 %.
  const none1 = text.split("\n").find((l) => l.startsWith("| frozenlake | ") && l.includes("| none | 1 |"))
  expect(none1).toContain("0: 0.0, 1: 10.5, 2: 21.0, 3: 31.5, 4: 42.0 | 26.3 | 15.8 |")
  // "drop" is below none on all 7 seeds: exact sign-flip p = 2/2^7.
  const drops = text.split("\n").filter((l) => l.includes("| drop | 7 |") && !l.includes("0: "))
  expect(drops).toHaveLength(2)
  for (const l of drops) expect(l).toContain("| 7/7 | 0.0156 |")
}, 60_000)

test("no folder is a usage error", () => {
  const r = Bun.spawnSync([process.execPath, script], { stdout: "pipe", stderr: "pipe" })
  expect(r.exitCode).toBe(2)
  expect(r.stderr.toString()).toContain("usage:")
}, 60_000)
