/**
 * Cost estimate for `sweep --dry-run` and the ETA before the first step is timed. The figures
 * are seconds measured on the 2-core reference machine with tinylm `tiny`, the WASM kernels and
 * shared-prompt batching, one run per core: the quick preset's run folders from `npm start` on a
 * fresh clone of fd49ca0 (benchmarks/RESULTS.md; FrozenLake and Sokoban measured, the other envs
 * guessed from their episode lengths). A training step at P×G = 64 without diagnostics (rollout +
 * update, scaled linearly with P·G), one MI diagnostics pass, one validation episode, and one SFT
 * step (batch 64), which costs SFT_STEP_PER_STEP of the env's training step (both scale with the
 * env's sequence lengths: FrozenLake 0.18 s, Sokoban 0.38 s per SFT step measured).
 * The SFT warm start is counted once per cache key (env, options, policy, SFT seed), as the
 * trainer caches it. A spec's `secondsPerStep` overrides the step figure. Recalibrate here when
 * the trainer's speed changes.
 */
import { canonicalJson } from "../hash.ts"
import type { RunConfig } from "../schema/run-config.ts"

export const BASE_SECONDS_PER_STEP: Readonly<Record<string, number>> = {
  frozenlake: 0.5,
  sokoban: 1.0,
  countdown: 0.5,
  metamathqa: 0.3,
  searchqa: 1.0,
  webshop: 1.4
}
const FALLBACK = 1.0
export const SECONDS_PER_VAL_EPISODE = 0.005
export const SECONDS_PER_DIAG = 0.6
/** An SFT step's cost as a share of the env's training step (BASE_SECONDS_PER_STEP). */
export const SFT_STEP_PER_STEP = 0.37
/** Process start, setup and checkpoints per run. */
export const RUN_OVERHEAD_SECONDS = 5

const envKey = (env: string): string => env.replace(/^.*\//, "").replace(/-v\d+$/, "")
const num = (t: Record<string, unknown>, k: string, d: number): number => (typeof t[k] === "number" ? (t[k] as number) : d)

/** The key the trainer caches an SFT warm start under (the parts a sweep varies). */
export const warmStartKey = (config: RunConfig): string => {
  const t = (config.train ?? {}) as Record<string, unknown>
  return canonicalJson({ env: config.env, envOptions: config.envOptions, policy: config.policy, policyOptions: config.policyOptions, seed: t.sftSeed ?? config.seed, sftSteps: t.sftSteps ?? 0 })
}

/** Seconds of one run without its SFT warm start (see sftSeconds). */
export const estimateRunSeconds = (config: RunConfig, secondsPerStep?: number): number => {
  const t = (config.train ?? {}) as Record<string, unknown>
  const perStep = secondsPerStep ?? (BASE_SECONDS_PER_STEP[envKey(config.env)] ?? FALLBACK) * ((config.P * config.G) / 64)
  const evalEvery = num(t, "evalEvery", 10)
  const evals = 2 + (evalEvery > 0 ? Math.floor((config.steps - 1) / evalEvery) : 0)
  const temps = Array.isArray(t.valTemperatures) ? t.valTemperatures.length : 2
  const diagEvery = num(t, "diagEvery", 5)
  const diags = diagEvery > 0 ? 1 + Math.floor(config.steps / diagEvery) : 0
  return RUN_OVERHEAD_SECONDS + perStep * config.steps + evals * temps * num(t, "valSeeds", 256) * SECONDS_PER_VAL_EPISODE + diags * SECONDS_PER_DIAG
}

export const sftSeconds = (config: RunConfig): number => {
  const t = (config.train ?? {}) as Record<string, unknown>
  return t.init === undefined ? num(t, "sftSteps", 0) * SFT_STEP_PER_STEP * (BASE_SECONDS_PER_STEP[envKey(config.env)] ?? FALLBACK) : 0
}

/** Per-run seconds for a grid: each SFT warm start is charged to the first run that needs it. */
export const estimateGridSeconds = (configs: ReadonlyArray<RunConfig>, secondsPerStep?: number): number[] => {
  const seen = new Set<string>()
  return configs.map((c) => {
    const key = warmStartKey(c)
    const sft = seen.has(key) ? 0 : sftSeconds(c)
    seen.add(key)
    return estimateRunSeconds(c, secondsPerStep) + sft
  })
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
