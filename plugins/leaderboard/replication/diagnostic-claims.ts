/**
 * The paper's claims about its collapse diagnostics (C2 Fig. 8, C3 Fig. 5, C7 Fig. 3) and the
 * project's own finding (teacher-graded fact accuracy against Retrieval-Acc). Curves are read at
 * evaluation steps (runs.ts evalCurve), the same in run folders and compact records.
 */
import { Rng } from "../../../core/host.ts"
import { DEFAULT_RESAMPLES, percentileInterval } from "../statistics/bootstrap.ts"
import { spearman } from "../statistics/spearman.ts"
import type { CurvePoint } from "../statistics/scores.ts"
import { areaRiseOf } from "../statistics/rise.ts"
import { collapseOf, settingCollapses, successFalls } from "../statistics/collapse.ts"
import { combineAll, MI_METRIC } from "./filter-claims.ts"
import { type ClaimRow, preset, table } from "./row.ts"
import { eligible, evalCurve, groupBy, groupLabels, isNoFilter, type RunView } from "./runs.ts"
import { SUCCESS_METRIC } from "../../../core/host.ts"
import { decide, decideEachSetting, fmtInterval, fmtNumber, fmtOutcome, type Interval, meanInterval, notRun, type SettingTest, type Verdict, verdictOfOutcomes } from "./stats.ts"

export const RETRIEVAL_METRIC = "mi/first_turn/retrieval_acc"
export const ENTROPY_METRIC = "train/entropy"
/** The fact-accuracy metrics, in order of preference: the validation probe's first (fixed prompts, every evaluation). */
export const FACT_METRICS = ["val/fact_accuracy@0.5", "reasoning/probe_fact_accuracy", "reasoning/fact_accuracy"] as const
/** A metric "has fallen" when it is below (1 − this) × its first value. */
export const FALL_THRESHOLD = 0.1

const at = (curve: ReadonlyArray<CurvePoint>, step: number): number | undefined => curve.find((p) => p.step === step)?.value

// ---------- C2 ----------

const PROXIES = [
  { metric: MI_METRIC, name: "MI-Est" },
  { metric: RETRIEVAL_METRIC, name: "Retrieval-Acc" },
  { metric: ENTROPY_METRIC, name: "entropy" }
] as const

/** The proxies at the run's first evaluation step after step 1 where all three are logged. */
const earlyProxies = (v: RunView): { step: number; values: number[] } | null => {
  const curves = PROXIES.map((p) => evalCurve(v.run, p.metric))
  for (const { step } of curves[0]!) {
    if (step <= 1) continue
    const values = curves.map((c) => at(c, step))
    if (values.every((x) => x !== undefined)) return { step, values: values as number[] }
  }
  return null
}

interface ProxyRecord {
  readonly x: ReadonlyArray<number>
  readonly y: number
}

/** The n-weighted mean over strata of each stratum's Spearman ρ of proxy i against the score (an undefined ρ counts as 0). */
const pooledRho = (strata: ReadonlyArray<ReadonlyArray<ProxyRecord>>, i: number): number => {
  let s = 0
  let n = 0
  for (const st of strata) {
    const r =
      spearman(
        st.map((r) => r.x[i]!),
        st.map((r) => r.y)
      ) ?? 0
    s += r * st.length
    n += st.length
  }
  return s / n
}

/** Fewer runs than this in a setting give it no within-setting correlation. */
const MIN_STRATUM_RUNS = 3

