/**
 * The paper's claims about filtering (C1 Table 4, C4 Table 6, C5 Table 7, C6 Fig. 9): each a
 * paired difference of run scores between two filters of one setting, runs paired by seed within
 * a pairing group (every resolved setting equal but seed and filter, runs.ts), tested in each
 * setting and pooled over settings (stats.ts). The endpoint is the area under the validation
 * curve (runs.ts `auc`); the peak is shown as the paper's score.
 */
import { canonicalJson, SUCCESS_METRIC } from "../../../core/host.ts"
import { settingCollapses } from "../statistics/collapse.ts"
import { iqmInterval } from "../statistics/iqm.ts"
import { probabilityOfImprovementInterval } from "../statistics/improvement.ts"
import { areaRiseOf } from "../statistics/rise.ts"
import type { SeedScore } from "../statistics/paired.ts"
import { spearmanInterval } from "../statistics/spearman.ts"
import { type ClaimRow, preset, table } from "./row.ts"
import { eligible, evalCurve, groupBy, groupLabels, isNoFilter, isPaperTopP, isWithinGroup, lastMean, pairingConfig, quartileOf, type RunView, topPRank } from "./runs.ts"
import {
  againstPooled,
  decide,
  decideEachSetting,
  fmtInterval,
  fmtNumber,
  fmtOutcome,
  fmtSeeds,
  meanInterval,
  notRun,
  olsSlope,
  pairedDeltas,
  type SettingTest,
  stratifiedMeanInterval,
  stratifiedStatistic,
  type Verdict
} from "./stats.ts"

export const MI_METRIC = "mi/first_turn/mi_est"

const scores = (runs: ReadonlyArray<RunView>, pick: (v: RunView) => number | null): SeedScore[] =>
  runs.flatMap((v) => {
    const value = pick(v)
    return value === null ? [] : [{ seed: v.seed, value }]
  })

const peakOf = (v: RunView) => v.peak
const last3Of = (v: RunView) => v.last3
const aucOf = (v: RunView) => v.auc

/** One setting's paired comparison of arm a against arm b. */
interface Stratum {
  readonly label: string
  readonly algo: string
  readonly a: RunView[]
  readonly b: RunView[]
  readonly seeds: number[]
  readonly peak: number[]
  readonly last3: number[]
  /** Per-seed differences of the area under the validation curve (the endpoint). */
  readonly auc: number[]
}

/** Per pairing group, arm a − arm b (by seed) of peak and last-3 scores; groups without a pair are left out. */
const strataOf = (views: ReadonlyArray<RunView>, armA: (vs: RunView[]) => RunView[], armB: (vs: RunView[]) => RunView[]): Stratum[] => {
  const labels = groupLabels(views)
  const out: Stratum[] = []
  for (const [group, vs] of groupBy(views, (v) => v.group)) {
    const a = armA(vs)
    const b = armB(vs)
    const pk = pairedDeltas(scores(a, peakOf), scores(b, peakOf))
    if (pk.deltas.length === 0) continue
    const l3 = pairedDeltas(scores(a, last3Of), scores(b, last3Of))
    const auc = pairedDeltas(scores(a, aucOf), scores(b, aucOf))
    const seeds = new Set(pk.seeds)
    out.push({
      label: labels.get(group)!,
      algo: vs[0]!.algo,
      a: a.filter((v) => seeds.has(v.seed)),
      b: b.filter((v) => seeds.has(v.seed)),
      seeds: pk.seeds,
      peak: pk.deltas,
      last3: l3.deltas,
      auc: auc.deltas
    })
  }
  return out.sort((x, y) => x.label.localeCompare(y.label))
}

/** The arm of no filter: `none` where the group has it, else Table 4's top-p-softmax 1.0. */
const noFilterArm = (vs: RunView[]): RunView[] => {
  const none = vs.filter((v) => v.filter === "none")
  return none.length ? none : vs.filter(isNoFilter)
}

/** The group's prompt-level top-p arm: linear 0.9 where it has it, else the paper's softmax 0.9. */
const topPArm = (vs: RunView[]): RunView[] => {
  const ranked = vs.filter((v) => topPRank(v) !== null)
  const best = Math.min(...ranked.map((v) => topPRank(v)!))
  return ranked.filter((v) => topPRank(v) === best)
}

