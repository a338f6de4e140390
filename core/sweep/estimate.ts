/**
 * Per-step cost estimate for `sweep --dry-run` and the ETA before the first step is timed.
 * Base figures are seconds per training step at P×G = 128 on one core with the tiny model
 * (DESIGN.md §10 reports 0.45–0.75 s for FrozenLake; multi-turn grid envs cost more per
 * trajectory, single-turn text envs less). Scaled linearly with P·G; a spec's
 * `secondsPerStep` overrides it. Calibrate here when the trainer's speed changes.
 */
import type { RunConfig } from "../schema/run-config.ts"

export const BASE_SECONDS_PER_STEP: Readonly<Record<string, number>> = {
  frozenlake: 0.6,
  sokoban: 0.9,
  countdown: 0.3,
  metamathqa: 0.4,
  searchqa: 0.8,
  webshop: 0.9
}
const FALLBACK = 1.0
/** SFT warm-start and validation overhead per run, in seconds (rough). */
export const RUN_OVERHEAD_SECONDS = 20

const envKey = (env: string): string => env.replace(/^.*\//, "").replace(/-v\d+$/, "")

export const estimateRunSeconds = (config: RunConfig, secondsPerStep?: number): number => {
  const perStep = secondsPerStep ?? (BASE_SECONDS_PER_STEP[envKey(config.env)] ?? FALLBACK) * ((config.P * config.G) / 128)
  return RUN_OVERHEAD_SECONDS + perStep * config.steps
}

/** Wall time of the whole grid with `workers` in parallel (greedy, longest first). */
export const estimateSweepSeconds = (runSeconds: ReadonlyArray<number>, workers: number): number => {
  const load = new Array<number>(Math.max(1, workers)).fill(0)
  for (const s of [...runSeconds].sort((a, b) => b - a)) {
    let i = 0
    for (let j = 1; j < load.length; j++) if (load[j]! < load[i]!) i = j
    load[i]! += s
  }
  return Math.max(...load)
}

export const fmtDuration = (s: number): string => {
  if (!Number.isFinite(s)) return "?"
  const t = Math.round(s)
  const h = Math.floor(t / 3600)
  const m = Math.floor((t % 3600) / 60)
  const sec = t % 60
  return h > 0 ? `${h}h${String(m).padStart(2, "0")}m` : m > 0 ? `${m}m${String(sec).padStart(2, "0")}s` : `${sec}s`
}