export const c2MiPredictsSuccess = (all: ReadonlyArray<RunView>): ClaimRow => {
  const base = {
    id: "C2",
    claim: "MI proxies predict final success better than entropy does",
    paper: "Fig. 8",
    presets: [preset("standard"), preset("standard-extended"), preset("table4")],
    method: `Every run (any filter) with MI diagnostics at an evaluation step: each proxy (${MI_METRIC}, ${RETRIEVAL_METRIC}, ${ENTROPY_METRIC}) at the first evaluation step after step 1 where all three are logged, against the run's final success (mean of its last 3 evaluations of val/success@0.5). Spearman's ρ within each setting (runs that differ only in filter and seed, at least ${MIN_STRATUM_RUNS} runs; so that env difficulty does not masquerade as prediction), averaged over settings weighted by runs (a ρ that is undefined because a side is constant counts as 0); intervals from a bootstrap of runs within settings. The contrast |ρ(MI proxy)| − |ρ(entropy)| is resampled on the same runs; its two intervals (one per MI proxy) are read at 97.5% (Bonferroni over the two). Reproduced when an MI proxy's contrast lies above 0 and none lies below.`
  }
  const recs = all.filter(eligible).flatMap((v) => {
    const e = earlyProxies(v)
    return e && v.last3 !== null ? [{ v, rec: { x: e.values, y: v.last3 } }] : []
  })
  const strata = [...groupBy(recs, (r) => r.v.group).values()].filter((s) => s.length >= MIN_STRATUM_RUNS)
  if (strata.length === 0) return { ...base, n: "0", numbers: [], verdict: notRun(`no setting has ${MIN_STRATUM_RUNS} runs with MI diagnostics at an evaluation step`), runs: [], details: [] }
  const recStrata = strata.map((s) => s.map((r) => r.rec))
  const n = recStrata.reduce((a, s) => a + s.length, 0)
  // One bootstrap for every statistic, so the contrasts are paired.
  const B = DEFAULT_RESAMPLES
  const rng = new Rng("C2")
  const dists = [0, 1, 2, 3, 4].map(() => new Float64Array(B))
  for (let b = 0; b < B; b++) {
    const rs = recStrata.map((s) => s.map(() => s[rng.int(s.length)]!))
    const rho = [0, 1, 2].map((i) => pooledRho(rs, i))
    dists[0]![b] = rho[0]!
    dists[1]![b] = rho[1]!
    dists[2]![b] = rho[2]!
    dists[3]![b] = Math.abs(rho[0]!) - Math.abs(rho[2]!)
    dists[4]![b] = Math.abs(rho[1]!) - Math.abs(rho[2]!)
  }
  for (const d of dists) d.sort()
  const rho = [0, 1, 2].map((i) => pooledRho(recStrata, i))
  const iv = (value: number, d: Float64Array, level: number): Interval => ({ value, ...percentileInterval(d, level), n, level })
  const rhos = rho.map((r, i) => iv(r, dists[i]!, 0.95))
  const contrasts = [iv(Math.abs(rho[0]!) - Math.abs(rho[2]!), dists[3]!, 0.975), iv(Math.abs(rho[1]!) - Math.abs(rho[2]!), dists[4]!, 0.975)]
  const parts = contrasts.map((c, i) => decide(c, "above", `|ρ(${PROXIES[i]!.name})| − |ρ(entropy)|`))
  const verdict: Verdict = parts.some((p) => p.kind === "not reproduced")
    ? parts.find((p) => p.kind === "not reproduced")!
    : parts.some((p) => p.kind === "reproduced")
      ? parts.find((p) => p.kind === "reproduced")!
      : { kind: "inconclusive", n, why: parts.map((p) => p.why).join("; ") }
  const labels = groupLabels(strata.flat().map((r) => r.v))
  return {
    ...base,
    n: `${n} runs over ${strata.length} setting${strata.length === 1 ? "" : "s"}`,
    numbers: [
      ...PROXIES.map((p, i) => `ρ(${p.name}) ${fmtInterval(rhos[i]!, { digits: 2 })}`),
      ...contrasts.map((c, i) => `|ρ(${PROXIES[i]!.name})| − |ρ(entropy)| ${fmtInterval(c, { digits: 2 })} (97.5%)`)
    ],
    verdict,
    runs: strata.flat().map((r) => r.v),
    details: [
      "Per setting (Spearman's ρ against final success, no interval):",
      table(
        ["setting", "runs", "early step", ...PROXIES.map((p) => `ρ(${p.name})`)],
        strata.map((s) => {
          const steps = [...new Set(s.map((r) => earlyProxies(r.v)!.step))].join(", ")
          return [
            labels.get(s[0]!.v.group)!,
            String(s.length),
            steps,
            ...PROXIES.map((_, i) =>
              fmtNumber(
                spearman(
                  s.map((r) => r.rec.x[i]!),
                  s.map((r) => r.rec.y)
                ),
                2
              )
            )
          ]
        })
      )
    ]
  }
}

