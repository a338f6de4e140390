/**
 * Results store (docs/design.md §9): one folder per run under results/, named
 * "<env>-<algo>-<filter>-s<seed>-<hash>"; config.json, metrics.jsonl, summary.json, checkpoints.
 */
import { Effect, Schema } from "effect"
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { FileFormatError } from "../errors.ts"
import { contentHash } from "../hash.ts"
import { codeVersion, hostInfo, runtimeInfo } from "../runtime.ts"
import { SEMANTICS_VERSION } from "../semantics.ts"
import { decodeSync, readJsonFile } from "../schema/decode.ts"
import { MetricsLine, type PluginRecord, RESULTS_FORMAT, RunConfigFile, RunSummary } from "../contracts/results.ts"
import type { RunConfig } from "../contracts/run-config.ts"
import { type SinkBinding, sinkFanout } from "../metrics/fanout.ts"
import { appendJsonLine, writeJsonAtomic } from "./atomic.ts"
import { readRegularFileSync } from "../files.ts"
import { type LineDecoder, readJsonLines } from "./jsonl.ts"

/** metrics.jsonl larger than this is refused (a 100k-step run writes tens of megabytes). */
export const MAX_METRICS_BYTES = 1 << 30

const slug = (s: string): string =>
  s
    .replace(/^.*\//, "")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .slice(0, 40)

/** The run id: a readable prefix and the hash of the resolved config with the results-semantics version. */
export const runIdOf = (config: RunConfig, semantics: number = SEMANTICS_VERSION): { hash: string; runId: string } => {
  const hash = contentHash({ config, semantics })
  return { hash, runId: `${slug(config.env)}-${slug(config.algo)}-${slug(config.filter)}-s${config.seed}-${hash}` }
}

/**
 * Why a config.json's run id or hash is not the one its config and semantics version give
 * (undefined when they are): a renamed copy of a run, or a config edited after the run.
 */
export const runIdProblem = (file: Pick<RunConfigFile, "runId" | "hash" | "config" | "semantics">): string | undefined => {
  const want = runIdOf(file.config, file.semantics)
  if (file.runId === want.runId && file.hash === want.hash) return undefined
  const got = file.runId === want.runId ? `hash ${String(file.hash).slice(0, 20)}` : `run id ${String(file.runId).slice(0, 120)}`
  return `${got} is not the one its config gives (${file.runId === want.runId ? want.hash : want.runId}): a renamed copy or an edited config, left out`
}

export interface RunHandle {
  readonly dir: string
  readonly runId: string
  readonly hash: string
  /** One line to metrics.jsonl (the record), then to each metric sink. */
  appendMetrics(line: MetricsLine): void
  writeSummary(summary: Omit<RunSummary, "format" | "runId">): void
  /** Record the runtime again (choices a plugin makes when the policy is built, e.g. its kernel backend). */
  recordRuntime(): void
  /** Close the metric sinks (end of run, stop, failure); metrics.jsonl needs no closing. */
  close(): Promise<void>
  readonly checkpointDir: string
}

export interface OpenRunOptions {
  /** Metric sinks besides metrics.jsonl (resolved with core/metrics/sinks.ts resolveSinks). */
  readonly sinks?: ReadonlyArray<SinkBinding>
  /** The plugins whose contributions the run uses (recorded in config.json). */
  readonly plugins?: ReadonlyArray<PluginRecord>
}

/** Just the format field, read before the whole file so that an older format gets its own message. */
const FormatHead = Schema.Struct({ format: Schema.Number })

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
      semantics: SEMANTICS_VERSION,
      plugins: [...(options.plugins ?? [])],
      codeVersion: codeVersion(),
      runtime: runtimeInfo(),
      host: hostInfo(),
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
    recordRuntime: () => {
      const file = JSON.parse(readFileSync(configPath, "utf8")) as RunConfigFile
      writeJsonAtomic(configPath, { ...file, runtime: runtimeInfo() })
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

const isPlainMetrics = (v: unknown): v is MetricsLine => {
  if (typeof v !== "object" || v === null || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype) return false
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k]
    if (x !== null && !(typeof x === "number" && Number.isFinite(x))) return false
  }
  return true
}

/**
 * One metrics line: the common case checked by hand (a flat object of finite numbers or nulls:
 * what the MetricsLine schema accepts), at a fraction of the cost, so a 2-million-line file reads
 * in seconds; anything else goes through the schema for its message.
 */
