/**
 * The queue is a trust boundary (docs/decisions.md#issue-27, docs/cluster.md): whoever can write to Redis plants
 * jobs and results by hand here, with BullMQ itself, and `sweep collect`, `sweep status` and
 * `ragen-bench worker` must not write outside --out, inflate a gzip bomb, read files on the
 * worker, return a planted run, or print escape sequences.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Queue, UnrecoverableError, Worker } from "bullmq"
import { Effect } from "effect"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { builtinPlugins } from "../../builtins.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { packageVersion } from "../../core/runtime.ts"
import { RESULTS_FORMAT } from "../../core/contracts/results.ts"
import { expandGrid } from "../../core/sweep/grid.ts"
import type { GridRun } from "../../core/contracts/executor.ts"
import { decodeSpec } from "../../core/sweep/spec.ts"
import { loadMetaMathQA } from "../../envs/metamathqa/dataset.ts"
import { jobIdOf, type JobData, type JobResult, packFile, QUEUE_NAME } from "../../plugins/bullmq/job.ts"
import { fakeTrainEnv } from "../helpers/fake-train.ts"
import { tempDir } from "../sweep/helpers.ts"
import { cli, type Proc, readTree, redisAvailable, type RedisHandle, startCli, startRedis, stopProc, waitFor } from "./helpers.ts"

const fake = fakeTrainEnv(1)
const ESC = "\u001b"

/** Runs resolved as the coordinator resolves them. */
const gridOf = (axes: Record<string, unknown>): Promise<GridRun[]> =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* expandGrid(yield* decodeSpec({ name: "trust", axes, budget: { steps: 2 } }, "trust"))
    }).pipe(Effect.provide(registryLayerFrom([...builtinPlugins])))
  )

const dataOf = (run: GridRun, over: Partial<JobData> = {}): JobData => ({
  sweep: "trust",
  runId: run.runId,
  hash: run.hash,
  label: run.label,
  config: run.config,
  codeVersion: packageVersion(), // the spawned CLIs run outside git (NO_GIT), whatever another test file cached in this process
  plugins: [],
  ...over
})

const configFile = (run: GridRun, config: unknown = run.config): string => JSON.stringify({ format: RESULTS_FORMAT, runId: run.runId, hash: run.hash, config })
const summaryFile = (runId: string): string =>
  JSON.stringify({ format: RESULTS_FORMAT, runId, status: "complete", stepsDone: 2, wallSeconds: 1, finalValSuccess: 0.5, peakValSuccess: 0.5, final: { step: 2 } })

