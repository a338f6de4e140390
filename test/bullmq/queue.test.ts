/**
 * The BullMQ executor end to end: a redis-server of our own, `ragen-bench worker` processes and
 * `ragen-bench sweep --queue`, with the fake trainer (test/helpers/fake-train.ts). Every result is
 * compared with a local sweep of the same spec: identical files apart from time/host fields.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Queue } from "bullmq"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { root } from "../helpers/cli.ts"
import { isComplete } from "../../core/results/store.ts"
import { fixturePlugin, smallSpec, tempDir, writeSpec } from "../sweep/helpers.ts"
import { fakeTrainEnv } from "../helpers/fake-train.ts"
import { cli, type Proc, readTree, redisAvailable, type RedisHandle, stableConfig, stableSummary, startCli, startRedis, stopProc, waitFor } from "./helpers.ts"

const QUEUE_NAME = "ragen-bench-sweep"
const fake = fakeTrainEnv

/** 4 runs of 12 steps. */
const spec4 = () => smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p", options: { p: 0.9 } }], seeds: [1, 2] } })

/** The local sweep's folder for a spec (made once per spec text). */
const localCache = new Map<string, string>()
const localResults = async (spec: unknown): Promise<string> => {
  const key = JSON.stringify(spec)
  const hit = localCache.get(key)
  if (hit) return hit
  const dir = tempDir("bullmq-local")
  const r = await cli(["sweep", writeSpec(dir, spec), "--plugin", fixturePlugin, "--out", join(dir, "results"), "--leaderboard", join(dir, "site"), "--workers", "2"], fake(1))
  if (r.code !== 0 && r.code !== 1) throw new Error(`local sweep failed: ${r.out}`)
  localCache.set(key, join(dir, "results"))
  return join(dir, "results")
}

/** Every run folder of `local` is in `queued` with the same files apart from time/host fields. */
const expectSameResults = (local: string, queued: string): void => {
  const a = readTree(local)
  const b = readTree(queued)
  const runFiles = [...a.keys()].filter((k) => /^[^/]+\/(config\.json|metrics\.jsonl|summary\.json)$/.test(k))
  expect(runFiles.length).toBeGreaterThan(0)
  for (const k of runFiles) {
    expect(b.has(k)).toBe(true)
    if (k.endsWith("config.json")) expect(stableConfig(b.get(k)!)).toEqual(stableConfig(a.get(k)!))
    else if (k.endsWith("summary.json")) expect(stableSummary(b.get(k)!)).toEqual(stableSummary(a.get(k)!))
    else expect(b.get(k)).toBe(a.get(k)!)
  }
}

const workerArgs = (url: string, workDir: string, more: string[] = []) => ["worker", "--queue", url, "--plugin", fixturePlugin, "--work-dir", workDir, "--stall-ms", "2000", ...more]
const sweepArgs = (url: string, specPath: string, dir: string, more: string[] = []) => [
  "sweep",
  specPath,
  "--queue",
  url,
  "--plugin",
  fixturePlugin,
  "--out",
  join(dir, "results"),
  "--leaderboard",
  join(dir, "site"),
  ...more
]