/** Per setting: the arms' areas, the area difference with its t interval and its outcome in the claim's test, last-3 and the paper's peak. */
const strataTable = (strata: ReadonlyArray<Stratum>, aName: string, bName: string, seed: string, tests: ReadonlyArray<SettingTest>): string =>
  table(
    ["setting", "seeds", "n", `${bName} area`, `${aName} area`, "Δ area [95% t]", "in this setting", "Δ last-3 [95% t]", "Δ peak (paper's) [95% t]"],
    strata.map((s, i) => {
      const t = tests.find((x) => x.label === s.label)
      return [
        s.label,
        fmtSeeds(s.seeds),
        String(s.auc.length),
        fmtNumber(mean(s.b.map((v) => v.auc))),
        fmtNumber(mean(s.a.map((v) => v.auc))),
        fmtInterval(meanInterval(s.auc, `${seed} auc ${i} ${s.label}`)),
        t ? fmtOutcome(t) : "–",
        fmtInterval(meanInterval(s.last3, `${seed} last3 ${i} ${s.label}`)),
        fmtInterval(meanInterval(s.peak, `${seed} peak ${i} ${s.label}`))
      ]
    })
  )

/**
 * Settings where no filter does not learn, as the leaderboard decides it: success 0 at every
 * evaluation or ≥ 90% zero-spread groups (nothing to act on), or an area that does not rise above
 * step 0 at a number of seeds that could have shown it (statistics/rise.ts).
 */
const learns = (s: Stratum): boolean => {
  if (s.b.every((v) => v.allZero || (v.zeroSpread !== null && v.zeroSpread >= 0.9))) return false
  return areaRiseOf(s.b.filter((v) => v.stream === 0))?.rises !== false
}

/** C1 is about the paper's regime too: a setting whose no-filter runs collapse by the collapse track's gate is tested as well. */
const learnsOrCollapses = (s: Stratum): boolean => learns(s) || settingCollapses(s.b.filter((v) => v.stream === 0).map((v) => evalCurve(v.run, SUCCESS_METRIC)))?.collapses === true

const mean = (xs: ReadonlyArray<number | null>): number | null => {
  const v = xs.filter((x): x is number => x !== null)
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null
}

const pairsN = (strata: ReadonlyArray<Stratum>): string => {
  const n = strata.reduce((a, s) => a + s.peak.length, 0)
  return `${n} seed pair${n === 1 ? "" : "s"} over ${strata.length} setting${strata.length === 1 ? "" : "s"}`
}

const runsOf = (strata: ReadonlyArray<Stratum>): RunView[] => strata.flatMap((s) => [...s.a, ...s.b])

// ---------- C1 ----------

