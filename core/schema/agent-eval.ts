/**
 * Files of an agent evaluation run (`ragen-bench eval`), one folder per run under
 * <out>/agents/<runId>/ (default results/agents/): config.json, metrics.jsonl (one line per
 * episode, MetricsLine-shaped) and summary.json. The leaderboard's "agents" table reads them
 * through these schemas. `reproducible: false` marks runs sampled from a remote server: a
 * re-run gives other samples, so `leaderboard verify` must skip them with a note.
 */
import { Schema } from "effect"
import { Runtime } from "../contracts/results.ts"

export const AGENT_EVAL_FORMAT = 1

export const AgentEvalConfig = Schema.Struct({
  env: Schema.String,
  envOptions: Schema.Record(Schema.String, Schema.Unknown),
  policy: Schema.String,
  /** As given on the command line (the API key's variable name at most, never a key). */
  policyOptions: Schema.Record(Schema.String, Schema.Unknown),
  episodes: Schema.Int,
  /** Episode i runs env seed seedStart + i (the validation seeds, 123.., by default). */
  seedStart: Schema.Int,
  /**
   * "validation": each seed is moved to a held-out validation instance, as the trainer validates
   * (core/env/instance-split.ts), so a warm start's eval meets its recorded validation success;
   * absent (older runs, `--instances all`): the seeds as they are.
   */
  instances: Schema.optional(Schema.Literal("validation")),
  temperature: Schema.Finite,
  topP: Schema.Finite,
  minP: Schema.Finite,
  maxTokens: Schema.Int,
  maxTurns: Schema.Int,
  seed: Schema.Int
})
export type AgentEvalConfig = typeof AgentEvalConfig.Type

export const AgentEvalConfigFile = Schema.Struct({
  format: Schema.Literal(AGENT_EVAL_FORMAT),
  kind: Schema.Literal("agent-eval"),
  runId: Schema.String,
  hash: Schema.String,
  config: AgentEvalConfig,
  codeVersion: Schema.String,
  runtime: Runtime,
  createdAt: Schema.String,
  reproducible: Schema.Boolean,
  /** Why a run is not reproducible (the server and model), for the leaderboard and verify. */
  note: Schema.optional(Schema.String)
})
export type AgentEvalConfigFile = typeof AgentEvalConfigFile.Type

export const IntervalSchema = Schema.Struct({
  mean: Schema.Finite,
  lo: Schema.Finite,
  hi: Schema.Finite,
  n: Schema.Int,
  /** "wilson-95" or "bootstrap-percentile-95". */
  method: Schema.String
})

export const AgentEvalSummary = Schema.Struct({
  format: Schema.Literal(AGENT_EVAL_FORMAT),
  kind: Schema.Literal("agent-eval"),
  runId: Schema.String,
  status: Schema.Literals(["complete", "failed"]),
  /** A short label of the agent: "tinylm (checkpoint name)" or "openai Qwen2.5-7B-Instruct @ host". */
  agent: Schema.String,
  env: Schema.String,
  episodes: Schema.Int,
  success: IntervalSchema,
  return: IntervalSchema,
  /** Means over episodes / turns (core/train/rollout.ts rolloutStats names). */
  means: Schema.Record(Schema.String, Schema.Finite),
  reproducible: Schema.Boolean,
  wallSeconds: Schema.Finite,
  error: Schema.optional(Schema.String)
})
export type AgentEvalSummary = typeof AgentEvalSummary.Type