describe.skipIf(!redisAvailable)("sweep on a BullMQ queue", () => {
  let redis: RedisHandle
  const procs: Proc[] = []
  const worker = (url: string, workDir: string, stepMs: number, more: string[] = []): Proc => {
    const p = startCli(workerArgs(url, workDir, more), fake(stepMs))
    procs.push(p)
    return p
  }
  const stopAll = async (): Promise<void> => {
    await Promise.all(procs.splice(0).map((p) => stopProc(p, "SIGKILL")))
  }
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await stopAll()
    await redis?.stop()
  })
  const flush = async (): Promise<void> => {
    await stopAll()
    await redis.restart(0)
  }

  test("two workers: every run done once, the same files as a local sweep, then the leaderboard", async () => {
    await flush()
    const dir = tempDir("bullmq")
    const spec = spec4()
    const shared = join(dir, "work")
    const w1 = worker(redis.url, shared, 20)
    const w2 = worker(redis.url, shared, 20)
    const r = await cli(sweepArgs(redis.url, writeSpec(dir, spec), dir), fake(20))
    expect(r.code).toBe(0)
    expect(r.out).toContain("4 done, 0 already complete, 0 failed")
    expectSameResults(await localResults(spec), join(dir, "results"))
    expect(existsSync(join(dir, "site", "index.html"))).toBe(true)
    // both workers took runs (each logs the runs it finishes)
    expect(w1.output()).toContain("done  frozenlake")
    expect(w2.output()).toContain("done  frozenlake")
    // a second sweep finds everything complete and enqueues nothing
    const again = await cli(sweepArgs(redis.url, writeSpec(dir, spec), dir), fake(20))
    expect(again.out).toContain("0 done, 4 already complete")
  }, 180_000)

  test("--detach twice enqueues each run once; status shows it; a worker runs them; collect gathers them", async () => {
    await flush()
    const dir = tempDir("bullmq")
    const spec = spec4()
    const specPath = writeSpec(dir, spec)
    for (let i = 0; i < 2; i++) {
      const r = await cli(sweepArgs(redis.url, specPath, dir, ["--detach"]), fake(5))
      expect(r.code).toBe(0)
      expect(r.out).toContain("4 run(s) on the queue")
    }
    const q = new Queue(QUEUE_NAME, { connection: { host: "127.0.0.1", port: redis.port } })
    const counts = await q.getJobCounts()
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(4)
    expect(counts.waiting).toBe(4)
    const st = await cli(["sweep", "status", "--queue", redis.url, "--out", join(dir, "results")])
    expect(st.code).toBe(0)
    expect(st.out).toContain("sweep small: 0/4 done, 0 running, 4 queued, 0 failed")
    worker(redis.url, join(dir, "work"), 5)
    await waitFor("4 completed jobs", async () => (await q.getJobCounts("completed")).completed === 4, 120_000)
    await q.close()
    const st2 = await cli(["sweep", "status", "--queue", redis.url, "--out", join(dir, "results")])
    expect(st2.out).toContain("sweep small: 4/4 done")
    expect(st2.out).toContain("4 finished run(s) not yet in")
    const col = await cli(["sweep", "collect", "--queue", redis.url, "--out", join(dir, "results"), "--leaderboard", join(dir, "site")])
    expect(col.code).toBe(0)
    expect(col.out).toContain("4 new, 0 already there, 0 failed, 0 still queued or running, of 4 jobs")
    expectSameResults(await localResults(spec), join(dir, "results"))
    const col2 = await cli(["sweep", "collect", "--queue", redis.url, "--out", join(dir, "results"), "--leaderboard", join(dir, "site")])
    expect(col2.out).toContain("0 new, 4 already there")
  }, 180_000)

  test("a SIGKILLed worker's run is retried on the other worker; same results", async () => {
    await flush()
    const dir = tempDir("bullmq")
    const spec = spec4()
    // separate work folders: the retry cannot resume from the dead worker's files and starts over
    const w1 = worker(redis.url, join(dir, "work1"), 80)
    const sweep = startCli(sweepArgs(redis.url, writeSpec(dir, spec), dir), fake(80))
    procs.push(sweep)
    await waitFor("worker 1 to start a run", () => w1.output().includes("start frozenlake"), 60_000)
    const w2 = worker(redis.url, join(dir, "work2"), 80)
    await waitFor("worker 2 to start a run", () => w2.output().includes("start frozenlake"), 60_000)
    await new Promise((r) => setTimeout(r, 300))
    w1.child.kill("SIGKILL")
    expect(await sweep.exited).toBe(0)
    expect(sweep.output()).toContain("4 done, 0 already complete, 0 failed")
    expectSameResults(await localResults(spec), join(dir, "results"))
    // worker 2 finished everything worker 1 had not (including the run it was killed in)
    const doneBy1 = (w1.output().match(/done {2}frozenlake/g) ?? []).length
    const doneBy2 = (w2.output().match(/done {2}frozenlake/g) ?? []).length
    expect(doneBy1 + doneBy2).toBeGreaterThanOrEqual(4)
    expect(doneBy2).toBeGreaterThanOrEqual(4 - doneBy1)
  }, 180_000)

  test("Redis restarting mid-sweep (no persistence): workers reconnect, missing runs are re-enqueued, the sweep completes", async () => {
    await flush()
    const dir = tempDir("bullmq")
    const spec = smallSpec({ axes: { env: ["frozenlake"], filter: ["none", { id: "top-p", options: { p: 0.9 } }, { id: "random", options: { like: "top-p", p: 0.9 } }], seeds: [1, 2] } })
    const shared = join(dir, "work")
    worker(redis.url, shared, 60)
    worker(redis.url, shared, 60)
    const sweep = startCli(sweepArgs(redis.url, writeSpec(dir, spec), dir), fake(60))
    procs.push(sweep)
    await waitFor("the first run done", () => sweep.output().includes("done  frozenlake"), 60_000)
    await redis.restart(1000)
    expect(await sweep.exited).toBe(0)
    expect(sweep.output()).toContain("6 done, 0 already complete, 0 failed")
    expect(sweep.output()).toContain("re-enqueued")
    expectSameResults(await localResults(spec), join(dir, "results"))
    for (const d of readTree(join(dir, "results")).keys()) if (d.endsWith("summary.json")) expect(isComplete(join(dir, "results", d.split("/")[0]!))).toBe(true)
  }, 180_000)

  test("a failing run is tried 3 times then recorded failed with its error and its metrics; a worker without the run's plugin, or with other content of it, refuses it", async () => {
    await flush()
    const dir = tempDir("bullmq")
    // the fake trainer's failure knob is an option of the fixture policy (test/fixtures/plugins/sweep-policy.ts)
    const spec = smallSpec({ axes: { env: ["frozenlake"], filter: ["none"], seeds: [1] }, fixed: { policy: "fake-policy", policyOptions: { fakeFail: "boom <b>", fakeFailAt: 3 }, P: 4, G: 4 } })
    const w = worker(redis.url, join(dir, "work"), 5)
    const r = await cli(sweepArgs(redis.url, writeSpec(dir, spec), dir), fake(5))
    expect(r.code).toBe(1)
    expect(r.out).toContain("0 done, 0 already complete, 1 failed")
    expect(r.out).toContain("FAILED frozenlake grpo none s1: boom <b>")
    expect((w.output().match(/FAILED frozenlake grpo none s1/g) ?? []).length).toBe(3)
    const runs = [...readTree(join(dir, "results")).entries()].filter(([k]) => k.endsWith("summary.json")).map(([, v]) => JSON.parse(v))
    expect(runs.map((s) => s.status)).toEqual(["failed"])
    expect(runs[0].error).toBe("boom <b>")
    expect(runs[0].stepsDone).toBe(2)
    // the failed run's folder as a local sweep leaves it: metrics up to the failure, the trainer's summary
    expectSameResults(await localResults(spec), join(dir, "results"))

    // a worker started without --plugin lacks the fixture plugin the runs' policy comes from
    await flush()
    const dir2 = tempDir("bullmq")
    const bare = startCli(["worker", "--queue", redis.url, "--work-dir", join(dir2, "work")], fake(5))
    procs.push(bare)
    const r2 = await cli(sweepArgs(redis.url, writeSpec(dir2, spec4()), dir2), fake(5))
    expect(r2.code).toBe(1)
    expect(r2.out).toContain("0 done, 0 already complete, 4 failed")
    expect(r2.out).toContain(`the run uses plugin "sweep-fixture" 0.0.1, which this worker lacks`)
    const summary = JSON.parse(readFileSync(join(dir2, "results", readTree(join(dir2, "results")).keys().next().value!.split("/")[0]!, "summary.json"), "utf8"))
    expect(summary.error).toContain("refused by worker")
    expect(bare.output()).toContain("refused")

    // a worker with another content of the same plugin (name and version equal, the file edited)
    await flush()
    const dir3 = tempDir("bullmq")
    const edited = join(dir3, "sweep-policy-edited.ts")
    const text = readFileSync(fixturePlugin, "utf8")
      .replace(/from "effect"/, `from ${JSON.stringify(import.meta.resolve("effect"))}`)
      .replace(/from "\.\.\/\.\.\/\.\.\/core\/contracts\/index\.ts"/, `from ${JSON.stringify(pathToFileURL(join(root, "core", "contracts", "index.ts")).href)}`)
    writeFileSync(edited, `${text}\n// edited: same name and version, other content\n`)
    const other = startCli(["worker", "--queue", redis.url, "--plugin", edited, "--work-dir", join(dir3, "work")], fake(5))
    procs.push(other)
    const r3 = await cli(sweepArgs(redis.url, writeSpec(dir3, spec4()), dir3), fake(5))
    expect(r3.code).toBe(1)
    expect(r3.out).toContain(`plugin "sweep-fixture" 0.0.1 differs in content`)
  }, 180_000)
})