// ---------- C3 ----------

/** First and last evaluation steps where every metric is logged; null when fewer than two. */
const firstLast = (v: RunView, metrics: ReadonlyArray<string>): { first: number; last: number; curves: CurvePoint[][] } | null => {
  const curves = metrics.map((m) => evalCurve(v.run, m))
  const steps = curves[0]!.map((p) => p.step).filter((s) => curves.every((c) => at(c, s) !== undefined))
  return steps.length >= 2 ? { first: steps[0]!, last: steps[steps.length - 1]!, curves } : null
}

export const c3RetrievalFallsEntropyHolds = (all: ReadonlyArray<RunView>): ClaimRow => {
  const base = {
    id: "C3",
    claim: "Without filtering, retrieval accuracy falls while entropy holds or rises",
    paper: "Fig. 5",
    presets: [preset("standard", "its none runs"), preset("table4", "its nofilter runs"), preset("s10", "its none runs")],
    method: `No-filter runs (none, or Table 4's top-p-softmax 1.0 with zero-spread groups included): the change of ${RETRIEVAL_METRIC}, ${MI_METRIC} and ${ENTROPY_METRIC} from the first to the last evaluation step where retrieval accuracy and entropy are both logged, mean over runs with a 95% t interval and sign-flip p. The claim is about training that learns and then collapses, so it is tested only over settings (runs whose resolved options are equal but seed) where no filter learns (the leaderboard's rule: its area rises above step 0; not all zeros or ≥ 90% zero-spread groups) or collapses (the collapse track's gate, plugins/leaderboard/statistics/collapse.ts: on ≥ 2/3 of its runs success rises above step 0, then its last-3 ends ≥ 10 points below the peak, without a blow-up); the other settings are shown and left out. Per setting (Holm over the settings tested): the claim holds where retrieval falls (p ≤ α, below 0) and entropy does not fall (not separated below 0); it is contradicted where retrieval rises or entropy falls. Reproduced only when it holds in each setting; mixed when settings disagree. The runs at lr ≥ ${HIGH_LR} are shown apart, whichever their settings.`
  }
  const recs = all
    .filter(eligible)
    .filter(isNoFilter)
    .flatMap((v) => {
      const fl = firstLast(v, [RETRIEVAL_METRIC, ENTROPY_METRIC])
      if (!fl) return []
      const [r, e] = fl.curves
      const mi = evalCurve(v.run, MI_METRIC)
      const m0 = at(mi, fl.first)
      const m1 = at(mi, fl.last)
      return [{ v, r: at(r!, fl.last)! - at(r!, fl.first)!, e: at(e!, fl.last)! - at(e!, fl.first)!, mi: m0 !== undefined && m1 !== undefined ? m1 - m0 : null }]
    })
  if (recs.length === 0) return { ...base, n: "0", numbers: [], verdict: notRun("no no-filter run has retrieval accuracy and entropy at two evaluation steps"), runs: [], details: [] }
  const every = recs
  const labelsAll = groupLabels(every.map((x) => x.v))
  const regimeOf = new Map([...groupBy(every, (x) => x.v.group)].map(([g, xs]) => [g, noneRegime(xs.map((x) => x.v))]))
  const leftOut = [...groupBy(every, (x) => x.v.group)].filter(([g]) => regimeOf.get(g)!.tested === false)
  const high = every.filter((x) => x.v.run.config.config.lr >= HIGH_LR - 1e-12)
  const tested = every.filter((x) => regimeOf.get(x.v.group)!.tested)
  if (tested.length === 0)
    return {
      ...base,
      n: `0 runs (${every.length} in settings where no filter neither learns nor collapses)`,
      numbers: [],
      verdict: notRun("no setting where no filter learns or collapses has retrieval accuracy and entropy at two evaluation steps"),
      runs: [],
      details: []
    }
  return c3Over(base, tested, every, regimeOf, leftOut, high, labelsAll)
}

