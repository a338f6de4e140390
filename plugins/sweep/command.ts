import { Console, Effect } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import {
  DEFAULT_MAX_RUNS,
  decodeInput,
  defineCommand,
  estimateGridSeconds,
  estimateSweepSeconds,
  Executor,
  expandGrid,
  fmtDuration,
  listFlag,
  loadSpec,
  numberFlagOr,
  parseShard,
  Registry,
  resolveSinks,
  shardRuns,
  SinkChoices,
  terminalSafe,
  UsageError,
  writeFileAtomic
} from "../../core/host.ts"
import { presetTable, withPresetTable } from "./presets-doc.ts"
import { collectWithReference, REFERENCE_FLAG, referenceDir } from "../leaderboard/index.ts"
import { maxBytesFlag, specLabels, writeSite } from "../leaderboard/index.ts"
import { type Compactor, makeCompactor } from "./compact-to.ts"
import { createProgress } from "./progress.ts"
import { defaultWorkers } from "./runner.ts"

/** The sweep's executor: `--queue URL` the "bullmq" one (plugins/bullmq), else this plugin's local pool. */
const executorLayer = (queue: unknown, workers: number) =>
  queue !== undefined ? Executor.layerFromRegistry("bullmq", { url: String(queue) }, "--queue") : Executor.layerFromRegistry("local", { workers }, "--workers")

/** `sweep presets`: the presets table (plugins/sweep/presets-doc.ts), printed or written into a doc. */
const writePresets = (file: unknown) =>
  Effect.gen(function* () {
    const table = yield* presetTable()
    if (file === undefined) return yield* Console.log(table)
    const path = String(file)
    const text = yield* Effect.try({
      try: () => readFileSync(path, "utf8"),
      catch: () => new UsageError({ field: "--write", message: `${path} does not exist; give the doc to update, e.g. --write docs/sweeps.md` })
    })
    writeFileAtomic(path, yield* withPresetTable(text, table, path))
    yield* Console.log(`wrote the presets table into ${path}`)
  })

