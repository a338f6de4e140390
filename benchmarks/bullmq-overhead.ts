/**
 * The BullMQ executor against the local worker pool, on this machine, with a redis-server of
 * its own on a free loopback port.
 *
 *   node_modules/.bin/bun benchmarks/bullmq-overhead.ts --mode overhead [--reps 3] [--runs 40]
 *   node_modules/.bin/bun benchmarks/bullmq-overhead.ts --mode speedup [--reps 2] [--steps 3] [--fake-step-ms 100]
 *
 * overhead: empty runs (the fake trainer, 0 steps: config, one metrics line, summary) through one
 * worker, local pool (runSweep) vs queue (the bullmq executor, in this process, and one
 * `ragen-bench worker`); the per-job cost is the median gap between consecutive runs' "done"
 * events, so process starts paid once per sweep stay out, and a median keeps the figure steady
 * on a busy machine.
 * speedup: benchmarks/sweep-workers.ts's real spec (8 runs, real trainer and tinylm) through the
 * queue with 1 and with 2 worker processes, and through the local pool with 1 and 2 workers,
 * alternating; the figures are ratios of medians.
 *
 * Queue sweeps: the workers (`ragen-bench worker`, fresh processes each time, concurrency 1, kernel
 * threads as the local pool sets them) are started and connected before the coordinator
 * (`ragen-bench sweep --queue`) is timed, as in a cluster where workers wait for work; Redis is
 * emptied between sweeps. Every process reports the package version as its code version (GIT_DIR
 * points nowhere): a commit landing in the working tree mid-benchmark would otherwise make the
 * workers refuse the coordinator's jobs.
 */
// builtins first: plugins/sweep/runner.ts imported on its own closes an import cycle too early
import { builtinPlugins } from "../builtins.ts"
import { fakeTrainEnv } from "../test/helpers/fake-train.ts"
import { Effect } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Redis } from "ioredis"
import type { SweepEvent } from "../core/contracts/index.ts"
import { flattenPlugins } from "../core/contracts/plugin.ts"
import { BUILTINS_ENV, loadUserPlugins } from "../core/config.ts"
import { registryLayerFrom } from "../core/registry.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { expandGrid } from "../core/sweep/grid.ts"
import { decodeSpec } from "../core/sweep/spec.ts"
import { BullmqOptions, bullmqExecutor } from "../plugins/bullmq/executor.ts"
import { runSweep } from "../plugins/sweep/runner.ts"
import { spawnOnRuntime, spawnOnRuntimeSync } from "../core/runtime.ts"

process.env.GIT_DIR = join(tmpdir(), "ragen-no-git") // inherited by every process started below
process.env[BUILTINS_ENV] = fileURLToPath(new URL("../builtins.ts", import.meta.url)) // as cli.ts names it to the sweep workers
const argv = process.argv.slice(2)
const arg = (name: string, dflt: string): string => {
  const i = argv.indexOf(name)
  return i >= 0 ? argv[i + 1]! : dflt
}
const mode = arg("--mode", "overhead")
const reps = Number(arg("--reps", mode === "overhead" ? "3" : "2"))
const cli = fileURLToPath(new URL("../cli.ts", import.meta.url))
const fixture = fileURLToPath(new URL("../test/fixtures/plugins/sweep-policy.ts", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "ragen-bullmq-bench-"))

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

const port = await freePort()
const url = `redis://127.0.0.1:${port}`
const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: ["ignore", "pipe", "inherit"] })
await new Promise<void>((resolve) => {
  let log = ""
  redis.stdout!.on("data", (d: Buffer) => {
    log += d.toString()
    if (log.includes("Ready to accept connections")) resolve()
  })
})
process.on("exit", () => redis.kill("SIGKILL"))
for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => process.exit(130))
const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: (n) => (n > 50 ? null : 100) })
await client.connect()