describe.skipIf(!redisAvailable)("sweep collect and sweep status on a Redis a stranger wrote to", () => {
  let redis: RedisHandle
  let queue: Queue
  let runs: GridRun[]
  const connection = () => ({ host: "127.0.0.1", port: redis.port })
  beforeAll(async () => {
    redis = await startRedis()
    queue = new Queue(QUEUE_NAME, { connection: connection() })
    runs = await gridOf({ env: ["frozenlake"], seeds: [1, 2, 3, 4, 5, 6] })
  })
  afterAll(async () => {
    await queue?.close()
    await redis?.stop()
  })

  /** Jobs taken by a worker of the test's that returns (or fails with) what a hostile one would. */
  const settle = async (jobs: Array<{ data: JobData; result?: JobResult; failWith?: JobData["failedFiles"] }>): Promise<void> => {
    const byId = new Map(jobs.map((j) => [jobIdOf(j.data.hash), j]))
    const w = new Worker(
      QUEUE_NAME,
      async (job) => {
        const j = byId.get(job.id!)!
        if (j.result) return j.result
        await job.updateData({ ...j.data, failedFiles: j.failWith })
        throw new UnrecoverableError("failed on purpose")
      },
      { connection: connection() }
    )
    for (const j of jobs) await queue.add("run", j.data, { jobId: jobIdOf(j.data.hash), removeOnComplete: false, removeOnFail: false })
    await waitFor("the planted jobs to settle", async () => {
      const c = await queue.getJobCounts("completed", "failed")
      return (c.completed ?? 0) + (c.failed ?? 0) >= jobs.length
    })
    await w.close()
  }

  test("results naming ../../x, job data naming ../../y, a failed job's files for ../../z, a foreign config.json, a gzip bomb: nothing outside --out, none collected", async () => {
    const [a, b, c, d, e, good] = runs
    const files = (run: GridRun) => [packFile("config.json", configFile(run)), packFile("summary.json", summaryFile(run.runId))]
    const bomb = { name: "metrics.jsonl" as const, gz: gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20)).toString("base64") }
    await settle([
      { data: dataOf(a!), result: { runId: "../../x", worker: "w", files: files(a!) } },
      { data: dataOf(b!, { runId: "../../y" }), result: { runId: "../../y", worker: "w", files: files(b!) } },
      { data: dataOf(c!, { runId: "../../z" }), failWith: files(c!) },
      { data: dataOf(d!), result: { runId: d!.runId, worker: "w", files: [packFile("config.json", configFile(d!, { ...d!.config, steps: 99 })), packFile("summary.json", summaryFile(d!.runId))] } },
      { data: dataOf(e!), result: { runId: e!.runId, worker: "w", files: [...files(e!), bomb] } },
      { data: dataOf(good!), result: { runId: good!.runId, worker: "w", files: files(good!) } }
    ])
    const dir = tempDir("bullmq-trust")
    const out = join(dir, "a", "b", "results")
    const r = await cli(["sweep", "collect", "--queue", redis.url, "--out", out, "--leaderboard", join(dir, "a", "b", "site")])
    expect(r.out).toContain("1 new, 0 already there, 5 failed")
    expect(r.code).toBe(0)
    // Nothing but the results and the site, and no trace of the planted names.
    expect(readdirSync(dir)).toEqual(["a"])
    expect(readdirSync(join(dir, "a")).sort()).toEqual(["b"])
    expect(readdirSync(join(dir, "a", "b")).sort()).toEqual(["results", "site"])
    const tree = readTree(out)
    expect([...tree.keys()].filter((k) => k.includes("x") && !k.startsWith("frozenlake"))).toEqual([])
    expect(existsSync(join(out, good!.runId, "summary.json"))).toBe(true)
    for (const run of [a, b, d, e]) expect(existsSync(join(out, run!.runId, "summary.json"))).toBe(false)
    // The bomb was never inflated into the results.
    expect(existsSync(join(out, e!.runId, "metrics.jsonl"))).toBe(false)
  }, 120_000)

  test("sweep status prints no escape sequence from a planted sweep name, label or reason", async () => {
    const run = runs[0]!
    await queue.add("run", dataOf(run, { sweep: `${ESC}]0;owned${ESC}\\evil`, label: `${ESC}[2J${ESC}[31mred`, hash: "ffffffffffff" }), { jobId: "run-ffffffffffff" })
    const r = await cli(["sweep", "status", "--queue", redis.url, "--out", tempDir("bullmq-status")])
    expect(r.code).toBe(0)
    expect(r.out).toContain("evil")
    expect(r.out.includes(ESC)).toBe(false)
  }, 60_000)
})