export const c1TopPRaisesSuccess = (all: ReadonlyArray<RunView>): ClaimRow => {
  const views = all.filter(eligible)
  const every = strataOf(views, (vs) => vs.filter(isPaperTopP), noFilterArm)
  const strata = every.filter(learnsOrCollapses)
  const idle = every.filter((s) => !learnsOrCollapses(s))
  const base = {
    id: "C1",
    claim: "Top-p filtering raises average success across environments and algorithms",
    paper: "Table 4",
    presets: [preset("standard", "PPO"), preset("standard-extended", "adds GRPO"), preset("table4", "the reference script's rows"), preset("collapse", "where no filter rises then decays")],
    method:
      "Per setting (env, algorithm and every other resolved option equal; Table 4's top-p-softmax 1.0 with zero-spread groups included counts as no filter), the per-seed difference of the paper's top-p (softmax, p = 0.9, include zero) minus no filter of the area under the validation curve (val/success@0.5, mean over the evaluations after step 0), with last-3 and the peak (the paper's score) beside it. Settings where no filter neither learns (the leaderboard's rule: not success 0 at every evaluation, not ≥ 90% zero-spread groups, an area that rises above step 0 at a testable n) nor collapses (the collapse track's gate, plugins/leaderboard/statistics/collapse.ts: on ≥ 2/3 of its runs success rises above step 0, then its last-3 ends ≥ 10 points below the peak, without a blow-up) are shown but left out. Verdict: the area difference tested in each setting (sign-flip, Holm over the settings); across settings the mean of the settings' means (Welch t interval, stratified sign-flip p), the IQM of the differences and P(top-p > none) (plugins/leaderboard/statistics)."
  }
  if (strata.length === 0) return { ...base, n: "0", numbers: [], verdict: notRun("no setting where no filter learns or collapses has both the paper's top-p and no filter"), runs: [], details: [] }
  const pooled = (pick: (s: Stratum) => number[], what: string) => stratifiedMeanInterval(strata.filter((s) => pick(s).length).map(pick), `C1 ${what}`)
  const iqm = iqmInterval(
    strata.map((s) => s.auc),
    { seed: "C1 iqm" }
  )
  const poi = probabilityOfImprovementInterval(
    strata.map((s) => s.a.flatMap((v) => (v.auc === null ? [] : [v.auc]))),
    strata.map((s) => s.b.flatMap((v) => (v.auc === null ? [] : [v.auc]))),
    { seed: "C1 poi" }
  )
  const settings = decideEachSetting(
    strata.map((s) => ({ label: s.label, values: s.auc })),
    "above",
    "the area difference top-p − none",
    "C1 setting"
  )
  const tests = settings.tests
  const pooledAuc = pooled((s) => s.auc, "auc")
  const verdict = againstPooled(settings.verdict, pooledAuc, "above", "the area difference top-p − none")
  const byAlgo = [...groupBy(strata, (s) => s.algo)].map(([algo, ss]) => [
    algo,
    String(ss.length),
    String(ss.reduce((a, s) => a + s.auc.length, 0)),
    fmtInterval(
      stratifiedMeanInterval(
        ss.map((s) => s.auc),
        `C1 ${algo} auc`
      )
    ),
    fmtInterval(
      stratifiedMeanInterval(
        ss.filter((s) => s.last3.length).map((s) => s.last3),
        `C1 ${algo} last3`
      )
    )
  ])
  return {
    ...base,
    n: pairsN(strata),
    numbers: [
      `Δ area ${fmtInterval(pooledAuc)}`,
      `Δ last-3 ${fmtInterval(pooled((s) => s.last3, "last3"))}`,
      `Δ peak (paper's) ${fmtInterval(pooled((s) => s.peak, "peak"))}`,
      `IQM Δ area ${fmtInterval({ ...iqm, n: iqm.runs })}`,
      `P(top-p > none) area ${fmtInterval({ ...poi, n: poi.runs }, { signed: false, digits: 2 })}`
    ],
    verdict,
    runs: runsOf(strata),
    details: [
      "Per algorithm, across its settings:",
      table(["algorithm", "settings", "pairs", "Δ area [95% t]", "Δ last-3 [95% t]"], byAlgo),
      "Per setting (paired by seed):",
      strataTable(strata, "top-p", "none", "C1", tests),
      ...(idle.length ? [`Left out (no filter neither learns nor collapses): ${idle.map((s) => s.label).join("; ")}.`] : [])
    ]
  }
}

// ---------- C5 ----------

export const c5PromptBeatsTrajectory = (all: ReadonlyArray<RunView>): ClaimRow => {
  const views = all.filter(eligible)
  const strata = strataOf(views, topPArm, (vs) => vs.filter(isWithinGroup))
  const base = {
    id: "C5",
    claim: "Prompt-level filtering (top-p) beats trajectory-level filtering (within-group)",
    paper: "Table 7",
    presets: [preset("table7")],
    method:
      "Per setting, the per-seed difference of prompt-level top-p (linear p = 0.9 as the preset runs it; the paper's softmax 0.9 where a setting has no linear one) minus trajectory-level within-group filtering, of the area under the validation curve (the verdict's endpoint: a peak difference is structurally 0 where curves only fall, as both arms share step 0), with last-3 and the paper's peak beside it. Verdict: the area difference tested in each setting (sign-flip, Holm over the settings); across settings the mean of the settings' means."
  }
  if (strata.length === 0) return { ...base, n: "0", numbers: [], verdict: notRun("no setting has both top-p and within-group runs"), runs: [], details: [] }
  const pooled = (pick: (s: Stratum) => number[], what: string) => stratifiedMeanInterval(strata.filter((s) => pick(s).length).map(pick), `C5 ${what}`)
  const settings = decideEachSetting(
    strata.map((s) => ({ label: s.label, values: s.auc })),
    "above",
    "the area difference top-p − within-group",
    "C5 setting"
  )
  const tests = settings.tests
  const pooledAuc = pooled((s) => s.auc, "auc")
  const verdict = againstPooled(settings.verdict, pooledAuc, "above", "the area difference top-p − within-group")
  return {
    ...base,
    n: pairsN(strata),
    numbers: [`Δ area ${fmtInterval(pooledAuc)}`, `Δ last-3 ${fmtInterval(pooled((s) => s.last3, "last3"))}`, `Δ peak (paper's) ${fmtInterval(pooled((s) => s.peak, "peak"))}`],
    verdict,
    runs: runsOf(strata),
    details: ["Per setting (paired by seed):", strataTable(strata, "top-p", "within-group", "C5", tests)]
  }
}

