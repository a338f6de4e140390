/** Test plumbing for training runs: metrics.jsonl without timings, and a run stopped after a step. */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { RunConfig } from "../../core/contracts/run-config.ts"
import { runTraining } from "../../core/train/run.ts"

/** A run folder's metrics lines with perf/* (wall-clock timings) removed: what determinism compares. */
export const metricsWithoutPerf = (runDir: string): Record<string, any>[] =>
  readFileSync(join(runDir, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => {
      const x = JSON.parse(l) as Record<string, any>
      for (const k of Object.keys(x)) if (k.startsWith("perf/")) delete x[k]
      return x
    })

type TrainingOptions = Parameters<typeof runTraining>[1]

/** Run `config` and stop it (as Ctrl-C would) once `step` is done. */
export const runStoppedAfter = (config: RunConfig, options: TrainingOptions, step: number) => {
  const ctl = new AbortController()
  return runTraining(config, {
    ...options,
    signal: ctl.signal,
    onProgress: (p) => {
      if (p.step === step) ctl.abort()
    }
  })
}
