/**
 * Agent evaluation: one episode on each of N fixed env seeds (seedStart.., the validation seeds
 * 123.. by default; each moved to a held-out validation instance as the trainer validates, unless
 * `--instances all`) with any policy, success rate with a Wilson interval and mean return with a
 * percentile-bootstrap interval (intervals.ts), written as a run folder (core/schema/agent-eval.ts).
 */
import { rmSync } from "node:fs"
import { basename, join } from "node:path"
import type { Policy } from "../../core/contracts/index.ts"
import {
  AGENT_EVAL_FORMAT,
  type AgentEvalConfig,
  type AgentEvalConfigFile,
  type AgentEvalSummary,
  codeVersion,
  contentHash,
  derive,
  rollout,
  rolloutStats,
  runtimeInfo,
  seedCache,
  type Trajectory,
  writeFileAtomic,
  writeJsonAtomic
} from "../../core/host.ts"
import type { AgentSetup } from "./agent-flags.ts"
import { bootstrapMean, wilson } from "./intervals.ts"
import { isRemote } from "./agent-flags.ts"

export const VAL_SEED_START = 123

const slug = (s: string): string =>
  s
    .replace(/^.*\//, "")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .slice(0, 40)

/** Short agent label for tables. */
export const agentLabel = (a: AgentSetup, policy: Policy): string => {
  const o = a.policyOptionsRaw
  if (isRemote(policy)) return `${a.policyId.replace(/^.*\//, "")} ${String(o.model ?? "?")} @ ${(policy as { server?: string }).server ?? "?"}`
  return `${a.policyId.replace(/^.*\//, "")}${o.warmStart ? ` ${String(o.warmStart)}` : o.init ? ` ${basename(String(o.init))}` : " (untrained)"}`
}

export const episodeLine = (t: Trajectory, episode: number): Record<string, number | null> => {
  const graded = t.turns.filter((u) => u.grade)
  const n = Math.max(1, t.turns.length)
  return {
    episode,
    seed: t.seed,
    success: t.success ? 1 : 0,
    return: t.ret,
    turns: t.turns.length,
    format_valid: t.turns.filter((u) => u.formatValid).length / n,
    action_valid: t.turns.filter((u) => u.actionValid).length / n,
    response_tokens: t.turns.reduce((a, u) => a + u.completion.tokens.length, 0) / n,
    fact_accuracy: graded.length ? graded.reduce((a, u) => a + u.grade!.factAccuracy, 0) / graded.length : null,
    consistency: graded.length ? graded.reduce((a, u) => a + u.grade!.consistency, 0) / graded.length : null
  }
}

const NO_INTERVAL = { mean: 0, lo: 0, hi: 0, n: 0 }

/** summary.json of a run that stopped: status "failed", the error's message (one line, 500 characters at most), no numbers (n = 0). */
export const failedSummary = (runId: string, agent: string, env: string, episodes: number, reproducible: boolean, wallSeconds: number, e: unknown): AgentEvalSummary => ({
  format: AGENT_EVAL_FORMAT,
  kind: "agent-eval",
  runId,
  status: "failed",
  agent,
  env,
  episodes,
  success: { ...NO_INTERVAL, method: "wilson-95" },
  return: { ...NO_INTERVAL, method: "bootstrap-percentile-95" },
  means: {},
  reproducible,
  wallSeconds,
  error: String((e as Error)?.message ?? e)
    .replace(/\s+/g, " ")
    .slice(0, 500)
})

export interface EvalResult {
  readonly dir: string
  readonly config: AgentEvalConfigFile
  readonly summary: AgentEvalSummary
}

export const runEval = async (policy: Policy, a: AgentSetup, episodes: number, seedStart: number, outDir: string, instances: "validation" | "all" = "validation"): Promise<EvalResult> => {
  const config: AgentEvalConfig = {
    env: a.envId,
    envOptions: a.envOptions as Record<string, unknown>,
    policy: a.policyId,
    policyOptions: a.policyOptionsRaw,
    episodes,
    seedStart,
    ...(instances === "validation" ? { instances } : {}),
    temperature: a.rollout.temperature,
    topP: a.rollout.topP,
    minP: a.rollout.minP,
    maxTokens: a.rollout.maxTokens,
    maxTurns: a.rollout.maxTurns,
    seed: a.seed
  }
  const hash = contentHash(config)
  const remote = isRemote(policy)
  const agent = agentLabel(a, policy)
  const runId = `${slug(a.envId)}-${slug(agent.split(" @ ")[0]!)}-${hash}`
  const dir = join(outDir, runId)
  rmSync(dir, { recursive: true, force: true })
  const file: AgentEvalConfigFile = {
    format: AGENT_EVAL_FORMAT,
    kind: "agent-eval",
    runId,
    hash,
    config,
    codeVersion: codeVersion(),
    runtime: runtimeInfo(),
    createdAt: new Date().toISOString(),
    reproducible: !remote,
    ...(remote ? { note: `sampled from a remote server (${agent}); a re-run gives other samples, so it cannot be verified bit for bit` } : {})
  }
  writeJsonAtomic(join(dir, "config.json"), file)
  const t0 = performance.now()
  const seeds = Array.from({ length: episodes }, (_, i) => seedStart + i)
  let batch
  try {
    // Held-out validation instances, as the trainer validates (a warm start's recorded success is measured there).
    batch =
      instances === "validation"
        ? await rollout(policy, { ...a.rollout, instanceSplit: seedCache() }, seeds, 1, derive(a.seed, "eval"), "validation")
        : await rollout(policy, a.rollout, seeds, 1, derive(a.seed, "eval"))
  } catch (e) {
    // The folder says the run failed and why (the leaderboard lists it as failed), never a bare config.json.
    writeJsonAtomic(join(dir, "summary.json"), failedSummary(runId, agent, a.envId, episodes, !remote, (performance.now() - t0) / 1000, e))
    throw e
  }
  const lines = batch.trajectories.map((t, i) => episodeLine(t, i))
  writeFileAtomic(join(dir, "metrics.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  const succ = batch.trajectories.filter((t) => t.success).length
  const s = wilson(succ, episodes)
  const r = bootstrapMean(
    batch.trajectories.map((t) => t.ret),
    a.seed
  )
  const summary: AgentEvalSummary = {
    format: AGENT_EVAL_FORMAT,
    kind: "agent-eval",
    runId,
    status: "complete",
    agent,
    env: a.envId,
    episodes,
    success: { ...s, method: "wilson-95" },
    return: { ...r, method: "bootstrap-percentile-95" },
    means: rolloutStats(batch),
    reproducible: !remote,
    wallSeconds: (performance.now() - t0) / 1000
  }
  writeJsonAtomic(join(dir, "summary.json"), summary)
  return { dir, config: file, summary }
}
