/** Synthetic run records for the replication tests: a resolved config and metric curves at evaluation steps, in memory or written as run folders. */
import { openRun, type RunRead } from "../../core/results/store.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { RESULTS_FORMAT } from "../../core/contracts/results.ts"
import { RunConfig } from "../../core/contracts/run-config.ts"
import { contentHash } from "../../core/hash.ts"
import { type RunView, viewOf } from "../../plugins/leaderboard/replication/runs.ts"

export interface Fake {
  env?: string
  envOptions?: Record<string, unknown>
  algo?: string
  filter?: string
  filterOptions?: Record<string, unknown>
  seed: number
  lr?: number
  train?: Record<string, unknown>
  /** Evaluation steps (default 0, 10, 20, 30, 40). */
  steps?: number[]
  /** val/success@0.5 at each step. */
  success: number[]
  /** Other metrics at each step (null: not logged at that step). */
  curves?: Record<string, Array<number | null>>
  status?: "complete" | "failed"
  wallSeconds?: number
}

export const STEPS = [0, 10, 20, 30, 40]

export const configOf = (f: Fake) => {
  const r = decodeSync(RunConfig, {
    env: f.env ?? "envs/sokoban-v1",
    envOptions: f.envOptions ?? {},
    algo: f.algo ?? "algorithms/ppo",
    filter: f.filter ?? "filters/none",
    filterOptions: f.filterOptions ?? {},
    seed: f.seed,
    lr: f.lr ?? 3e-4,
    steps: 40,
    train: f.train ?? {}
  })
  if (!r.ok) throw new Error(r.message)
  return r.value
}

const linesOf = (f: Fake): Array<Record<string, number | null>> =>
  (f.steps ?? STEPS).map((step, i) => {
    const line: Record<string, number | null> = { step, "val/success@0.5": f.success[i]! }
    for (const [k, vs] of Object.entries(f.curves ?? {})) if (vs[i] !== null && vs[i] !== undefined) line[k] = vs[i]!
    return line
  })

const summaryOf = (f: Fake) => ({
  status: f.status ?? "complete",
  stepsDone: 40,
  wallSeconds: f.wallSeconds ?? 600,
  finalValSuccess: f.success[f.success.length - 1]!,
  peakValSuccess: Math.max(...f.success),
  final: { step: 40 }
})

/** The run as the store would read it back, without touching the disk. */
export const fakeRun = (f: Fake): RunRead => {
  const config = configOf(f)
  const hash = contentHash({ config, semantics: 3 })
  const runId = `fake-${f.seed}-${hash}`
  return {
    dir: `mem/${runId}`,
    config: {
      format: RESULTS_FORMAT,
      runId,
      hash,
      config,
      semantics: 3,
      plugins: [],
      codeVersion: "0.1.0+test",
      runtime: { name: "bun", version: "1" },
      host: { cpu: "test", cores: 2, platform: "linux", arch: "x64" },
      createdAt: "2026-01-01T00:00:00.000Z"
    },
    metrics: { lines: linesOf(f) },
    summary: { format: RESULTS_FORMAT, runId, ...summaryOf(f) }
  }
}

export const views = (fs: ReadonlyArray<Fake>): RunView[] => fs.map((f) => viewOf(fakeRun(f)))

/** Write the runs as run folders under `dir` (through the results store). */
export const writeRunFolders = (dir: string, fs: ReadonlyArray<Fake>): void => {
  for (const f of fs) {
    const run = openRun(dir, configOf(f))
    for (const line of linesOf(f)) run.appendMetrics(line as Record<string, number | null> & { step: number })
    run.writeSummary(summaryOf(f))
  }
}

/** A small deterministic jitter in [−a, a] for seed s and label k (so fixtures are not perfectly regular). */
export const jitter = (s: number, k: number, a: number): number => (((s * 7919 + k * 104729) % 1000) / 1000 - 0.5) * 2 * a

/** A success curve rising to `peak` at step 40 (peak = max, last-3 mean = (0.8 + 0.9 + 1)/3 · peak). */
export const rising = (peak: number): number[] => [0.5, 0.7, 0.8, 0.9, 1].map((x) => x * peak)

export const NONE = { filter: "filters/none" }
export const PAPER_TOP_P = { filter: "filters/top-p-softmax", filterOptions: { p: 0.9, includeZero: true } }
export const LINEAR_TOP_P = { filter: "filters/top-p", filterOptions: { p: 0.9 } }
export const WITHIN_GROUP = { filter: "filters/within-group", filterOptions: { rho: 0.5 } }
export const quartile = (k: number) => ({ filter: "filters/quantile", filterOptions: { lo: (k - 1) * 0.25, hi: k * 0.25 } })

/** The numbers of a "label +0.100 [+0.090, +0.110]" line ("−" is a minus sign). */
export const numbersIn = (line: string): number[] => [...line.replace(/−/g, "-").matchAll(/[-+]?\d+\.\d+/g)].map((m) => Number(m[0]))