/** Runs at or above this learning rate are shown apart in C3 (the paper's collapse regime; the lr 7e-4–1e-3 presets). */
export const HIGH_LR = 1e-3

/** Whether a setting's no-filter runs learn or collapse (C3 tests only those), in words. */
const noneRegime = (runs: ReadonlyArray<RunView>): { tested: boolean; text: string } => {
  const collapse = settingCollapses(runs.map((v) => evalCurve(v.run, SUCCESS_METRIC)))
  const idle = runs.every((v) => v.allZero || (v.zeroSpread !== null && v.zeroSpread >= 0.9))
  const rise = idle ? null : areaRiseOf(runs.filter((v) => v.stream === 0))
  const learns = !idle && rise?.rises !== false
  const collapses = collapse?.collapses === true
  const of = collapse ? ` (${collapse.collapsed} of ${collapse.runs} runs collapse)` : ""
  if (collapses) return { tested: true, text: `collapses${of}` }
  if (learns) return { tested: true, text: rise?.rises === true ? `learns${of}` : `kept: n = ${rise?.n ?? 0} too few to tell whether it learns${of}` }
  return { tested: false, text: `${idle ? "no advantage signal" : "does not learn"}${of}: left out` }
}

type C3Rec = { v: RunView; r: number; e: number; mi: number | null }

/** A group's mean changes with their 95% t intervals: Retrieval-Acc, MI-Est, entropy. */
const c3Changes = (xs: ReadonlyArray<C3Rec>, what: string): string[] => [
  fmtInterval(
    meanInterval(
      xs.map((x) => x.r),
      `C3 ${what} r`
    )
  ),
  fmtInterval(
    meanInterval(
      xs.flatMap((x) => (x.mi === null ? [] : [x.mi])),
      `C3 ${what} mi`
    )
  ),
  fmtInterval(
    meanInterval(
      xs.map((x) => x.e),
      `C3 ${what} e`
    )
  )
]

/** C3 per setting (Holm over the tested settings): retrieval must fall and entropy not fall; the verdict and its table. */
const c3Settings = (recs: ReadonlyArray<C3Rec>, regimeOf: ReadonlyMap<string, { tested: boolean; text: string }>, labelsAll: ReadonlyMap<string, string>): { verdict: Verdict; perSetting: string } => {
  const settings = [...groupBy(recs, (x) => x.v.group)].map(([g, xs]) => ({ label: labelsAll.get(g)!, g, xs })).sort((a, b) => a.label.localeCompare(b.label))
  const rt = decideEachSetting(
    settings.map((x) => ({ label: x.label, values: x.xs.map((y) => y.r) })),
    "below",
    "the retrieval-accuracy change",
    "C3 setting r"
  ).tests
  const et = decideEachSetting(
    settings.map((x) => ({ label: x.label, values: x.xs.map((y) => y.e) })),
    "above",
    "the entropy change",
    "C3 setting e"
  ).tests
  // A setting holds when retrieval falls and entropy does not fall; a rise of retrieval or a fall of entropy contradicts it.
  const outcomes = rt.map((t, i): Pick<SettingTest, "n" | "outcome"> => {
    const e = et[i]!
    const outcome = t.outcome === "contradicts" || e.outcome === "contradicts" ? "contradicts" : t.outcome
    return { n: t.n, outcome }
  })
  const verdict: Verdict = verdictOfOutcomes(outcomes, "below", "retrieval falls while entropy does not")
  const perSetting = table(
    ["setting", "runs", "no filter here", "Δ Retrieval-Acc [95% t]", "retrieval", "Δ entropy [95% t]", "entropy (claimed: does not fall)", "the claim here"],
    settings.map((x, i) => [
      x.label,
      String(x.xs.length),
      regimeOf.get(x.g)!.text,
      fmtInterval(rt[i]!.iv),
      fmtOutcome(rt[i]!),
      fmtInterval(et[i]!.iv),
      et[i]!.outcome === "contradicts" ? "falls" : et[i]!.outcome === "cannot" ? `n = ${et[i]!.n} cannot separate` : "does not fall",
      outcomes[i]!.outcome
    ])
  )
  return { verdict, perSetting }
}

