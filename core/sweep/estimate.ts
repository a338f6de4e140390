/**
 * Cost estimate for `sweep --dry-run` and the ETA before the first step is timed. The figures
 * are seconds measured on the 2-core reference machine with tinylm `tiny` on its native kernels,
 * one run per core, from the standard suite's run folders (`bun tools/calibrate-estimate.ts
 * results/standard`, benchmarks/RESULTS.md): the median training step per env at P×G = 64 (scaled
 * linearly with P·G; diagnostics every 10 steps), a validation episode per env, one MI
 * diagnostics pass, and an SFT step (batch 64) as a share of the env's training step (FrozenLake:
 * 2,000 steps in 138 s). An SFT warm start is counted once per cache key (env, options, policy,
 * SFT seed), as the trainer caches it; shipped warm starts cost nothing. A spec's
 * `secondsPerStep` overrides the step figure. Recalibrate here when the trainer's speed changes.
 */
import { canonicalJson } from "../hash.ts"
import type { RunConfig } from "../contracts/run-config.ts"

export const BASE_SECONDS_PER_STEP: Readonly<Record<string, number>> = {
  frozenlake: 0.144,
  sokoban: 0.26,
  countdown: 0.154,
  metamathqa: 0.084,
  searchqa: 0.223,
  webshop: 0.331
}
/** Seconds per validation episode (one trajectory, up to maxTurns turns). */
export const SECONDS_PER_VAL_EPISODE_BY_ENV: Readonly<Record<string, number>> = {
  frozenlake: 0.0011,
  sokoban: 0.0022,
  countdown: 0.0012,
  metamathqa: 0.001,
  searchqa: 0.0019,
  webshop: 0.0046
}
/**
 * The standard suite's starts at 8 × 16 (docs/decisions.md#issue-25) cost more per step than the
 * strong starts above at 8 × 8 scaled: headroom starts fail more often, so their episodes run
 * longer (to maxTurns), and Countdown's and MetaMathQA's updates grow faster than P·G. Their own
 * step (at P·G = 64) and validation-episode figures: medians of the standard suite's shard 1/8 on
 * issue 41's kernels (49 runs of every filter, 6–12 per env, quiet reference machine, 2026-12-07;
 * `bun tools/calibrate-estimate.ts <shard runs>`: the figures before them, from the first shard of
 * 108 runs, over-predicted it 2.16×). Keyed by the warm-start id a run names; WebShop v2 and
 * MetaMathQA v2 also by their env id (v1's WebShop pages were cut off at the context, so its
 * episodes were short).
 */