let counter = 0
const sweepOnce = (specPath: string, extra: string[], env: Record<string, string>): number => {
  const out = join(dir, `s${counter++}`)
  const t0 = performance.now()
  const r = spawnOnRuntimeSync(cli, ["sweep", specPath, "--plugin", fixture, "--out", join(out, "results"), "--leaderboard", join(out, "site"), ...extra], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env }
  })
  const s = (performance.now() - t0) / 1000
  if (r.status !== 0) throw new Error(`sweep ${extra.join(" ")} failed: ${r.stderr.toString().slice(-800)}`)
  rmSync(out, { recursive: true, force: true })
  return s
}

const startWorkers = async (n: number, env: Record<string, string>): Promise<ChildProcess[]> => {
  await client.flushall()
  // Kernel threads as the local pool gives them: a second one only when the workers leave a core free.
  const threads = process.env.RAGEN_THREADS ?? (2 * n <= availableParallelism() ? "2" : "1")
  const ws = Array.from({ length: n }, (_, i) => {
    const w = spawnOnRuntime(cli, ["worker", "--queue", url, "--plugin", fixture, "--work-dir", join(dir, `work${counter}-${i}`)], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, RAGEN_THREADS: threads, ...env }
    })
    ;(w as ChildProcess & { log: string }).log = ""
    w.stderr!.on("data", (d: Buffer) => ((w as ChildProcess & { log: string }).log += d.toString()))
    return w
  })
  // connected: each worker's blocking client has named itself "bull:<base64 queue name>:w:<worker name>"
  const named = `bull:${Buffer.from("ragen-bench-sweep").toString("base64")}:w:`
  const t0 = Date.now()
  while (true) {
    const list = String(await client.client("LIST"))
    if (list.split(named).length - 1 >= n) break
    if (Date.now() - t0 > 60_000) throw new Error(`workers did not connect: ${ws.map((w) => (w as ChildProcess & { log: string }).log).join("\n")}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return ws
}

const queueSweep = async (specPath: string, workers: number, env: Record<string, string>): Promise<number> => {
  const ws = await startWorkers(workers, env)
  try {
    return sweepOnce(specPath, ["--queue", url], env)
  } finally {
    for (const w of ws) w.kill("SIGKILL")
  }
}

const writeSpec = (name: string, spec: unknown): string => {
  const p = join(dir, `${name}.json`)
  writeFileSync(p, JSON.stringify(spec))
  return p
}

try {
  if (mode === "overhead") {
    const n = Number(arg("--runs", "40"))
    const env = fakeTrainEnv(0)
    // loaded as --plugin loads it, so that its content hash is known (core/config.ts pluginHash)
    const plugins = flattenPlugins([...builtinPlugins, ...(await Effect.runPromise(loadUserPlugins([fixture], undefined)))])
    const spec = {
      name: "empty",
      axes: { env: ["frozenlake"], filter: ["none"], seeds: Array.from({ length: n }, (_, i) => i + 1) },
      fixed: { policy: "fake-policy", P: 4, G: 4 },
      budget: { steps: 0, evalEvery: 1 }
    }
    const runs = await Effect.runPromise(Effect.flatMap(decodeSpec(spec, "bench"), expandGrid).pipe(Effect.provide(registryLayerFrom(plugins))))
    /** Median gap between consecutive "done" events (ms) and the sweep's wall time (s). */
    const timed = async (go: (onEvent: (e: SweepEvent) => void) => Promise<{ done: number }>): Promise<{ gap: number; wall: number }> => {
      const at: number[] = []
      const t0 = performance.now()
      const out = await go((e) => void (e.type === "done" && at.push(performance.now())))
      if (out.done !== n) throw new Error(`${out.done} of ${n} runs done`)
      return { gap: median(at.slice(1).map((t, i) => t - at[i]!)), wall: (performance.now() - t0) / 1000 }
    }
    const t: Record<"local" | "queue", { gap: number; wall: number }[]> = { local: [], queue: [] }
    for (let rep = 0; rep < reps; rep++) {
      t.local.push(await timed((onEvent) => runSweep(runs, { outDir: join(dir, `local${rep}`), workers: 1, env, onEvent, pluginPaths: [fixture] })))
      const ws = await startWorkers(1, env)
      const options = decodeSync(BullmqOptions, { url })
      if (!options.ok) throw new Error(options.message)
      const exec = await bullmqExecutor.make(options.value)
      try {
        t.queue.push(await timed((onEvent) => exec.run({ runs, outDir: join(dir, `queue${rep}`), onEvent, plugins })))
      } finally {
        await exec.close?.()
        for (const w of ws) w.kill("SIGKILL")
      }
      console.log(
        `rep ${rep + 1}: per job local ${t.local.at(-1)!.gap.toFixed(1)} ms, queue ${t.queue.at(-1)!.gap.toFixed(1)} ms; wall ${t.local.at(-1)!.wall.toFixed(1)} s vs ${t.queue.at(-1)!.wall.toFixed(1)} s`
      )
    }
    const local = median(t.local.map((x) => x.gap))
    const queue = median(t.queue.map((x) => x.gap))
    console.log(
      `\n${n} empty runs through 1 worker, per job (median gap between runs, median of ${reps}): local pool ${local.toFixed(1)} ms, queue ${queue.toFixed(1)} ms (+${(queue - local).toFixed(1)} ms, ${(queue / local).toFixed(2)}×)`
    )
    console.log(JSON.stringify({ bench: "bullmq-overhead", runs: n, reps, local: t.local, queue: t.queue, localMsPerJob: local, queueMsPerJob: queue }))
  } else {
    const steps = Number(arg("--steps", "3"))
    // --fake-step-ms N: test/fixtures/sweep/tiny.json (12 runs × 21 steps) on the fake trainer sleeping
    // N ms a step — orchestration only, and robust to a busy machine (sleeping needs no CPU)
    const fakeMs = argv.includes("--fake-step-ms") ? arg("--fake-step-ms", "100") : undefined
    const env: Record<string, string> = fakeMs === undefined ? {} : fakeTrainEnv(Number(fakeMs))
    const nRuns = fakeMs === undefined ? 8 : 12
    const spec =
      fakeMs !== undefined
        ? fileURLToPath(new URL("../test/fixtures/sweep/tiny.json", import.meta.url))
        : // benchmarks/sweep-workers.ts's spec
          writeSpec("real", {
            name: "workers-bench",
            axes: { env: ["frozenlake", "sokoban"], filter: ["none", { id: "top-p", options: { p: 0.9 } }], seeds: [1, 2] },
            fixed: { P: 4, G: 8, train: { diagEvery: 5 } },
            budget: { steps, evalEvery: steps, valSeeds: 16 }
          })
    const t: Record<string, number[]> = { "local 1": [], "local 2": [], "queue 1": [], "queue 2": [] }
    for (let rep = 0; rep < reps; rep++) {
      for (const w of [1, 2]) {
        t[`local ${w}`]!.push(sweepOnce(spec, ["--workers", String(w)], env))
        t[`queue ${w}`]!.push(await queueSweep(spec, w, env))
        console.log(`rep ${rep + 1}: ${w} worker(s): local ${t[`local ${w}`]!.at(-1)!.toFixed(1)} s, queue ${t[`queue ${w}`]!.at(-1)!.toFixed(1)} s`)
      }
    }
    const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)]))
    console.log(
      `\n${nRuns} runs × ${fakeMs === undefined ? `${steps} steps` : `21 fake steps of ${fakeMs} ms`} (medians of ${reps}): local 1 → 2 workers ${m["local 1"]!.toFixed(1)} → ${m["local 2"]!.toFixed(1)} s (${(m["local 1"]! / m["local 2"]!).toFixed(2)}×); ` +
        `queue 1 → 2 workers ${m["queue 1"]!.toFixed(1)} → ${m["queue 2"]!.toFixed(1)} s (${(m["queue 1"]! / m["queue 2"]!).toFixed(2)}×)`
    )
    console.log(
      JSON.stringify({
        bench: "bullmq-speedup",
        runs: nRuns,
        ...(fakeMs === undefined ? { steps } : { fakeStepMs: Number(fakeMs) }),
        reps,
        seconds: t,
        localSpeedup: m["local 1"]! / m["local 2"]!,
        queueSpeedup: m["queue 1"]! / m["queue 2"]!
      })
    )
  }
} finally {
  client.disconnect()
  redis.kill("SIGKILL")
  rmSync(dir, { recursive: true, force: true })
}