const c3Over = (
  base: Omit<ClaimRow, "n" | "numbers" | "verdict" | "runs" | "details">,
  recs: ReadonlyArray<C3Rec>,
  every: ReadonlyArray<C3Rec>,
  regimeOf: ReadonlyMap<string, { tested: boolean; text: string }>,
  leftOut: ReadonlyArray<[string, C3Rec[]]>,
  high: ReadonlyArray<C3Rec>,
  labelsAll: ReadonlyMap<string, string>
): ClaimRow => {
  const r = meanInterval(
    recs.map((x) => x.r),
    "C3 retrieval"
  )!
  const e = meanInterval(
    recs.map((x) => x.e),
    "C3 entropy"
  )!
  const miVals = recs.flatMap((x) => (x.mi === null ? [] : [x.mi]))
  const mi = meanInterval(miVals, "C3 mi")
  const { verdict, perSetting } = c3Settings(recs, regimeOf, labelsAll)
  const byEnv = [...groupBy(recs, (x) => x.v.env)].map(([env, xs]) => [env, String(xs.length), ...c3Changes(xs, env)])
  return {
    ...base,
    n: `${recs.length} runs`,
    numbers: [
      `Δ Retrieval-Acc ${fmtInterval(r)}`,
      `Δ MI-Est ${fmtInterval(mi)}`,
      `Δ entropy ${fmtInterval(e)}`,
      ...(high.length ? [`at lr ≥ ${HIGH_LR} (${high.length} runs): ${["Δ Retrieval-Acc", "Δ MI-Est", "Δ entropy"].map((w, i) => `${w} ${c3Changes(high, "high")[i]}`).join(", ")}`] : []),
      `${every.length - recs.length} runs in ${leftOut.length} setting${leftOut.length === 1 ? "" : "s"} where no filter neither learns nor collapses left out`
    ],
    verdict,
    runs: recs.map((x) => x.v),
    details: [
      "Per setting where no filter learns or collapses (Holm over these settings):",
      perSetting,
      ...(leftOut.length
        ? [
            "Left out (no filter neither learns nor collapses there; the change shown for what it is):",
            table(
              ["setting", "runs", "no filter here", "Δ Retrieval-Acc [95% t]", "Δ MI-Est [95% t]", "Δ entropy [95% t]"],
              leftOut.map(([g, xs]) => [labelsAll.get(g)!, String(xs.length), regimeOf.get(g)!.text, ...c3Changes(xs, `left ${labelsAll.get(g)}`)]).sort((a, b) => a[0]!.localeCompare(b[0]!))
            )
          ]
        : []),
      ...(high.length
        ? [
            `Runs at lr ≥ ${HIGH_LR}, per setting (tested or not):`,
            table(
              ["setting", "runs", "no filter here", "Δ Retrieval-Acc [95% t]", "Δ MI-Est [95% t]", "Δ entropy [95% t]"],
              [...groupBy(high, (x) => x.v.group)]
                .map(([g, xs]) => [labelsAll.get(g)!, String(xs.length), regimeOf.get(g)!.text, ...c3Changes(xs, `high ${labelsAll.get(g)}`)])
                .sort((a, b) => a[0]!.localeCompare(b[0]!))
            )
          ]
        : []),
      "Per env (change from the first to the last diagnostics evaluation step):",
      table(["env", "runs", "Δ Retrieval-Acc [95% t]", "Δ MI-Est [95% t]", "Δ entropy [95% t]"], byEnv)
    ]
  }
}

