/**
 * Probability of improvement, as rliable defines it (Agarwal et al. 2021, §4.3 and
 * rliable.metrics.probability_of_improvement): on each task, P(X > Y) + ½·P(X = Y) for a run X
 * of algorithm x and a run Y of algorithm y (the Mann–Whitney U statistic divided by n_x·n_y),
 * then the average over tasks. Its interval uses the stratified bootstrap with x's and y's runs
 * resampled independently within each task (rliable's StratifiedIndependentBootstrap), read as a
 * percentile interval. It treats runs as independent samples even where they share seeds.
 */
import { Rng } from "../../../core/host.ts"
import { DEFAULT_LEVEL, DEFAULT_RESAMPLES, type BootstrapOptions, percentileInterval } from "./bootstrap.ts"
import { checkLevel, checkResamples } from "./check.ts"
import { type AggregateInterval, checkTasks, type Tasks } from "./iqm.ts"

/** Up to this many pairs the statistic counts pairs directly (faster inside a bootstrap than sorting). */
const DIRECT_PAIRS = 256

/**
 * P(X > Y) + ½·P(X = Y) over all pairs of one task's runs: counted pair by pair for small samples,
 * else from the rank-sum form of Mann–Whitney U (average ranks for ties): U_x = R_x − n_x(n_x + 1)/2,
 * divided by n_x·n_y.
 */
export const mannWhitneyProbability = (x: ReadonlyArray<number>, y: ReadonlyArray<number>): number => {
  checkTasks([x, y], "mannWhitneyProbability")
  if (x.length * y.length <= DIRECT_PAIRS) {
    let u = 0
    for (const a of x) for (const b of y) u += a > b ? 1 : a === b ? 0.5 : 0
    return u / (x.length * y.length)
  }
  const all = [...x.map((v) => ({ v, fromX: true })), ...y.map((v) => ({ v, fromX: false }))].sort((a, b) => a.v - b.v)
  let rankSumX = 0
  for (let i = 0; i < all.length; ) {
    let j = i
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++
    const rank = (i + j) / 2 + 1
    for (let k = i; k <= j; k++) if (all[k]!.fromX) rankSumX += rank
    i = j + 1
  }
  return (rankSumX - (x.length * (x.length + 1)) / 2) / (x.length * y.length)
}

/** The average over tasks of each task's P(x > y); the two sides must list the same tasks. */
export const probabilityOfImprovement = (x: Tasks, y: Tasks): number => {
  checkTasks(x, "probabilityOfImprovement: x")
  checkTasks(y, "probabilityOfImprovement: y")
  if (x.length !== y.length) throw new RangeError(`probabilityOfImprovement: x has ${x.length} tasks, y has ${y.length}`)
  let s = 0
  for (let t = 0; t < x.length; t++) s += mannWhitneyProbability(x[t]!, y[t]!)
  return s / x.length
}

/** P(x > y) with its stratified-independent-bootstrap interval; null when no task has two runs on either side. */
export const probabilityOfImprovementInterval = (x: Tasks, y: Tasks, options: BootstrapOptions = {}): AggregateInterval => {
  const value = probabilityOfImprovement(x, y)
  const level = options.level ?? DEFAULT_LEVEL
  checkLevel(level, "probabilityOfImprovementInterval: level")
  const resamples = options.resamples ?? DEFAULT_RESAMPLES
  checkResamples(resamples, "probabilityOfImprovementInterval")
  const runs = [...x, ...y].reduce((a, t) => a + t.length, 0)
  if ([...x, ...y].every((t) => t.length < 2)) return { value, lo: null, hi: null, level, tasks: x.length, runs, note: "one run per task and side: no interval" }
  // Per task the pair table C[i][j] = 1, ½ or 0 for x_i against y_j; a resample is a count of draws
  // per run on each side (wx, wy), and its statistic Σ_ij wx_i·C_ij·wy_j / (n_x·n_y): the same
  // value as recomputing it on the resampled runs, without sorting or allocating inside the loop.
  const tables = x.map((xs, t) => {
    const ys = y[t]!
    const c = new Float64Array(xs.length * ys.length)
    xs.forEach((a, i) => ys.forEach((b, j) => (c[i * ys.length + j] = a > b ? 1 : a === b ? 0.5 : 0)))
    return c
  })
  const wx = x.map((t) => new Float64Array(t.length))
  const wy = y.map((t) => new Float64Array(t.length))
  const draw = (w: Float64Array): void => {
    w.fill(0)
    for (let i = 0; i < w.length; i++) w[rng.int(w.length)]!++
  }
  const rng = new Rng(options.seed ?? 0)
  const dist = new Float64Array(resamples)
  for (let b = 0; b < resamples; b++) {
    for (const w of wx) draw(w)
    for (const w of wy) draw(w)
    let s = 0
    for (let t = 0; t < x.length; t++) {
      const c = tables[t]!
      const ax = wx[t]!
      const ay = wy[t]!
      const ny = ay.length
      let u = 0
      for (let i = 0; i < ax.length; i++) {
        if (ax[i] === 0) continue
        let row = 0
        for (let j = 0; j < ny; j++) row += c[i * ny + j]! * ay[j]!
        u += ax[i]! * row
      }
      s += u / (ax.length * ny)
    }
    dist[b] = s / x.length
  }
  dist.sort()
  return { value, ...percentileInterval(dist, level), level, tasks: x.length, runs }
}
