/**
 * A deterministic stand-in for runTraining, used by the sweep and leaderboard tests
 * (selected with RAGEN_TRAIN_MODULE=<this file>: fakeTrainEnv; core/train/entry.ts). Every metric of step s is a pure function of
 * the run's config hash and s, so a resumed run writes exactly what an uninterrupted one
 * would. It writes the same files as the trainer (config.json, metrics.jsonl, summary.json).
 *
 * Knobs (env vars): RAGEN_SWEEP_FAKE_STEP_MS (sleep per step, default 5), RAGEN_SWEEP_FAKE_SFT_MS
 * (the "SFT warm start" of a run with train.sftSteps > 0 whose warm start is not cached yet: a
 * sleep, then a cache marker under <out>/.sft-cache/ and a line naming the run in
 * fake-trained.log there, so tests can count how often a warm start was trained; default 0).
 * Config knobs in `policyOptions` (the test fixture policy's options, test/fixtures/plugins/sweep-policy.ts):
 * fakeFail (string: throw it as the error at step fakeFailAt, default 0), fakeExit (exit code: the
 * worker process dies at step fakeFailAt).
 */
import { appendFileSync, existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { openRun, readMetrics } from "../../core/results/store.ts"
import { writeFileAtomic } from "../../core/results/atomic.ts"
import { derive, fnv1a } from "../../core/rng.ts"
import { type MetricsLine, RESULTS_FORMAT, type RunSummary } from "../../core/contracts/results.ts"
import type { RunConfig } from "../../core/contracts/run-config.ts"
import type { TrainFn } from "../../core/train/entry.ts"
import { warmStartKey } from "../../core/sweep/estimate.ts"

const round = (x: number): number => Math.round(x * 1e6) / 1e6

/** Filter quality in the fake world: top-p helps, random hurts a little (docs/design.md §10's shape). */
const filterBonus = (filter: string): number => (filter.includes("top-p") ? 0.08 : filter.includes("top-k") ? 0.04 : filter.includes("random") ? -0.02 : 0)

export const fakeMetrics = (config: RunConfig, hash: string, step: number): MetricsLine => {
  const rng = derive(fnv1a(hash), "fake", step)
  const evalEvery = Number(config.train.evalEvery ?? 10)
  const t = config.steps === 0 ? 1 : step / config.steps
  const bonus = filterBonus(config.filter)
  const line: Record<string, number | null> = {
    step,
    "train/entropy": round(1.2 - 0.4 * t + 0.05 * rng.float()),
    "mi/first_turn/retrieval_acc": round(Math.min(1, 0.7 + 0.2 * t * (bonus > 0 ? 1 : -0.5) + 0.05 * rng.float())),
    "filter/kept_ratio": config.filter.replace(/^.*\//, "") === "none" ? 1 : round(0.4 + 0.3 * rng.float()),
    "filter/zero_variance_groups": rng.int(config.P + 1),
    "filter/rv_mean": round(0.3 + 0.2 * rng.float()),
    "filter/rv_std": round(0.1 + 0.1 * rng.float())
  }
  const onEval = step % evalEvery === 0 || step === config.steps
  line["val/success@0.5"] = onEval ? round(Math.max(0, Math.min(1, 0.5 + (0.2 + bonus) * t + 0.1 * rng.float()))) : null
  return line
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export const fakeTrain: TrainFn = async (config, opts) => {
  const run = openRun(opts.outDir, config, { sinks: opts.sinks ?? [] })
  const stepMs = Number(process.env.RAGEN_SWEEP_FAKE_STEP_MS ?? 5)
  const metricsPath = join(run.dir, "metrics.jsonl")
  let start = 0
  if (opts.resume && existsSync(metricsPath)) {
    const read = await Effect.runPromise(readMetrics(metricsPath))
    // Drop a torn last line (a killed writer) before appending.
    if (read.tornLastLine !== undefined) writeFileAtomic(metricsPath, read.lines.map((l) => JSON.stringify(l) + "\n").join(""))
    const last = read.lines.at(-1)
    start = last ? Number(last.step) + 1 : 0
  } else if (existsSync(metricsPath)) writeFileAtomic(metricsPath, "")
  const summary = (status: RunSummary["status"], stepsDone: number, error?: string): RunSummary => {
    const lines = Array.from({ length: stepsDone + 1 }, (_, s) => fakeMetrics(config, run.hash, s))
    const vals = lines.map((l) => l["val/success@0.5"]).filter((v): v is number => typeof v === "number")
    const s = {
      status,
      stepsDone,
      // Nominal, not measured: keeps the fake's results byte-identical across resumes.
      wallSeconds: round((stepsDone * stepMs) / 1000),
      finalValSuccess: vals.at(-1) ?? null,
      peakValSuccess: vals.length ? Math.max(...vals) : null,
      final: lines.at(-1)!,
      ...(error !== undefined ? { error } : {})
    }
    run.writeSummary(s)
    return { format: RESULTS_FORMAT, runId: run.runId, ...s }
  }
  if (Number(config.train.sftSteps ?? 0) > 0 && start === 0) {
    const cache = join(opts.outDir, ".sft-cache")
    const marker = join(cache, `fake-${fnv1a(warmStartKey(config)).toString(16)}`)
    if (!existsSync(marker)) {
      await sleep(Number(process.env.RAGEN_SWEEP_FAKE_SFT_MS ?? 0))
      mkdirSync(cache, { recursive: true })
      appendFileSync(join(cache, "fake-trained.log"), `${run.runId}\n`)
      writeFileAtomic(marker, "")
    }
  }
  const knobs = config.policyOptions as { fakeFail?: string; fakeExit?: number; fakeFailAt?: number }
  const failAt = Number(knobs.fakeFailAt ?? 0)
  for (let step = start; step <= config.steps; step++) {
    if (opts.signal?.aborted) return summary("stopped", Math.max(0, step - 1))
    if (typeof knobs.fakeFail === "string" && step >= failAt) throw new Error(knobs.fakeFail)
    // Simulates a worker crash (the process dies mid-run, no summary written).
    if (typeof knobs.fakeExit === "number" && step >= failAt) process.exit(knobs.fakeExit)
    if (stepMs > 0) await sleep(stepMs)
    const line = fakeMetrics(config, run.hash, step)
    run.appendMetrics(line)
    opts.onProgress?.({ step, steps: config.steps, metrics: line })
  }
  await run.close()
  return summary("complete", config.steps)
}

/** What core/train/entry.ts loads when RAGEN_TRAIN_MODULE names this file. */
export const train: TrainFn = fakeTrain

/** The environment that makes a sweep worker or `leaderboard verify` use this fake, with its step sleep. */
export const fakeTrainEnv = (stepMs: number): Record<string, string> => ({ RAGEN_TRAIN_MODULE: fileURLToPath(import.meta.url), RAGEN_SWEEP_FAKE_STEP_MS: String(stepMs) })