// ---------- C7 ----------

/** Per bucket k = 1…B, the run's mean over evaluation steps of grad/<term>_q<k> (null where never logged). */
const bucketMeans = (v: RunView, term: string): Array<{ k: number; value: number }> => {
  const buckets = Number(v.run.config.config.train.gradDecompBuckets ?? 6)
  const out: Array<{ k: number; value: number }> = []
  for (let k = 1; k <= buckets; k++) {
    const c = evalCurve(v.run, `grad/${term}_q${k}`)
    if (c.length) out.push({ k, value: c.reduce((a, p) => a + p.value, 0) / c.length })
  }
  return out
}

const bucketRho = (pts: ReadonlyArray<{ k: number; value: number }>): number | null =>
  pts.length >= 3
    ? spearman(
        pts.map((p) => p.k),
        pts.map((p) => p.value)
      )
    : null

export const c7TaskGradientGrowsWithRv = (all: ReadonlyArray<RunView>): ClaimRow => {
  const base = {
    id: "C7",
    claim: "The task gradient norm grows with the reward-variance bucket while the regularizer's stays flat",
    paper: "Fig. 3",
    presets: [{ name: "fig3", command: "ragen-bench sweep fig3", note: "gradient decomposition every 10 steps (train.gradDecompEvery), Sokoban and FrozenLake, 3 seeds" }],
    method:
      "Runs with train.gradDecompEvery > 0: per run and bucket (1 = lowest reward spread … 6 = highest), the mean over evaluation steps of grad/task_q<k>, grad/entropy_q<k> and grad/kl_q<k>; per run Spearman's ρ of bucket index against each norm. Means over runs with 95% bootstrap intervals; the regularizer is the entropy term (the KL term is shown when logged; klCoef is 0 by default). Reproduced when ρ(task) lies above 0 and the contrast ρ(task) − ρ(entropy) lies above 0; not reproduced when either lies below 0."
  }
  const recs = all
    .filter(eligible)
    .filter((v) => Number(v.run.config.config.train.gradDecompEvery ?? 0) > 0)
    .flatMap((v) => {
      const task = bucketMeans(v, "task")
      const ent = bucketMeans(v, "entropy")
      const kl = bucketMeans(v, "kl")
      const rt = bucketRho(task)
      const re = bucketRho(ent)
      return rt === null || re === null ? [] : [{ v, task, ent, kl, rt, re, rk: bucketRho(kl) }]
    })
  if (recs.length === 0) return { ...base, n: "0", numbers: [], verdict: notRun("no run has gradient norms of 3 or more buckets at evaluation steps"), runs: [], details: [] }
  const rt = meanInterval(
    recs.map((r) => r.rt),
    "C7 task"
  )!
  const re = meanInterval(
    recs.map((r) => r.re),
    "C7 entropy"
  )!
  const rkVals = recs.flatMap((r) => (r.rk === null ? [] : [r.rk]))
  const rk = meanInterval(rkVals, "C7 kl")
  const contrast = meanInterval(
    recs.map((r) => r.rt - r.re),
    "C7 contrast"
  )!
  const verdict = combineAll([decide(rt, "above", "ρ(bucket, task norm)"), decide(contrast, "above", "ρ(task) − ρ(entropy)")])
  const buckets = [...new Set(recs.flatMap((r) => r.task.map((p) => p.k)))].sort((a, b) => a - b)
  const col = (term: "task" | "ent" | "kl", k: number) =>
    fmtInterval(
      meanInterval(
        recs.flatMap((r) => r[term].filter((p) => p.k === k).map((p) => p.value)),
        `C7 ${term} q${k}`
      ),
      { signed: false, digits: 4 }
    )
  return {
    ...base,
    n: `${recs.length} runs`,
    numbers: [
      `ρ(task) ${fmtInterval(rt, { digits: 2 })}`,
      `ρ(entropy) ${fmtInterval(re, { digits: 2 })}`,
      ...(rk ? [`ρ(KL) ${fmtInterval(rk, { digits: 2 })}`] : []),
      `ρ(task) − ρ(entropy) ${fmtInterval(contrast, { digits: 2 })}`
    ],
    verdict,
    runs: recs.map((r) => r.v),
    details: [
      "Mean gradient norm per bucket over runs (95% bootstrap interval):",
      table(
        ["bucket", "task", "entropy", "KL"],
        buckets.map((k) => [`q${k}`, col("task", k), col("ent", k), col("kl", k)])
      )
    ]
  }
}

