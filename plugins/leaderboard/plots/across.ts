/**
 * Across envs, in the style of rliable (Agarwal et al. 2021, Fig. 1/9): per algorithm, each
 * filter's IQM of normalized scores and its probability of improvement over `none`, each an
 * interval bar with a tick at the estimate, on fixed domains (0–100%; 0–1 with 0.5 marked).
 */
import { fmtAggregatePct, fmtProbability, shortId } from "../format.ts"
import type { Across, Aggregate, Leaderboard } from "../schema.ts"
import { improvementOf, iqmOf } from "../view.ts"
import { type IntervalItem, intervalChart } from "./intervals.ts"
import { BETTER_COLOUR, colourOf, WORSE_COLOUR } from "./palette.ts"

const item = (a: Across, v: Aggregate, note: string, noteColour: string, hover: string, filters: ReadonlyArray<string>): IntervalItem => ({
  label: a.filter,
  value: v.value,
  lo: v.lo,
  hi: v.hi,
  colour: colourOf(a.filter, filters),
  filled: true,
  note,
  noteColour,
  hover,
  dashed: a.kind === "noise-floor"
})

/** P(improvement) reads better/worse only when its interval leaves 0.5. */
const improvementNote = (v: Aggregate): [string, string] =>
  v.lo !== null && v.lo > 0.5
    ? [`${v.value.toFixed(2)} ▲ above ½`, BETTER_COLOUR]
    : v.hi !== null && v.hi < 0.5
      ? [`${v.value.toFixed(2)} ▼ below ½`, WORSE_COLOUR]
      : [`${v.value.toFixed(2)} ≈ ½ inside`, "#555555"]

/** Two panels per algorithm: IQM and P(> none). */
export const acrossPanels = (lb: Leaderboard): string[] => {
  const out: string[] = []
  const ranked = new Set(lb.ranking.map((r) => r.filter))
  const unranked = new Set((lb.notRanked ?? []).map((e) => e.filter).filter((f) => !ranked.has(f)))
  for (const algo of [...new Set(lb.across.map((a) => a.algo))]) {
    const of = lb.across.filter((a) => a.algo === algo)
    const iqm = of.flatMap((a) => {
      const v = iqmOf(a)
      return v ? [item(a, v, `${(100 * v.value).toFixed(1)}%`, "#333333", `${a.filter}: IQM ${fmtAggregatePct(v)} over ${v.tasks} envs, ${v.runs} runs`, lb.filters)] : []
    })
    const imp = of.flatMap((a) => {
      const v = improvementOf(a)
      if (!v) return []
      // A filter whose seeds cannot rank it anywhere (build.ts rank) gets no mark here either.
      const [note, colour] = unranked.has(a.filter) ? [`${v.value.toFixed(2)} ? not ranked`, "#555555"] : improvementNote(v)
      return [item(a, v, note, colour, `${a.filter}: P(> none) ${fmtProbability(v)} over ${v.tasks} envs`, lb.filters)]
    })
    const name = shortId(algo)
    if (iqm.length)
      out.push(
        intervalChart({
          title: `${name}: IQM across envs`,
          items: iqm,
          domain: [0, 1],
          tick: (t) => `${Math.round(100 * t)}%`,
          axisLabel: "interquartile mean of normalized score",
          style: "bar",
          kind: "iqm"
        })
      )
    if (imp.length)
      out.push(
        intervalChart({
          title: `${name}: P(filter > none) across envs`,
          items: imp,
          domain: [0, 1],
          tick: (t) => t.toFixed(2).replace(/0$/, ""),
          axisLabel: "probability of improvement over none",
          refLines: [{ at: 0.5, label: "½" }],
          style: "bar",
          kind: "improvement"
        })
      )
  }
  return out
}