// ---------- C4 ----------

/** Mean of the last 3 evaluation-step values of the MI proxy: the run's final MI. */
const finalMi = (v: RunView): number | null => lastMean(evalCurve(v.run, MI_METRIC))

/** Mean over runs with its t interval, as a level (unsigned). */
const levelCell = (runs: ReadonlyArray<RunView>, pick: (v: RunView) => number | null, seed: string): string =>
  fmtInterval(
    meanInterval(
      runs.flatMap((v) => {
        const x = pick(v)
        return x === null ? [] : [x]
      }),
      seed
    ),
    { signed: false }
  )

/** C4's per-quartile table: each quartile's area, peak and final MI per setting. */
const quartileTable = (perQuartile: ReadonlyArray<{ group: string; k: number; runs: RunView[] }>, labels: ReadonlyMap<string, string>): string =>
  table(
    ["setting", "quartile", "n", "area", "peak success", "final MI"],
    perQuartile.map((p) => [
      labels.get(p.group)!,
      `Q${p.k}`,
      String(p.runs.length),
      levelCell(p.runs, (v) => v.auc, `C4 q${p.k} auc ${p.group}`),
      levelCell(p.runs, (v) => v.peak, `C4 q${p.k} peak ${p.group}`),
      levelCell(p.runs, finalMi, `C4 q${p.k} mi ${p.group}`)
    ])
  )

export const c4QuartilesDecline = (all: ReadonlyArray<RunView>): ClaimRow => {
  const views = all.filter(eligible).filter((v) => quartileOf(v) !== null)
  const base = {
    id: "C4",
    claim: "Success and MI fall from the high-RV to the low-RV quartile",
    paper: "Table 6",
    presets: [preset("table6")],
    method: `Quantile-filter runs keeping one reward-variance quartile (Q1 = [0, 0.25) = highest RV … Q4 = [0.75, 1)). Per setting, the per-seed difference Q1 − Q4 of the area under the validation curve (the verdict's endpoint; last-3 and the paper's peak beside it) and of the final MI (${MI_METRIC}, mean of its last 3 evaluation-step values); across settings the mean of the settings' means. The trend over Q1…Q4 is shown as Spearman's ρ of quartile index against the area (pair bootstrap; a decline is ρ < 0). Reproduced when both Q1 − Q4 differences lie above 0 in each setting (sign-flip, Holm over the settings); not reproduced when either is contradicted and never holds; mixed when settings disagree.`
  }
  const q = (k: number) => (vs: RunView[]) => vs.filter((v) => quartileOf(v) === k)
  const strata = strataOf(views, q(1), q(4))
  if (strata.length === 0) return { ...base, n: "0", numbers: [], verdict: notRun("no setting has both Q1 and Q4 quantile runs"), runs: [], details: [] }
  const miStrata = strata.map((s) => pairedDeltas(scores(s.a, finalMi), scores(s.b, finalMi)).deltas)
  const pooled = (pick: (s: Stratum) => number[], what: string) => stratifiedMeanInterval(strata.filter((s) => pick(s).length).map(pick), `C4 ${what}`)
  const mi = stratifiedMeanInterval(miStrata, "C4 mi")
  const area = decideEachSetting(
    strata.map((s) => ({ label: s.label, values: s.auc })),
    "above",
    "Q1 − Q4 area",
    "C4 setting auc"
  )
  const miTests = decideEachSetting(
    strata.map((s, i) => ({ label: s.label, values: miStrata[i]! })),
    "above",
    "Q1 − Q4 final MI",
    "C4 setting mi"
  )
  const pooledAuc = pooled((s) => s.auc, "auc")
  const verdict = combineAll([againstPooled(area.verdict, pooledAuc, "above", "Q1 − Q4 area"), againstPooled(miTests.verdict, mi, "above", "Q1 − Q4 final MI")])
  const labels = groupLabels(views)
  const perQuartile = [...groupBy(views, (v) => v.group)]
    .filter(([g]) => strata.some((s) => s.a[0]?.group === g))
    .flatMap(([group, vs]) => [1, 2, 3, 4].map((k) => ({ group, k, runs: vs.filter((v) => quartileOf(v) === k) })))
  const trends = [...groupBy(views, (v) => v.group)]
    .filter(([g]) => strata.some((s) => s.a[0]?.group === g))
    .map(([group, vs]) => {
      const pts = vs.filter((v) => v.auc !== null && quartileOf(v) !== null)
      const rho = spearmanInterval(
        pts.map((v) => quartileOf(v)!),
        pts.map((v) => v.auc!),
        { seed: `C4 trend ${group}` }
      )
      return [labels.get(group)!, String(rho.n), rho.rho === null ? "–" : fmtInterval({ value: rho.rho, lo: rho.lo, hi: rho.hi, n: rho.n, level: rho.level }, { digits: 2 })]
    })
  return {
    ...base,
    n: pairsN(strata),
    numbers: [
      `Q1 − Q4 area ${fmtInterval(pooledAuc)}`,
      `Q1 − Q4 last-3 ${fmtInterval(pooled((s) => s.last3, "last3"))}`,
      `Q1 − Q4 peak (paper's) ${fmtInterval(pooled((s) => s.peak, "peak"))}`,
      `Q1 − Q4 final MI ${fmtInterval(mi)}`
    ],
    verdict,
    runs: [...new Set(perQuartile.flatMap((p) => p.runs))],
    details: [
      "Per quartile (mean over seeds, 95% t interval):",
      quartileTable(perQuartile, labels),
      "Trend: Spearman's ρ of quartile index (1 = highest RV) against the area, per setting:",
      table(["setting", "runs", "ρ [95%]"], trends),
      "Q1 − Q4 per setting (paired by seed):",
      strataTable(strata, "Q1", "Q4", "C4", area.tests),
      "Q1 − Q4 final MI per setting:",
      table(
        ["setting", "n", "Δ final MI [95% t]", "in this setting"],
        miTests.tests.map((t) => [t.label, String(t.n), fmtInterval(t.iv), fmtOutcome(t)])
      )
    ]
  }
}