describe.skipIf(!redisAvailable)("a worker's trust in its jobs and its work folder", () => {
  let redis: RedisHandle
  let queue: Queue
  const procs: Proc[] = []
  beforeAll(async () => {
    redis = await startRedis()
    queue = new Queue(QUEUE_NAME, { connection: { host: "127.0.0.1", port: redis.port } })
  })
  afterAll(async () => {
    await Promise.all(procs.map((p) => stopProc(p, "SIGKILL")))
    await queue?.close()
    await redis?.stop()
  })
  const worker = (args: string[]): Proc => {
    const p = startCli(["worker", "--queue", redis.url, ...args], fake)
    procs.push(p)
    return p
  }
  const settled = async (id: string) => {
    await waitFor(`job ${id} to settle`, async () => ["completed", "failed"].includes(await queue.getJobState(id)), 60_000)
    return (await queue.getJob(id))!
  }

  test("a job naming a MetaMathQA dataPath on the worker is refused unless the worker runs with --allow-files", async () => {
    const dir = tempDir("bullmq-files")
    const secret = join(dir, "secret.jsonl")
    writeFileSync(secret, `${JSON.stringify({ query: "q", response: "The answer is: 1" })}\n`)
    const [run] = await gridOf({ env: [{ id: "metamathqa", options: { dataPath: secret } }], seeds: [1] })
    const w = worker([])
    await queue.add("run", dataOf(run!, { label: `metamathqa ${ESC}[31m` }), { jobId: jobIdOf(run!.hash) })
    const job = await settled(jobIdOf(run!.hash))
    expect(await job.getState()).toBe("failed")
    expect(job.failedReason).toContain("envOptions.dataPath")
    expect(job.failedReason).toContain("--allow-files")
    expect(job.returnvalue ?? null).toBeNull()
    // A code version with an escape sequence is refused too; the worker's own lines carry none of them.
    const [other] = await gridOf({ env: ["frozenlake"], seeds: [77] })
    await queue.add("run", dataOf(other!, { codeVersion: `${ESC}]0;pwned${ESC}\\9.9` }), { jobId: jobIdOf(other!.hash) })
    expect(await (await settled(jobIdOf(other!.hash))).getState()).toBe("failed")
    await waitFor("the worker's refusal lines", () => w.output().split("refused").length > 2)
    expect(w.output()).toContain("pwned")
    expect(w.output().includes(ESC)).toBe(false)
    await stopProc(w)
    // The operator's choice: the same job runs on a worker started with --allow-files.
    await job.remove()
    const allowed = worker(["--allow-files"])
    await queue.add("run", dataOf(run!), { jobId: jobIdOf(run!.hash) })
    expect(await (await settled(jobIdOf(run!.hash))).getState()).toBe("completed")
    await stopProc(allowed)
  }, 120_000)

  test("a non-JSON dataPath's content is not quoted in the error (the first token leaked through the failure reason)", () => {
    const dir = tempDir("mmqa-leak")
    const p = join(dir, "passwd")
    writeFileSync(p, "rootsecret:x:0:0:root:/root:/bin/bash\n")
    expect(() => loadMetaMathQA(p)).toThrow("line 1 is not valid JSON")
    let message = ""
    try {
      loadMetaMathQA(p)
    } catch (e) {
      message = (e as Error).message
    }
    expect(message).not.toContain("rootsecret")
  })

  test("--work-dir writable by others is refused; the default is a fresh private folder", async () => {
    const shared = join(tempDir("bullmq-wd"), "shared")
    mkdirSync(shared)
    chmodSync(shared, 0o777)
    const r = await cli(["worker", "--queue", redis.url, "--work-dir", shared], fake, 30_000)
    expect(r.code).toBe(2)
    expect(r.out).toContain("writable by other users")
    const w = worker([])
    await waitFor("the worker's start line", () => w.output().includes("work folder"))
    const folder = /work folder (\S+),/.exec(w.output())![1]!
    expect(folder).toContain("ragen-bench-worker-")
    expect(statSync(folder).mode & 0o777).toBe(0o700)
    await stopProc(w)
  }, 60_000)

  test("a complete-looking run planted in the work folder with another config is not returned: the job's run is trained", async () => {
    const wd = join(tempDir("bullmq-plant"), "work")
    mkdirSync(wd, { mode: 0o700 })
    const [run] = await gridOf({ env: ["frozenlake"], seeds: [42] })
    const planted = join(wd, run!.runId)
    mkdirSync(planted)
    writeFileSync(join(planted, "config.json"), configFile(run!, { ...run!.config, steps: 7 }))
    writeFileSync(join(planted, "summary.json"), summaryFile(run!.runId))
    const w = worker(["--work-dir", wd])
    await queue.add("run", dataOf(run!), { jobId: jobIdOf(run!.hash) })
    const job = await settled(jobIdOf(run!.hash))
    expect(await job.getState()).toBe("completed")
    expect(w.output()).not.toContain("already complete here")
    const cfg = JSON.parse(readFileSync(join(planted, "config.json"), "utf8"))
    expect(cfg.config).toEqual(run!.config)
    await stopProc(w)
  }, 120_000)
})