export const decodeMetricsLine: LineDecoder<MetricsLine> = (json) => (isPlainMetrics(json) ? { ok: true, value: json } : decodeSync(MetricsLine, json))

/** Read metrics.jsonl; a torn last line is tolerated and reported, a bad middle line fails. */
export const readMetrics = (path: string, options: ReadRunOptions = {}): Effect.Effect<MetricsRead, FileFormatError> => readJsonLines(path, MAX_METRICS_BYTES, decodeMetricsLine, options)

export interface ReadRunOptions {
  /** Refuse files that are symbolic links instead of following them (a folder someone sent). */
  readonly noFollow?: boolean
}

/** Whether anything (a link too, dangling or not) is at `path`. */
const present = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false }) !== undefined

export interface RunRead {
  readonly dir: string
  readonly config: RunConfigFile
  readonly metrics: MetricsRead
  readonly summary?: RunSummary
}

export const readRun = (dir: string, options: ReadRunOptions = {}): Effect.Effect<RunRead, FileFormatError> =>
  Effect.gen(function* () {
    const configPath = join(dir, "config.json")
    const noFollow = options.noFollow === true
    const head = yield* readJsonFile(FormatHead, configPath, { strict: false, noFollow })
    if (head.format !== RESULTS_FORMAT) {
      return yield* new FileFormatError({
        path: configPath,
        message: `${configPath}: results format ${head.format} was written by an older ragen-bench (this one reads format ${RESULTS_FORMAT}: resolved configs and a semantics version); re-run its config with this version, or read it with the version that wrote it`
      })
    }
    const config = yield* readJsonFile(RunConfigFile, configPath, { noFollow })
    const metrics = yield* readMetrics(join(dir, "metrics.jsonl"), options)
    const summaryPath = join(dir, "summary.json")
    // Not following links, a link in place of summary.json is read (and refused), not taken for "absent".
    const summary = (noFollow ? present(summaryPath) : existsSync(summaryPath)) ? yield* readJsonFile(RunSummary, summaryPath, { noFollow }) : undefined
    return summary ? { dir, config, metrics, summary } : { dir, config, metrics }
  })

/** Run folders (those holding a config.json) directly under `root`. */
export const listRunDirs = (root: string): string[] => scanRunDirs(root).dirs

/**
 * Run folders under `root`, and the entries that could not be looked at (a dangling symlink, a
 * folder that cannot be read), each with the reason: a damaged entry is reported, not fatal.
 * `noFollow` (a folder someone sent): an entry that is a symbolic link is reported and left out,
 * never followed, and so is a special file (FIFO, device, socket).
 */
export const scanRunDirs = (root: string, options: ReadRunOptions = {}): { dirs: string[]; problems: Array<{ path: string; message: string }> } => {
  const dirs: string[] = []
  const problems: Array<{ path: string; message: string }> = []
  if (!existsSync(root)) return { dirs, problems }
  let names: string[]
  try {
    names = readdirSync(root)
  } catch (e) {
    return { dirs, problems: [{ path: root, message: `cannot list ${root}: ${(e as Error).message}` }] }
  }
  for (const n of names.sort()) {
    const d = join(root, n)
    try {
      if (options.noFollow) {
        const st = lstatSync(d)
        if (st.isSymbolicLink()) problems.push({ path: d, message: `${d} is a symbolic link; links in an input folder are not followed, left out` })
        else if (st.isFIFO() || st.isCharacterDevice() || st.isBlockDevice() || st.isSocket())
          problems.push({ path: d, message: `${d} is not a regular file or folder (a FIFO, device or socket), left out` })
        else if (st.isDirectory() && present(join(d, "config.json"))) dirs.push(d)
        continue
      }
      if (statSync(d).isDirectory() && existsSync(join(d, "config.json"))) dirs.push(d)
    } catch (e) {
      const code = (e as { code?: string }).code
      problems.push({ path: d, message: code === "ENOENT" ? `${d} is a dangling link, left out` : `cannot read ${d}: ${(e as Error).message}` })
    }
  }
  return { dirs, problems }
}

/** A run is complete when its summary says so. */
export const isComplete = (dir: string): boolean => {
  const p = join(dir, "summary.json")
  if (!existsSync(p)) return false
  try {
    const r = decodeSync(RunSummary, JSON.parse(new TextDecoder().decode(readRegularFileSync(p, 64 << 20))))
    return r.ok && r.value.status === "complete"
  } catch {
    return false
  }
}
