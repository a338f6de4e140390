/**
 * Interquartile mean and the stratified bootstrap, as in Agarwal et al., "Deep Reinforcement
 * Learning at the Edge of the Statistical Precipice" (NeurIPS 2021) and its rliable library:
 * the IQM is the mean of the middle 50% of all (run, task) normalized scores pooled together
 * (rliable's aggregate_iqm is scipy.stats.trim_mean(scores, 0.25) over the flattened matrix:
 * ⌊0.25·N⌋ values cut from each end, no fractional weights). Its interval resamples runs with
 * replacement within each task independently (rliable's StratifiedBootstrap), so every resample
 * keeps every task and its number of runs, and reads the percentile interval.
 */
import { Rng } from "../../../core/host.ts"
import { DEFAULT_LEVEL, DEFAULT_RESAMPLES, type BootstrapOptions, percentileInterval } from "./bootstrap.ts"
import { checkLevel, checkResamples, checkSample } from "./check.ts"

/** scipy.stats.trim_mean(xs, 0.25): sort, cut ⌊N/4⌋ from each end, mean of the rest. */
export const iqm = (xs: ArrayLike<number>): number => {
  checkSample(xs, "iqm")
  const sorted = Float64Array.from(xs as ArrayLike<number>).sort()
  const cut = Math.floor(0.25 * sorted.length)
  let s = 0
  for (let i = cut; i < sorted.length - cut; i++) s += sorted[i]!
  return s / (sorted.length - 2 * cut)
}

/** Tasks (strata) of per-run scores; every task needs at least one run. */
export type Tasks = ReadonlyArray<ReadonlyArray<number>>

export const checkTasks = (tasks: Tasks, what: string): void => {
  if (tasks.length === 0) throw new RangeError(`${what}: no tasks`)
  tasks.forEach((t, i) => checkSample(t, `${what}: task ${i}`))
}

/** One stratified resample: each task's runs drawn with replacement, that task's count of them. */
export const stratifiedResample = (tasks: Tasks, rng: Rng): number[][] => tasks.map((t) => t.map(() => t[rng.int(t.length)]!))

/** B values of `statistic` over stratified resamples of `tasks`, sorted ascending. */
export const stratifiedBootstrap = (tasks: Tasks, statistic: (tasks: number[][]) => number, resamples: number, rng: Rng): Float64Array => {
  checkTasks(tasks, "stratifiedBootstrap")
  checkResamples(resamples, "stratifiedBootstrap")
  const out = new Float64Array(resamples)
  for (let b = 0; b < resamples; b++) out[b] = statistic(stratifiedResample(tasks, rng))
  return out.sort()
}

/** An aggregate over tasks with its stratified-bootstrap interval; lo/hi null when no task has two runs. */
export interface AggregateInterval {
  readonly value: number
  readonly lo: number | null
  readonly hi: number | null
  readonly level: number
  readonly tasks: number
  /** Runs in all, over every task. */
  readonly runs: number
  readonly note?: string
}

/** Runs flattened over tasks. */
const flat = (tasks: Tasks): number[] => tasks.flatMap((t) => [...t])

/**
 * IQM of all (run, task) scores with its stratified-bootstrap interval. With one run in every
 * task there is nothing to resample: the interval is null and a note says so.
 */
export const iqmInterval = (tasks: Tasks, options: BootstrapOptions = {}): AggregateInterval => {
  checkTasks(tasks, "iqmInterval")
  const level = options.level ?? DEFAULT_LEVEL
  checkLevel(level, "iqmInterval: level")
  const value = iqm(flat(tasks))
  const runs = tasks.reduce((a, t) => a + t.length, 0)
  if (tasks.every((t) => t.length < 2)) return { value, lo: null, hi: null, level, tasks: tasks.length, runs, note: "one run per task: no interval" }
  const resamples = options.resamples ?? DEFAULT_RESAMPLES
  checkResamples(resamples, "iqmInterval")
  // stratifiedBootstrap with iqm, written out over one reused buffer (the leaderboard runs it per filter and algorithm).
  const rng = new Rng(options.seed ?? 0)
  const buf = new Float64Array(runs)
  const cut = Math.floor(0.25 * runs)
  const dist = new Float64Array(resamples)
  for (let b = 0; b < resamples; b++) {
    let k = 0
    for (const t of tasks) for (let i = 0; i < t.length; i++) buf[k++] = t[rng.int(t.length)]!
    buf.sort()
    let sum = 0
    for (let i = cut; i < runs - cut; i++) sum += buf[i]!
    dist[b] = sum / (runs - 2 * cut)
  }
  dist.sort()
  return { value, ...percentileInterval(dist, level), level, tasks: tasks.length, runs }
}