export default defineCommand({
  pattern: "sweep <spec>",
  description: "Run a sweep (a preset name or a .ts/.json/.yaml spec) with parallel workers, then build the leaderboard",
  options: [
    { flags: "--json", description: "End with the outcome as JSON (counts, wall time, the leaderboard files) instead of two lines" },
    { flags: "--workers <n>", description: "Worker processes (default: number of cores)" },
    { flags: "--out <dir>", description: "Results folder", default: "results" },
    { flags: "--dry-run", description: "List the runs and the estimated time; run nothing" },
    { flags: "--max-runs <n>", description: "Refuse a grid of more runs than this (a spec's own maxRuns may lower it, never raise it)", default: DEFAULT_MAX_RUNS },
    { flags: "--leaderboard <dir>", description: "Where to write the leaderboard site", default: "site" },
    REFERENCE_FLAG,
    {
      flags: "--queue <url>",
      description: "Run on a Redis job queue (redis://[:password@]host:port[/db], rediss:// for TLS) served by `ragen-bench worker`; `sweep status|collect --queue URL` follow a detached one"
    },
    { flags: "--detach", description: "With --queue: enqueue the runs and exit" },
    { flags: "--shard <i/n>", description: "Run only the i-th of n contiguous slices of the grid (every run in exactly one slice; docs/sweeps.md)" },
    { flags: "--compact-to <dir>", description: "Compact each run into this folder as it completes (ragen-bench results compact), to commit as shards finish" },
    { flags: "--max-mb <n>", description: "With --compact-to: cap of the compact folder in megabytes", default: 10 },
    { flags: "--sink <id>", description: "A metric sink for every run (csv, tensorboard; repeatable): each run writes it into its own folder, so `tensorboard --logdir <out>` shows every run" },
    { flags: "--write <file>", description: "sweep presets: replace the generated presets section of this Markdown file (docs/sweeps.md) instead of printing the table" }
  ],
  examples: [
    "ragen-bench sweep quick",
    "ragen-bench sweep table4 --workers 2 --out results/table4",
    "ragen-bench sweep my-sweep.yaml --dry-run",
    "ragen-bench sweep my-sweep.ts --plugin ./my-filter.ts --reference",
    "ragen-bench sweep standard --shard 2/4 --out results/standard --compact-to plugins/leaderboard/reference/standard",
    "ragen-bench sweep table4 --queue redis://10.0.0.5:6379 --detach",
    "ragen-bench sweep status --queue redis://10.0.0.5:6379",
    "ragen-bench sweep presets --write docs/sweeps.md"
  ],
  run: ([ref], opts) =>
    Effect.gen(function* () {
      const outDir = String(opts.out ?? "results")
      const siteDir = String(opts.leaderboard ?? "site")
      if (opts.queue === true || opts.queue === "") return yield* new UsageError({ field: "--queue", message: "--queue needs the Redis of the sweep's workers: --queue redis://host:port" })
      const onQueue = opts.queue !== undefined
      if (ref === "status" || ref === "collect") {
        if (!onQueue) return yield* new UsageError({ field: "--queue", message: `sweep ${ref} follows a queue: add --queue redis://host:port` })
        return yield* Effect.gen(function* () {
          const exec = yield* Executor
          if (ref === "status") return yield* Console.log((yield* Effect.promise(() => exec.status!({ outDir }))).join("\n"))
          const got = yield* Effect.promise(() => exec.collect!({ outDir }))
          const site = yield* writeSite([outDir], siteDir, collectWithReference([outDir], siteDir, yield* referenceDir(opts.reference, [outDir])))
          yield* Console.log(`collected into ${outDir}: ${got.done} new, ${got.skipped} already there, ${got.failed} failed, ${got.unfinished} still queued or running, of ${got.total} jobs`)
          yield* Console.log(`leaderboard: ${resolve(site.files.html)}`)
        }).pipe(Effect.provide(executorLayer(opts.queue, 1)))
      }
      if (ref === "presets") return yield* writePresets(opts.write)
      if (opts.detach && !onQueue) return yield* new UsageError({ field: "--detach", message: "--detach needs --queue redis://host:port (a local sweep cannot run detached)" })
      const spec = yield* loadSpec(String(ref), (yield* Registry).data)
      const sinkChoices = yield* decodeInput(SinkChoices, listFlag(opts.sink), "--sink")
      yield* resolveSinks(sinkChoices, "--sink") // an unknown sink or a bad option is refused before any run
      // Checked before any run: a bad --reference must not wait for the sweep's end.
      const refDir = yield* referenceDir(opts.reference, [outDir], spec.name)
      const workers = yield* numberFlagOr(opts.workers, "--workers", defaultWorkers(), { integer: true, min: 1 })
      const maxRuns = yield* numberFlagOr(opts.maxRuns, "--max-runs", DEFAULT_MAX_RUNS, { integer: true, min: 1 })
      const grid = yield* expandGrid(spec, { maxRuns })
      const shard = opts.shard !== undefined ? yield* parseShard(opts.shard) : undefined
      const runs = shard ? shardRuns(grid, shard) : grid
      const shardNote = shard ? ` (shard ${shard.index}/${shard.count}: ${runs.length} of ${grid.length} runs)` : ""
      // Runs that start from scratch because no shipped warm start fits: said before anything runs.
      const notices = new Map<string, number>()
      for (const r of runs) if (r.notice) notices.set(r.notice, (notices.get(r.notice) ?? 0) + 1)
      for (const [notice, n] of notices) yield* Console.error(terminalSafe(`${n} run(s): ${notice}`))
      if (opts.compactTo === true || opts.compactTo === "") return yield* new UsageError({ field: "--compact-to", message: "--compact-to needs a folder: --compact-to compact/" })
      const maxBytes = yield* maxBytesFlag(opts.maxMb)
      const compactor: Compactor | undefined = opts.compactTo !== undefined ? makeCompactor(outDir, String(opts.compactTo), maxBytes) : undefined
      const perRun = estimateGridSeconds(
        runs.map((r) => r.config),
        spec.secondsPerStep
      )
      if (opts.dryRun) {
        const lines = [`sweep ${spec.name}${shardNote}: ${runs.length} runs${spec.description ? ` — ${spec.description}` : ""}`]
        runs.forEach((r, i) => lines.push(`  ${r.runId}  ${r.label}  ${r.config.steps} steps  ~${fmtDuration(perRun[i]!)}`))
        lines.push(`estimated time: ${fmtDuration(estimateSweepSeconds(perRun, workers))} with ${workers} worker(s) (${fmtDuration(perRun.reduce((a, b) => a + b, 0))} of run time)`)
        // The spec's name, description and labels are the spec author's text: no escape sequence reaches the terminal.
        return yield* Console.log(terminalSafe(lines.join("\n")))
      }
      // The executor is a service: the code below is the same for the local pool and the queue.
      return yield* Effect.gen(function* () {
        const exec = yield* Executor
        const ac = new AbortController()
        let sigints = 0
        const onSigint = (): void => {
          sigints++
          if (sigints === 1) {
            process.stderr.write(
              onQueue ? "\nno longer following the queue: its runs go on (run this command again to follow them)\n" : "\nstopping after the current step of each run (Ctrl-C again to quit now)…\n"
            )
            ac.abort()
          } else process.exit(130)
        }
        process.on("SIGINT", onSigint)
        const progress = createProgress({
          total: runs.length,
          totalSteps: runs.reduce((a, r) => a + r.config.steps + 1, 0),
          tty: Boolean(process.stderr.isTTY) && process.env.NO_COLOR === undefined,
          write: (s) => void process.stderr.write(s)
        })
        process.stderr.write(terminalSafe(`sweep ${spec.name}${shardNote}: ${runs.length} runs, ${onQueue ? "on the queue" : `${workers} worker(s)`}, results in ${outDir}`) + "\n")
        const compactWarn = (id: string): void => {
          const w = compactor?.add(id)
          if (w !== undefined) process.stderr.write(`warning: ${terminalSafe(w)}\n`)
        }
        const onEvent = (e: Parameters<typeof progress.onEvent>[0]): void => {
          progress.onEvent(e)
          if (e.type === "done") compactWarn(e.run.runId)
        }
        const request = { outDir, signal: ac.signal, onEvent, pluginPaths: listFlag(opts.plugin), sinks: sinkChoices, ...(opts.config ? { configPath: String(opts.config) } : {}) }
        const plugins = (yield* Registry).data.plugins
        const outcome = yield* Effect.promise(() => exec.run({ ...request, runs, name: spec.name, plugins, detach: Boolean(opts.detach) }))
        progress.close()
        process.off("SIGINT", onSigint)
        if (onQueue && opts.detach) {
          return yield* Console.log(
            terminalSafe(
              `sweep ${spec.name}: ${outcome.unfinished} run(s) on the queue, ${outcome.skipped} already complete, ${outcome.done} finished earlier and collected now; follow with ragen-bench sweep status --queue <url>, gather with ragen-bench sweep collect --queue <url> --out ${outDir}`
            )
          )
        }
        // Runs complete before this sweep (skipped) or collected from a queue: compacted now.
        if (compactor) for (const r of runs) compactWarn(r.runId)
        const compacted = compactor ? { compacted: compactor.compacted(), compactBytes: compactor.folderBytes() } : {}
        // The page names the filters as the spec labels them (its published reference set's, for the rest).
        const labels = specLabels(spec.axes.filter)
        const site = yield* writeSite([outDir], siteDir, collectWithReference([outDir], siteDir, refDir).pipe(Effect.map((input) => ({ ...input, labels }))))
        for (const p of site.leaderboard.problems) process.stderr.write(`warning: ${terminalSafe(p.path)}: ${terminalSafe(p.message)}\n`)
        if (opts.json)
          yield* Console.log(
            JSON.stringify(
              {
                sweep: spec.name,
                ...(shard ? { shard } : {}),
                ...outcome,
                ...compacted,
                verdict: site.leaderboard.verdict.sentence,
                files: { html: resolve(site.files.html), md: resolve(site.files.md), json: resolve(site.files.json) }
              },
              null,
              2
            )
          )
        else
          yield* Console.log(
            terminalSafe(
              `sweep ${spec.name}: ${outcome.done} done, ${outcome.skipped} already complete, ${outcome.failed} failed, ${outcome.unfinished} unfinished of ${outcome.total} in ${fmtDuration(outcome.wallSeconds)}`
            )
          )
        if (!opts.json) yield* Console.log(`leaderboard: ${resolve(site.files.html)} (also ${site.files.md}, ${site.files.json})`)
        if (!opts.json && compactor) yield* Console.log(`compact: ${compactor.compacted()} run(s) in ${String(opts.compactTo)} (${compactor.folderBytes()} bytes)`)
        // The page's verdict in one sentence, last (docs/decisions.md#issue-42).
        if (!opts.json) yield* Console.log(terminalSafe(site.leaderboard.verdict.sentence))
        if (outcome.fatal !== undefined) {
          process.stderr.write(`error: the sweep could not run: ${outcome.fatal}\n`)
          process.exitCode = 1
        } else if (ac.signal.aborted) {
          yield* Console.log(`stopped: run the same command again to resume the ${outcome.unfinished} unfinished run(s)`)
          process.exitCode = 130
        } else if (outcome.failed > 0) process.exitCode = 1
      }).pipe(Effect.provide(executorLayer(opts.queue, workers)))
    })
})