/** Every part must hold for reproduced; any part mixed is mixed; any part contradicted is not reproduced; any part pooled against the claim is not supported; else the smallest n decides "inconclusive". */
export const combineAll = (parts: ReadonlyArray<Verdict>): Verdict => {
  if (parts.some((p) => p.kind === "not run")) return parts.find((p) => p.kind === "not run")!
  const mixed = parts.find((p) => p.kind === "mixed")
  if (mixed) return mixed
  const bad = parts.find((p) => p.kind === "not reproduced")
  if (bad) return bad
  const against = parts.find((p) => p.kind === "not supported")
  if (against) return against
  if (parts.every((p) => p.kind === "reproduced")) return { kind: "reproduced", n: Math.min(...parts.map((p) => p.n)), why: parts.map((p) => p.why).join("; ") }
  const open = parts.filter((p) => p.kind === "inconclusive")
  const thin = open.flatMap((p) => (p.perSetting === undefined ? [] : [p.perSetting]))
  const verdict: Verdict = { kind: "inconclusive", n: Math.min(...open.map((p) => p.n)), why: open.map((p) => p.why).join("; ") }
  return thin.length ? { ...verdict, perSetting: Math.min(...thin) } : verdict
}

// ---------- C6 ----------

const successRateOf = (v: RunView): number | null => {
  const s = v.run.config.config.envOptions.successRate
  return typeof s === "number" ? s : null
}