// ---------- the project's finding ----------

/**
 * The first common evaluation step after the first at which the curve is below
 * (1 − FALL_THRESHOLD) × its value at the first common step; censored (the step after the
 * last, one evaluation interval on) when it never falls.
 */
const fallStep = (curve: ReadonlyArray<CurvePoint>, steps: ReadonlyArray<number>): { step: number; seen: boolean } => {
  const first = at(curve, steps[0]!)!
  for (const s of steps.slice(1)) if (at(curve, s)! < (1 - FALL_THRESHOLD) * first) return { step: s, seen: true }
  const last = steps[steps.length - 1]!
  const gap = steps.length >= 2 ? last - steps[steps.length - 2]! : 1
  return { step: last + gap, seen: false }
}

export const factSeesCollapseEarlier = (all: ReadonlyArray<RunView>): ClaimRow => {
  const base = {
    id: "F1",
    claim: "(this project) Teacher-graded fact accuracy sees the collapse earlier than Retrieval-Acc",
    paper: "docs/design.md §10",
    presets: [preset("s10", "its none runs"), preset("s10-no-dual-clip", "its none runs"), preset("s10-sft3000", "its none runs"), preset("standard", "its none runs")],
    method: `No-filter runs: fact accuracy (the first of ${FACT_METRICS.join(", ")} the run logs) and ${RETRIEVAL_METRIC}, on the evaluation steps where both are logged. Each metric's fall step is the first such step at which it is below ${1 - FALL_THRESHOLD} × its value at the first common step; a metric that never falls is censored one evaluation after the last (so a difference involving it is a bound). Per run the difference (Retrieval-Acc's fall step − fact accuracy's), > 0 = fact accuracy saw it first; runs where neither falls are left out. The runs are split by their validation success (plugins/leaderboard/statistics/collapse.ts): runs that collapse — success ends (last-3) at least 10 points below its highest evaluation, step 0 included: a rise then a fall (the collapse track's gate), a blow-up, or a fall from the start — and runs whose success holds. The verdict is on the runs that collapse (the claim is about seeing a collapse), with the runs that hold beside it, and the runs at lr ≥ ${HIGH_LR} (the collapse regime of the s10 presets) against the rest: mean over runs with a 95% t interval and sign-flip p, above 0 → reproduced, below 0 → not reproduced.`
  }
  let neither = 0
  const recs = all
    .filter(eligible)
    .filter(isNoFilter)
    .flatMap((v) => {
      const factMetric = FACT_METRICS.find((m) => evalCurve(v.run, m).length > 0)
      if (!factMetric) return []
      const f = evalCurve(v.run, factMetric)
      const r = evalCurve(v.run, RETRIEVAL_METRIC)
      const steps = f.map((p) => p.step).filter((s) => at(r, s) !== undefined)
      if (steps.length < 2) return []
      const fs = fallStep(f, steps)
      const rs = fallStep(r, steps)
      if (!fs.seen && !rs.seen) {
        neither++
        return []
      }
      const success = evalCurve(v.run, SUCCESS_METRIC)
      const gate = collapseOf(success)?.kind
      const falls = successFalls(success) === true
      // In words: the gate's kind where success falls (a collapse after a rise, or a blow-up), else a fall from the start or none.
      const kind = falls ? (gate === "collapses" || gate === "blow-up" ? gate : "falls from the start") : "holds"
      return [{ v, factMetric, fs, rs, d: rs.step - fs.step, falls, kind }]
    })
  if (recs.length === 0) {
    const why = neither > 0 ? `in ${neither} no-filter run(s) neither metric fell by ${FALL_THRESHOLD * 100}%` : "no no-filter run has fact accuracy and Retrieval-Acc at two common evaluation steps"
    const verdict: Verdict = neither > 0 ? { kind: "inconclusive", n: 0, why } : notRun(why)
    return { ...base, n: neither > 0 ? `0 runs with a fall (${neither} without)` : "0", numbers: [], verdict, runs: [], details: [] }
  }
  const collapsing = recs.filter((r) => r.falls)
  const others = recs.filter((r) => !r.falls)
  const kinds = (["collapses", "blow-up", "falls from the start"] as const)
    .map((k) => `${collapsing.filter((r) => r.kind === k).length} ${k === "collapses" ? "after a rise" : k === "blow-up" ? "blow-ups" : "from the start"}`)
    .join(", ")
  const highLr = recs.filter((r) => r.v.run.config.config.lr >= HIGH_LR - 1e-12)
  const lowLr = recs.filter((r) => r.v.run.config.config.lr < HIGH_LR - 1e-12)
  const d = meanInterval(
    collapsing.map((r) => r.d),
    "F1 steps collapse"
  )
  const dOthers = meanInterval(
    others.map((r) => r.d),
    "F1 steps no collapse"
  )
  const dAll = meanInterval(
    recs.map((r) => r.d),
    "F1 steps"
  )!
  const order = (xs: ReadonlyArray<{ d: number }>): string => {
    const earlier = xs.filter((r) => r.d > 0).length
    const later = xs.filter((r) => r.d < 0).length
    return `fact accuracy first in ${earlier}, Retrieval-Acc first in ${later}, same step in ${xs.length - earlier - later}`
  }
  const verdict: Verdict = collapsing.length
    ? decide(d, "above", "the fall-step difference in the runs whose success collapses")
    : { kind: "inconclusive", n: 0, why: `no run's success collapses (ends ≥ 10 points below its highest evaluation); ${others.length} run(s) hold` }
  const lr = (xs: ReadonlyArray<{ d: number }>, what: string) =>
    fmtInterval(
      meanInterval(
        xs.map((r) => r.d),
        `F1 steps ${what}`
      ),
      { digits: 1 }
    )
  return {
    ...base,
    n: `${collapsing.length} runs whose success collapses (${kinds}), ${others.length} where it holds; ${neither} more where neither diagnostic fell`,
    numbers: [
      `success collapses: Retrieval-Acc fall step − fact-accuracy fall step ${fmtInterval(d, { digits: 1 })} steps (${order(collapsing)})`,
      `success holds: ${fmtInterval(dOthers, { digits: 1 })} steps (${order(others)})`,
      `lr ≥ ${HIGH_LR} (${highLr.length} runs): ${lr(highLr, "high")}; below (${lowLr.length}): ${lr(lowLr, "low")}`,
      `all ${recs.length} runs: ${fmtInterval(dAll, { digits: 1 })} steps`
    ],
    verdict,
    runs: recs.map((r) => r.v),
    details: [
      `Per run (fall = below ${1 - FALL_THRESHOLD} × the first common evaluation's value; ≥ marks a censored step: never fell):`,
      table(
        ["run", "success", "fact metric", "fact falls at", "Retrieval-Acc falls at", "difference"],
        recs.map((r) => [r.v.runId, r.kind, r.factMetric, `${r.fs.seen ? "" : "≥ "}${r.fs.step}`, `${r.rs.seen ? "" : "≥ "}${r.rs.step}`, String(r.d)])
      )
    ]
  }
}
