/**
 * Learning curves over seeds: per row, filter and chart metric, at each step the mean over the
 * cell's complete runs and the band from the lowest to the highest seed (with 2–5 seeds, the
 * range is what there is to show; an interval would claim more than the seeds can).
 */
import type { RunInput } from "../build.ts"
import type { Entry } from "../schema.ts"

/** [step, mean, lowest, highest, seeds]. */
export type BandPoint = readonly [number, number, number, number, number]

/** rowKey → filter → metric → points by step. */
export type Bands = ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, ReadonlyArray<BandPoint>>>>

/** Points per curve at most (every k-th step and the last). */
export const MAX_BAND_POINTS = 400

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
        const pts = [...bySteps.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([step, seeds]): BandPoint => {
            const vs = [...seeds.values()]
            return [step, vs.reduce((a, b) => a + b, 0) / vs.length, Math.min(...vs), Math.max(...vs), vs.length]
          })
        fm.set(m, thinPoints(pts))
      }
    }
  }
  return out
}
