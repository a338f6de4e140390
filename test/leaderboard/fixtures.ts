/** Synthetic run folders for the leaderboard tests, written through the results store. */
import { appendFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { openRun } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"

export interface FakeRun {
  env: string
  filter: string
  filterOptions?: Record<string, unknown>
  seed: number
  peak: number
  algo?: string
  status?: "complete" | "failed"
  metrics?: boolean
  /** Validation success at step 0; the curve runs linearly from it to peak at step 4 (absent: 0). */
  start?: number
  /** train.samplingStream (absent: the config has none, as runs written before it existed). */
  samplingStream?: number
  /** Budget metrics logged at steps 1..4, per step (absent: not logged, as older runs). */
  budget?: { envSteps: number; tokens: number; rollouts: number; optimizerSteps: number }
}

export const writeRuns = (dir: string, runs: ReadonlyArray<FakeRun>): string[] =>
  runs.map((r) => {
    const c = decodeSync(RunConfig, {
      env: r.env,
      algo: r.algo ?? "grpo",
      filter: r.filter,
      filterOptions: r.filterOptions ?? {},
      seed: r.seed,
      steps: 4,
      ...(r.samplingStream !== undefined ? { train: { samplingStream: r.samplingStream } } : {})
    })
    if (!c.ok) throw new Error(c.message)
    const run = openRun(dir, c.value)
    for (let s = 0; s <= 4; s++) {
      const line: Record<string, number | null> = { step: s, "val/success@0.5": s === 4 ? r.peak : (r.start ?? 0) + ((r.peak - (r.start ?? 0)) * s) / 4, "train/entropy": 1 - s / 10 }
      if (r.metrics !== false) line["filter/kept_ratio"] = r.filter === "none" ? 1 : 0.5
      if (r.budget && s > 0) {
        line["budget/env_steps"] = r.budget.envSteps
        line["budget/tokens"] = r.budget.tokens
        line["budget/rollouts"] = r.budget.rollouts
        line["train/optimizer_steps"] = r.budget.optimizerSteps
      }
      run.appendMetrics(line)
    }
    run.writeSummary({
      status: r.status ?? "complete",
      stepsDone: 4,
      wallSeconds: 1.5,
      finalValSuccess: r.peak,
      peakValSuccess: r.peak,
      final: { step: 4 },
      ...(r.status === "failed" ? { error: "<img src=x onerror=alert(2)>" } : {})
    })
    return run.dir
  })

/**
 * Two envs, three filters, two seeds, with known peaks. Each run's curve is peak·s/4 at steps
 * 0..4, so its peak is the last value and its last-3 mean is (2 + 3 + 4)/12·peak = 0.75·peak.
 */
export const standardRuns: FakeRun[] = [
  { env: "frozenlake", filter: "none", seed: 1, peak: 0.5 },
  { env: "frozenlake", filter: "none", seed: 2, peak: 0.7 },
  { env: "frozenlake", filter: "top-p", filterOptions: { p: 0.9 }, seed: 1, peak: 0.8 },
  { env: "frozenlake", filter: "top-p", filterOptions: { p: 0.9 }, seed: 2, peak: 0.9 },
  { env: "frozenlake", filter: "random", seed: 1, peak: 0.4 },
  { env: "frozenlake", filter: "random", seed: 2, peak: 0.6 },
  { env: "sokoban", filter: "none", seed: 1, peak: 0.2 },
  { env: "sokoban", filter: "none", seed: 2, peak: 0.2 },
  { env: "sokoban", filter: "top-p", filterOptions: { p: 0.9 }, seed: 1, peak: 0.1 },
  { env: "sokoban", filter: "top-p", filterOptions: { p: 0.9 }, seed: 2, peak: 0.3 },
  { env: "sokoban", filter: "random", seed: 1, peak: 0.3, metrics: false },
  { env: "sokoban", filter: "random", seed: 2, peak: 0.5, metrics: false }
]

/**
 * One env at 7 seeds: top-p above none on every seed, "drop" below it on every seed, random on
 * both sides. The exact sign-flip p of 7 same-sign differences is 2/2^7 = 0.015625.
 */
export const sevenSeedRuns: FakeRun[] = [1, 2, 3, 4, 5, 6, 7].flatMap((seed) => [
  { env: "frozenlake", filter: "none", seed, peak: 0.4 + 0.02 * seed },
  { env: "frozenlake", filter: "top-p", seed, peak: 0.5 + 0.02 * seed + 0.01 * (seed % 3) },
  { env: "frozenlake", filter: "drop", seed, peak: 0.3 + 0.02 * seed - 0.01 * (seed % 2) },
  { env: "frozenlake", filter: "random", seed, peak: 0.4 + 0.02 * seed + (seed % 2 ? 0.03 : -0.03) * (1 + seed / 10) }
])

export const corrupt = (dir: string): { tornRun: string; badRun: string } => {
  const [tornRun, badRun] = writeRuns(dir, [
    { env: "frozenlake", filter: "none", seed: 9, peak: 0.5, algo: "ppo" },
    { env: "frozenlake", filter: "none", seed: 10, peak: 0.99, algo: "ppo" }
  ])
  appendFileSync(join(tornRun!, "metrics.jsonl"), '{"step": 5, "val/succ')
  // A renamed key: must be reported, never read as zero (the BALROG lesson).
  writeFileSync(join(badRun!, "summary.json"), JSON.stringify({ format: 1, runId: "x", status: "complete", stepsDone: 4, wallSeconds: 1, finalValSuccess: 1, peakSuccess: 1, final: {} }))
  return { tornRun: tornRun!, badRun: badRun! }
}