export const c6AdvantageShrinksWithSlip = (all: ReadonlyArray<RunView>): ClaimRow => {
  const views = all.filter(eligible).filter((v) => successRateOf(v) !== null)
  const base = {
    id: "C6",
    claim: "Top-p's advantage over no filter shrinks as FrozenLake's slip rises to 80–100%",
    paper: "Fig. 9",
    presets: [preset("fig9")],
    method:
      "Settings that differ only in envOptions.successRate (slip = 1 − successRate) form a family. Per slip, the per-seed difference top-p (linear 0.9, else the paper's softmax 0.9) minus no filter of the area under the validation curve (the report's endpoint, as for C1, C4 and C5), with the paper's peak beside it. The trend is the least-squares slope of the per-seed differences on slip, averaged over families, with a bootstrap stratified by (family, slip). Reproduced when the area slope's interval lies below 0 (the advantage shrinks); not reproduced when it lies above 0."
  }
  // Family: the pairing config without envOptions.successRate.
  const familyOf = (v: RunView): string => {
    const c = pairingConfig(v.run.config.config)
    const { successRate: _s, ...envOptions } = c.envOptions
    return canonicalJson({ ...c, envOptions, semantics: v.semantics })
  }
  const cells: Array<{ family: string; slip: number; stratum: Stratum }> = []
  for (const [family, vs] of groupBy(views, familyOf)) {
    for (const s of strataOf(vs, topPArm, noFilterArm)) cells.push({ family, slip: 1 - successRateOf(s.a[0]!)!, stratum: s })
  }
  const families = [...groupBy(cells, (c) => c.family).values()].filter((cs) => new Set(cs.map((c) => c.slip)).size >= 2)
  // Relabelled over every family used, so that what tells two families apart (e.g. lr) shows.
  const labels = groupLabels(families.flat().flatMap((c) => [...c.stratum.a, ...c.stratum.b]))
  const used = families.flat().map((c) => ({ ...c, stratum: { ...c.stratum, label: labels.get(c.stratum.a[0]!.group)! } }))
  if (used.length === 0) return { ...base, n: "0", numbers: [], verdict: notRun("no family has top-p and no-filter pairs at two or more slips"), runs: [], details: [] }
  // Strata for the bootstrap: one per (family, slip) cell, records are (family index, slip, Δ area); the peak's beside.
  const pointsOf = (pick: (s: Stratum) => number[]) => families.flatMap((cs, fi) => cs.map((c) => pick(c.stratum).map((d) => ({ f: fi, x: c.slip, y: d }))))
  const strata = pointsOf((s) => s.auc)
  const slopeOf = (ss: ReadonlyArray<ReadonlyArray<{ f: number; x: number; y: number }>>): number => {
    const byFamily = groupBy(ss.flat(), (p) => p.f)
    const slopes = [...byFamily.values()].map((pts) => olsSlope(pts) ?? 0)
    return slopes.reduce((a, b) => a + b, 0) / slopes.length
  }
  const slope = stratifiedStatistic(strata, slopeOf, "C6 slope auc")
  const peakSlope = stratifiedStatistic(
    pointsOf((s) => s.peak),
    slopeOf,
    "C6 slope"
  )
  const lowSlip = stratifiedMeanInterval(
    used.filter((c) => c.slip <= 0.5 + 1e-9).map((c) => c.stratum.auc),
    "C6 low auc"
  )
  const highSlip = stratifiedMeanInterval(
    used.filter((c) => c.slip >= 0.8 - 1e-9).map((c) => c.stratum.auc),
    "C6 high auc"
  )
  const n = used.reduce((a, c) => a + c.stratum.peak.length, 0)
  const slips = [...new Set(used.map((c) => c.slip))].sort((a, b) => a - b)
  return {
    ...base,
    n: `${n} seed pairs over ${slips.length} slips (${families.length} famil${families.length === 1 ? "y" : "ies"})`,
    numbers: [
      `slope of Δ area per unit slip ${fmtInterval(slope)}`,
      `Δ area at slip ≤ 50% ${fmtInterval(lowSlip)}`,
      `Δ area at slip ≥ 80% ${fmtInterval(highSlip)}`,
      `slope of Δ peak (paper's) per unit slip ${fmtInterval(peakSlope)}`
    ],
    verdict: decide(slope, "below", "the slope of the area difference top-p − none on slip"),
    runs: runsOf(used.map((c) => c.stratum)),
    details: [
      "Per slip (paired by seed; slip = 1 − successRate):",
      table(
        ["setting", "slip", "seeds", "n", "Δ area [95%]", "Δ last-3 [95%]", "Δ peak (paper's) [95%]"],
        used
          .sort((a, b) => a.family.localeCompare(b.family) || a.slip - b.slip)
          .map((c, i) => [
            c.stratum.label,
            `${Math.round(c.slip * 100)}%`,
            fmtSeeds(c.stratum.seeds),
            String(c.stratum.peak.length),
            fmtInterval(meanInterval(c.stratum.auc, `C6 auc ${i} ${c.stratum.label}`)),
            fmtInterval(meanInterval(c.stratum.last3, `C6 last3 ${i} ${c.stratum.label}`)),
            fmtInterval(meanInterval(c.stratum.peak, `C6 peak ${i} ${c.stratum.label}`))
          ])
      )
    ]
  }
}
