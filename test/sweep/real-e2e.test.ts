/**
 * docs/decisions.md#issue-7 "How it is checked", with the REAL trainer and tinylm (no fake trainer): a tiny
 * frozenlake sweep over two filters completes and builds the site; a SIGKILLed sweep leaves no
 * worker behind and, run again, yields a byte-identical leaderboard.json.
 */
import { describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { bunBin, mainTs, root } from "../helpers/cli.ts"
import { tempDir, writeSpec } from "./helpers.ts"

const spec = {
  name: "real-e2e",
  axes: { env: ["frozenlake"], filter: ["none", { id: "top-p", options: { p: 0.9 } }], seeds: [1] },
  fixed: { P: 2, G: 2, train: { sftSteps: 0, diagEvery: 1, diagRows: 8, maxTokens: 24 } },
  budget: { steps: 2, evalEvery: 2, valSeeds: 2 }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const sweep = (specPath: string, dir: string) =>
  spawn(bunBin, [mainTs, "sweep", specPath, "--workers", "2", "--out", join(dir, "results"), "--leaderboard", join(dir, "site")], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"]
  })

const finish = (p: ReturnType<typeof sweep>): Promise<{ code: number | null; signal: string | null; out: string }> =>
  new Promise((resolve) => {
    let out = ""
    p.stdout!.on("data", (d) => (out += d))
    p.stderr!.on("data", (d) => (out += d))
    p.on("close", (code, signal) => resolve({ code, signal, out }))
  })

const metricFiles = (dir: string): string[] => {
  const res = join(dir, "results")
  if (!existsSync(res)) return []
  return readdirSync(res)
    .map((r) => join(res, r, "metrics.jsonl"))
    .filter((f) => existsSync(f))
}
const metricLines = (dir: string) =>
  metricFiles(dir).reduce(
    (n, f) =>
      n +
      readFileSync(f, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "").length,
    0
  )

/** Alive and not a zombie (a reaped-later zombie writes nothing). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}
const childrenOf = (pid: number): number[] =>
  spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
    .stdout.split(/\s+/)
    .filter((s) => s !== "")
    .map(Number)

describe("real end-to-end sweep (tinylm + real trainer)", () => {
  test("completes and builds the site; SIGKILL + rerun gives a byte-identical leaderboard.json", async () => {
    const dir = tempDir("real-e2e")
    const specPath = writeSpec(dir, spec)

    // (a) uninterrupted
    const a = join(dir, "a")
    const ra = await finish(sweep(specPath, a))
    expect(ra.out).not.toContain("failed:")
    expect(ra.code).toBe(0)
    expect(existsSync(join(a, "site", "index.html"))).toBe(true)
    const boardA = readFileSync(join(a, "site", "leaderboard.json"), "utf8")
    const board = JSON.parse(boardA)
    const text = JSON.stringify(board)
    expect(text).toContain("none")
    expect(text).toContain("top-p")
    expect(readFileSync(join(a, "site", "index.html"), "utf8")).toContain("top-p")

    // (b) SIGKILL once a metrics line exists, then rerun
    const b = join(dir, "b")
    const p = sweep(specPath, b)
    const done = finish(p)
    let workers: number[] = []
    const t0 = Date.now()
    while (metricLines(b) === 0 && Date.now() - t0 < 30_000) {
      workers = childrenOf(p.pid!).length > 0 ? childrenOf(p.pid!) : workers
      await sleep(10)
    }
    workers = childrenOf(p.pid!).length > 0 ? childrenOf(p.pid!) : workers
    expect(metricLines(b)).toBeGreaterThan(0)
    p.kill("SIGKILL")
    const rb = await done
    expect(rb.signal).toBe("SIGKILL")
    expect(workers.length).toBeGreaterThan(0)
    // Workers see stdin close and exit on their own.
    const t1 = Date.now()
    while (workers.some(alive) && Date.now() - t1 < 10_000) await sleep(50)
    expect(workers.filter(alive)).toEqual([])
    const sizes = metricFiles(b).map((f) => statSync(f).size)
    await sleep(300)
    expect(metricFiles(b).map((f) => statSync(f).size)).toEqual(sizes) // nothing keeps writing

    const rb2 = await finish(sweep(specPath, b))
    expect(rb2.code).toBe(0)
    expect(readFileSync(join(b, "site", "leaderboard.json"), "utf8")).toBe(boardA)
  }, 60_000)
})
