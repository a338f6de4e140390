/**
 * `ragen-bench worker --queue redis://… [--concurrency N]`: a queue worker on this machine
 * (queue-worker.ts). It runs the built-ins and the plugins named on its own command line
 * (--plugin, --config); jobs that need others are refused with a message naming them.
 * Ctrl-C or SIGTERM: finish the runs in progress, take no new ones, exit; a second one exits
 * at once (the runs' jobs stall and are retried by another worker).
 */
import { Effect } from "effect"
import { rmSync } from "node:fs"
import { resolve } from "node:path"
import { defineCommand, listFlag, numberFlagOr, Registry, UsageError } from "../../core/host.ts"
import { startQueueWorker } from "./queue-worker.ts"
import { checkReachable } from "./reach.ts"
import { parseRedisUrl } from "./url.ts"
import { checkWorkDir, freshWorkDir } from "./work-dir.ts"

export default defineCommand({
  pattern: "worker",
  description: "Take sweep runs from a Redis queue (BullMQ) and run them on this machine",
  options: [
    { flags: "--queue <url>", description: "redis://[:password@]host:port[/db] or rediss://… (TLS); the password may come from RAGEN_REDIS_PASSWORD" },
    { flags: "--concurrency <n>", description: "Runs at a time, each in its own process", default: 1 },
    { flags: "--work-dir <dir>", description: "Where runs are written while they run: a folder of this user's that no one else can write (default: a fresh private folder under <tmp>)" },
    { flags: "--allow-files", description: "Also run jobs whose config reads files or reaches URLs on this machine (dataPath, init, a server's URL): only with a Redis whose every writer you trust" },
    { flags: "--stall-ms <ms>", description: "A worker silent this long is presumed dead and its run retried elsewhere", default: 30000 }
  ],
  examples: ["ragen-bench worker --queue redis://10.0.0.5:6379 --concurrency 2", "RAGEN_REDIS_PASSWORD=… ragen-bench worker --queue rediss://redis.lab:6380/1 --plugin ./my-filter.ts"],
  run: (_args, opts) =>
    Effect.gen(function* () {
      if (opts.queue === undefined || opts.queue === true) {
        return yield* new UsageError({ field: "--queue", message: "worker needs --queue redis://host:port (the Redis the coordinator enqueues on)" })
      }
      const target = parseRedisUrl(String(opts.queue))
      if (!("host" in target)) return yield* target
      const unreachable = yield* Effect.promise(() => checkReachable(target))
      if (unreachable) return yield* unreachable
      const concurrency = yield* numberFlagOr(opts.concurrency, "--concurrency", 1, { integer: true, min: 1 })
      const stallMs = yield* numberFlagOr(opts.stallMs, "--stall-ms", 30000, { integer: true, min: 1000 })
      const own = opts.workDir !== undefined && opts.workDir !== true
      const workDir = own ? resolve(String(opts.workDir)) : freshWorkDir()
      const notPrivate = checkWorkDir(workDir)
      if (notPrivate) return yield* new UsageError({ field: "--work-dir", message: `--work-dir ${notPrivate}` })
      const registry = yield* Registry
      yield* Effect.promise(
        () =>
          new Promise<void>((resolveDone) => {
            const w = startQueueWorker({
              target,
              concurrency,
              workDir,
              stallMs,
              allowFiles: opts.allowFiles === true,
              plugins: registry.data.plugins,
              pluginPaths: listFlag(opts.plugin),
              ...(opts.config ? { configPath: String(opts.config) } : {}),
              log: (line) => void process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`)
            })
            let signals = 0
            const onSignal = (): void => {
              signals++
              if (signals > 1) process.exit(130)
              process.stderr.write("finishing the runs in progress, taking no new ones (again to quit now)…\n")
              // A fresh folder is this process's alone: nothing in it outlives the worker.
              void w.close().then(() => {
                if (!own) rmSync(workDir, { recursive: true, force: true })
                resolveDone()
              })
            }
            process.on("SIGINT", onSignal)
            process.on("SIGTERM", onSignal)
          })
      )
    })
})