const WEBSHOP_V2 = { step: 0.381, valEpisode: 0.0041 } as const
export const BY_WARM_START: Readonly<Record<string, { readonly step: number; readonly valEpisode: number }>> = {
  "sokoban-tiny-headroom": { step: 0.214, valEpisode: 0.0022 },
  "frozenlake-tiny-headroom": { step: 0.138, valEpisode: 0.0011 },
  "searchqa-tiny-headroom": { step: 0.239, valEpisode: 0.0015 },
  "countdown-tiny": { step: 0.088, valEpisode: 0.0009 },
  "metamathqa-tiny": { step: 0.049, valEpisode: 0.0008 },
  "webshop-v2-tiny-headroom": WEBSHOP_V2,
  "webshop-v2": WEBSHOP_V2,
  // The entries below were measured before issue 41's kernels and over-predict (about 2× for the
  // standard suite's starts). v2's column-by-column traces run to 100 tokens, v1's to 64: medians of 80 runs of its
  // first-stage starts at 8 × 16 (experiments/arithmetic-sft/specs/v2-half-*, v2-first-stage-rl).
  "metamathqa-v2": { step: 0.182, valEpisode: 0.001 },
  // 32 runs at 8 × 16 (experiments/arithmetic-sft/specs/countdown-*).
  "countdown-tiny-4000": { step: 0.276, valEpisode: 0.0014 },
  // The collapse track's regimes (plugins/sweep/presets/collapse.ts): at its rates FrozenLake's
  // headroom policy soon succeeds in a few turns or collapses to short episodes, so its steps cost
  // well under the standard suite's (0.272); medians of the track's first shard, run on a quiet
  // machine (44 runs, `bun tools/calibrate-estimate.ts <shard-1 runs>`). Keyed warm start @ lr.
  "frozenlake-tiny-headroom@lr=0.001": { step: 0.116, valEpisode: 0.0013 },
  "sokoban-tiny@lr=0.00055": { step: 0.206, valEpisode: 0.0024 },
  // The quick preset (npm start's 54 runs) on issue 41's second round of kernels: medians of a fresh
  // clone's `npm start` on the quiet reference machine (`bun tools/calibrate-estimate.ts results`,
  // benchmarks/results/quick.md); the env's figure above (0.26 s) over-predicted it by 69%.
  "sokoban-tiny@lr=0.0004": { step: 0.156, valEpisode: 0.0017 }
}
const FALLBACK = 0.3
export const SECONDS_PER_VAL_EPISODE = 0.003
export const SECONDS_PER_DIAG = 0.3
/** An SFT step's cost as a share of the env's training step (BASE_SECONDS_PER_STEP). */
export const SFT_STEP_PER_STEP = 0.48
/** Setup and checkpoints per run (a sweep's worker processes are started once). */
export const RUN_OVERHEAD_SECONDS = 0.3

const envKey = (env: string): string => env.replace(/^.*\//, "").replace(/-v\d+$/, "")
/** The BY_WARM_START entry of a run: its warm start at its lr, else its warm start's, else its env version's. */
export const costKey = (config: RunConfig): string | undefined => {
  const ws = String(((config.train ?? {}) as Record<string, unknown>).warmStart ?? "").replace(/@.*$/, "")
  const regime = `${ws}@lr=${config.lr}`
  if (ws !== "" && regime in BY_WARM_START) return regime
  if (ws in BY_WARM_START) return ws
  const env = config.env.replace(/^.*\//, "")
  return env in BY_WARM_START ? env : undefined
}
const num = (t: Record<string, unknown>, k: string, d: number): number => (typeof t[k] === "number" ? (t[k] as number) : d)

/** The key the trainer caches an SFT warm start under (the parts a sweep varies). */
export const warmStartKey = (config: RunConfig): string => {
  const t = (config.train ?? {}) as Record<string, unknown>
  return canonicalJson({ env: config.env, envOptions: config.envOptions, policy: config.policy, policyOptions: config.policyOptions, seed: t.sftSeed ?? config.seed, sftSteps: t.sftSteps ?? 0 })
}

/** Seconds of one run without its SFT warm start (see sftSeconds). */
export const estimateRunSeconds = (config: RunConfig, secondsPerStep?: number): number => {
  const t = (config.train ?? {}) as Record<string, unknown>
  const own = BY_WARM_START[costKey(config) ?? ""]
  const perStep = secondsPerStep ?? (own?.step ?? BASE_SECONDS_PER_STEP[envKey(config.env)] ?? FALLBACK) * ((config.P * config.G) / 64)
  const evalEvery = num(t, "evalEvery", 10)
  const evals = 2 + (evalEvery > 0 ? Math.floor((config.steps - 1) / evalEvery) : 0)
  const temps = Array.isArray(t.valTemperatures) ? t.valTemperatures.length : 2
  const diagEvery = num(t, "diagEvery", 5)
  const diags = diagEvery > 0 ? 1 + Math.floor(config.steps / diagEvery) : 0
  const perEpisode = own?.valEpisode ?? SECONDS_PER_VAL_EPISODE_BY_ENV[envKey(config.env)] ?? SECONDS_PER_VAL_EPISODE
  return RUN_OVERHEAD_SECONDS + perStep * config.steps + evals * temps * num(t, "valSeeds", 256) * perEpisode + diags * SECONDS_PER_DIAG
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
