/**
 * The host API (`ragen-bench/host`): what a built-in or outside plugin may use of the host beyond the
 * contracts (`ragen-bench/contracts`) and the author's kit (`ragen-bench/kit`). Files under plugins/,
 * envs/, algorithms/ and examples/ import core only through these three entries
 * (test/core/plugin-doors.test.ts), so any built-in could move to its own package unchanged.
 * A name is added here when a plugin needs it; the core's own files import each other directly.
 */
// Randomness: labelled streams (JAX-style keys), never global state
export { derive, Rng } from "./rng.ts"

// Errors a user can act on, and running a promise as an Effect
export { attemptPromise, FileFormatError, isUserError, UnknownIdError, UsageError, type UserError } from "./errors.ts"

// Decoding untrusted input: schemas, bounded reads of regular files, option defaults
export { NonNeg, PosInt, Unit, withDefault } from "./contracts/defaults.ts"
export { externalInputs } from "./external-inputs.ts"
export { MiB, readRegularFile, readRegularFileSync, utf8 } from "./files.ts"
export { canonicalJson, contentHash, sha256Hex } from "./hash.ts"
export {
  allowedHostSet,
  applyTimeouts,
  bodyRefusal,
  checkBodyHeaders,
  checkClient,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  defaultAllowedHosts,
  hostNameOf,
  isLoopback,
  readBody
} from "./http-guard.ts"
export { AGENT_EVAL_FORMAT, type AgentEvalConfig, AgentEvalConfigFile, AgentEvalSummary } from "./schema/agent-eval.ts"
export type { CompactRun } from "./schema/compact.ts"
export { decodeInput, decodeSync, FORBIDDEN_KEYS, readJsonFile } from "./schema/decode.ts"
export type { SampleEpisode, SamplesLine } from "./schema/samples.ts"
export { terminalSafe } from "./text.ts"

// Contracts that built-ins implement beyond the author's set (loss shapes, records, sinks)
export { type Algorithm, type AlgoTrajectory, type LossAgg, LossAggOption, type LossRegularisers } from "./contracts/algorithm.ts"
export type { GridRun } from "./contracts/executor.ts"
export { defineCommand } from "./contracts/plugin.ts"
export type { LossFn, LossOutput, TokenForward, TokenGrads } from "./contracts/policy.ts"
export { type MetricsLine, RunSummary, SUCCESS_METRIC } from "./contracts/results.ts"
export { RunConfig } from "./contracts/run-config.ts"
export type { CrossScores } from "./contracts/scorer.ts"
export type { MetricSink, MetricsRecord, SinkContext, SinkSpec } from "./contracts/sink.ts"

// The registry, plugin loading and plugin commands
export { loadBuiltinPlugins, loadUserPlugins, pluginHash } from "./config.ts"
export { buildRegistry, descriptionOf, type Kind, lookupEntry, Registry, type RegistryData, registryLayerFrom, registryLayerOf } from "./registry.ts"
export { Executor, scorerContext } from "./services.ts"

// Results: reading and writing run folders and compact records
export { isTimingMetric, matchMetricKey } from "./metrics/keys.ts"
export { resolveSinks, type SinkBinding, SinkChoices } from "./metrics/sinks.ts"
export { writeFileAtomic, writeJsonAtomic } from "./results/atomic.ts"
export { compactRun, type CompactWritten, DEFAULT_COMPACT_FOLDER_BYTES, listCompactFiles, readCompact, writeCompactFiles } from "./results/compact.ts"
export { readSamples, SAMPLES_FILE } from "./results/samples.ts"
export { isComplete, listRunDirs, openRun, readMetrics, readRun, runIdOf, runIdProblem, type RunRead, scanRunDirs } from "./results/store.ts"

// Sweeps: specs, grids, shards and cost estimates
export { estimateGridSeconds, estimateSweepSeconds, fmtDuration, warmStartKey } from "./sweep/estimate.ts"
export { expandGrid } from "./sweep/grid.ts"
export { parseShard, shardRuns } from "./sweep/shard.ts"
export { DEFAULT_MAX_RUNS, defineSweep, loadSpec, presetNames, type SweepSpecInput } from "./sweep/spec.ts"

// Training: options, setup, rollout, evaluation, warm starts
export { seedCache, splitSeeds } from "./env/instance-split.ts"
export { actionBudgetFor, withTimeLimit } from "./env/time-limit.ts"
export { ANSWER_CLOSE, ANSWER_OPEN, buildPrompt, DEFAULT_FORMAT_PENALTY, parseReply, THINK_CLOSE, THINK_OPEN, turnPenalty, withFormatNote } from "./prompt.ts"
export { loadTrainer, type TrainFn } from "./train/entry.ts"
export { tempLabel, validate } from "./train/eval.ts"
export { samplingRng } from "./train/instances.ts"
export { DEFAULT_MAX_TOKENS, TrainOptions } from "./train/options.ts"
export { rollout, type RolloutBatch, type RolloutSettings, rolloutStats, type Trajectory } from "./train/rollout.ts"
export { resolveSetup, type TrainSetup } from "./train/setup.ts"
export { collectTeacherTurns } from "./train/teacher-turns.ts"
export { initialPolicy, sftOnTeacher } from "./train/warm-start.ts"
export { checkWarmStartFile } from "./train/warm-starts.ts"

// Filters and diagnostics
export { filterStats, scoreMetricOf } from "./diagnostics/filter-stats.ts"
export { miProxies, type MiProxies } from "./diagnostics/mi.ts"
export { buildMiRows, type TurnSample } from "./diagnostics/samples.ts"
export { averageRanks, pick, resamplePairs, spearman } from "./diagnostics/spearman.ts"
export { checkGroups, FilterInputError } from "./filters/input.ts"
export { decodeFilterOptions } from "./filters/options.ts"
export { filterResolver, runFilter } from "./filters/run.ts"
export { allEqual, groupScore, mean, roundHalfEven, type ScoreMetric, stdUnbiased, varianceUnbiased, ZERO_SCORE } from "./stats.ts"

// CLI flag helpers
export { listFlag, numberFlag, numberFlagOr } from "./cli/flags.ts"
export { parsePairs } from "./cli/kv.ts"

// The runtime: which one, the code version, and starting a child on it
export { codeVersion, noteRuntime, projectRoot, runtimeInfo, spawnOnRuntime } from "./runtime.ts"
export { SEMANTICS_VERSION } from "./semantics.ts"
