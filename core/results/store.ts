/**
 * Results store (DESIGN.md §9): one folder per run under results/, named
 * "<env>-<algo>-<filter>-s<seed>-<hash>"; config.json, metrics.jsonl, summary.json, checkpoints.
 */
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { FileFormatError } from "../errors.ts"
import { contentHash } from "../hash.ts"
import { codeVersion, runtimeInfo } from "../runtime.ts"
import { decodeSync, readJsonFile } from "../schema/decode.ts"
import { MetricsLine, RESULTS_FORMAT, RunConfigFile, RunSummary } from "../schema/results.ts"
import type { RunConfig } from "../schema/run-config.ts"
import { type SinkBinding, sinkFanout } from "../metrics/fanout.ts"
import { appendJsonLine, writeJsonAtomic } from "./atomic.ts"

const slug = (s: string): string => s.replace(/^.*\//, "").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 40)

export const runIdOf = (config: RunConfig): { hash: string; runId: string } => {
  const hash = contentHash(config)
  return { hash, runId: `${slug(config.env)}-${slug(config.algo)}-${slug(config.filter)}-s${config.seed}-${hash}` }
}

export interface RunHandle {
  readonly dir: string
  readonly runId: string
  readonly hash: string
  /** One line to metrics.jsonl (the record), then to each metric sink. */
  appendMetrics(line: MetricsLine): void
  writeSummary(summary: Omit<RunSummary, "format" | "runId">): void
  /** Close the metric sinks (end of run, stop, failure); metrics.jsonl needs no closing. */
  close(): Promise<void>
  readonly checkpointDir: string
}

export interface OpenRunOptions {
  /** Metric sinks besides metrics.jsonl (resolved with core/metrics/sinks.ts resolveSinks). */
  readonly sinks?: ReadonlyArray<SinkBinding>
}

/** Create (or reopen) the folder of a run and write its config.json. */
export const openRun = (outDir: string, config: RunConfig, options: OpenRunOptions = {}): RunHandle => {
  const { hash, runId } = runIdOf(config)
  const dir = join(outDir, runId)
  const configPath = join(dir, "config.json")
  if (!existsSync(configPath)) {
    const file: RunConfigFile = {
      format: RESULTS_FORMAT,
      runId,
      hash,
      config,
      codeVersion: codeVersion(),
      runtime: runtimeInfo(),
      createdAt: new Date().toISOString()
    }
    writeJsonAtomic(configPath, file)
  }
  const jsonlPath = join(dir, "metrics.jsonl")
  // Sinks are made at the first line, from what metrics.jsonl holds then (fresh or resumed).
  const sinks = sinkFanout(options.sinks ?? [], { runDir: dir, runId, jsonlPath })
  return {
    dir,
    runId,
    hash,
    checkpointDir: join(dir, "checkpoints"),
    appendMetrics: (line) => {
      sinks.open()
      appendJsonLine(jsonlPath, line)
      sinks.write(line as MetricsLine & { step: number })
    },
    close: () => sinks.close(),
    writeSummary: (s) => writeJsonAtomic(join(dir, "summary.json"), { format: RESULTS_FORMAT, runId, ...s })
  }
}

export interface MetricsRead {
  readonly lines: MetricsLine[]
  /** Set when the last line was torn (a killed writer); it is left out. */
  readonly tornLastLine?: string
}

/** Read metrics.jsonl; a torn last line is tolerated and reported, a bad middle line fails. */
export const readMetrics = (path: string): Effect.Effect<MetricsRead, FileFormatError> =>
  Effect.suspend((): Effect.Effect<MetricsRead, FileFormatError> => {
    if (!existsSync(path)) return Effect.succeed({ lines: [] })
    const text = readFileSync(path, "utf8")
    const parts = text.split("\n")
    const last = parts.pop()! // "" when the file ends with a newline
    const lines: MetricsLine[] = []
    for (let i = 0; i < parts.length; i++) {
      let json: unknown
      try {
        json = JSON.parse(parts[i]!)
      } catch {
        return Effect.fail(new FileFormatError({ path, message: `${path}:${i + 1}: not valid JSON` }))
      }
      const r = decodeSync(MetricsLine, json)
      if (!r.ok) return Effect.fail(new FileFormatError({ path, message: `${path}:${i + 1}: ${r.message}` }))
      lines.push(r.value)
    }
    return Effect.succeed(last === "" ? { lines } : { lines, tornLastLine: last })
  })

export interface RunRead {
  readonly dir: string
  readonly config: RunConfigFile
  readonly metrics: MetricsRead
  readonly summary?: RunSummary
}

export const readRun = (dir: string): Effect.Effect<RunRead, FileFormatError> =>
  Effect.gen(function*() {
    const config = yield* readJsonFile(RunConfigFile, join(dir, "config.json"))
    const metrics = yield* readMetrics(join(dir, "metrics.jsonl"))
    const summaryPath = join(dir, "summary.json")
    const summary = existsSync(summaryPath) ? yield* readJsonFile(RunSummary, summaryPath) : undefined
    return summary ? { dir, config, metrics, summary } : { dir, config, metrics }
  })

/** Run folders (those holding a config.json) directly under `root`. */
export const listRunDirs = (root: string): string[] =>
  existsSync(root)
    ? readdirSync(root)
      .map((n) => join(root, n))
      .filter((d) => statSync(d).isDirectory() && existsSync(join(d, "config.json")))
      .sort()
    : []

/** A run is complete when its summary says so. */
export const isComplete = (dir: string): boolean => {
  const p = join(dir, "summary.json")
  if (!existsSync(p)) return false
  try {
    const r = decodeSync(RunSummary, JSON.parse(readFileSync(p, "utf8")))
    return r.ok && r.value.status === "complete"
  } catch {
    return false
  }
}
