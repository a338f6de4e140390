/**
 * Learning curves over seeds: per row, filter and chart metric, at each step the mean over the
 * cell's complete runs and the band from the lowest to the highest seed (with 2–5 seeds, the
 * range is what there is to show; an interval would claim more than the seeds can). A curve is
 * drawn on the steps every one of its seeds logged (onCommonGrid): runs of one cell on different
 * evaluation grids (your runs log every step, a compact reference record its evaluation steps
 * only) are never averaged over seeds that change along x.
 */
import type { RunInput } from "../build.ts"
import type { Entry } from "../schema.ts"

/** [step, mean, lowest, highest, seeds]. */
export type BandPoint = readonly [number, number, number, number, number]

/** rowKey → filter → metric → points by step. */
export type Bands = ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, ReadonlyArray<BandPoint>>>>

/** Points per curve at most (every k-th step and the last). */
export const MAX_BAND_POINTS = 400

/**
 * The steps of a curve that every seed of it logged, each with its seeds' values: a mean over them
 * has the same seeds at every x. When no two steps are shared by every seed (grids that do not
 * meet), the largest set of seeds on one grid is kept, on that grid.
 */
export const onCommonGrid = <V>(bySteps: ReadonlyMap<number, ReadonlyMap<number, V>>): Array<[number, ReadonlyMap<number, V>]> => {
  const steps = [...bySteps.entries()].sort((a, b) => a[0] - b[0])
  const seeds = new Set(steps.flatMap(([, m]) => [...m.keys()]))
  const full = steps.filter(([, m]) => m.size === seeds.size)
  if (full.length >= 2 || full.length === steps.length) return full
  // Seeds grouped by the steps each logged; the largest group (then the longer grid) is drawn alone.
  const grids = new Map<string, number[]>()
  for (const seed of seeds) {
    const key = steps
      .filter(([, m]) => m.has(seed))
      .map(([s]) => s)
      .join(",")
    grids.set(key, [...(grids.get(key) ?? []), seed])
  }
  const [grid, kept] = [...grids.entries()].sort((a, b) => b[1].length - a[1].length || b[0].split(",").length - a[0].split(",").length)[0]!
  const at = new Set(grid.split(",").map(Number))
  return steps.filter(([s]) => at.has(s)).map(([s, m]): [number, ReadonlyMap<number, V>] => [s, new Map(kept.map((seed) => [seed, m.get(seed)!]))])
}

const thinPoints = (xs: BandPoint[]): BandPoint[] => {
  if (xs.length <= MAX_BAND_POINTS) return xs
  const k = Math.ceil(xs.length / MAX_BAND_POINTS)
  return xs.filter((_, i) => i % k === 0 || i === xs.length - 1)
}

export const curveBands = (runs: ReadonlyArray<RunInput>, entries: ReadonlyArray<Entry>, metrics: ReadonlyArray<string>): Bands => {
  const byId = new Map(entries.map((e) => [e.runId, e]))
  // row → filter → metric → step → seed → value (a step logged twice: its last line)
  const acc = new Map<string, Map<string, Map<string, Map<number, Map<number, number>>>>>()
  for (const { run } of runs) {
    const e = byId.get(run.config.runId)
    if (e?.status !== "complete") continue
    const byF = acc.get(e.rowKey) ?? new Map()
    acc.set(e.rowKey, byF)
    const byM = byF.get(e.filter) ?? new Map()
    byF.set(e.filter, byM)
    for (const line of run.metrics.lines) {
      if (typeof line.step !== "number") continue
      for (const m of metrics) {
        const v = line[m]
        if (typeof v !== "number" || !Number.isFinite(v)) continue
        const bySteps = byM.get(m) ?? new Map<number, Map<number, number>>()
        byM.set(m, bySteps)
        const bySeed = bySteps.get(line.step) ?? new Map<number, number>()
        bySteps.set(line.step, bySeed)
        bySeed.set(e.seed, v)
      }
    }
  }
  const out = new Map<string, Map<string, Map<string, BandPoint[]>>>()
  for (const [row, byF] of acc) {
    const r = new Map<string, Map<string, BandPoint[]>>()
    out.set(row, r)
    for (const [filter, byM] of byF) {
      const fm = new Map<string, BandPoint[]>()
      r.set(filter, fm)
      for (const [m, bySteps] of byM) {
        const pts = onCommonGrid(bySteps).map(([step, seeds]): BandPoint => {
          const vs = [...seeds.values()]
          return [step, vs.reduce((a, b) => a + b, 0) / vs.length, Math.min(...vs), Math.max(...vs), vs.length]
        })
        fm.set(m, thinPoints(pts))
      }
    }
  }
  return out
}
