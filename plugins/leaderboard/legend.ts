/** What each statistic on the page means, in plain text (each renderer escapes it). */
import { DEFAULT_RESAMPLES } from "./statistics/bootstrap.ts"
import type { Leaderboard } from "./schema.ts"
import { EXACT_MAX_PAIRS } from "./statistics/paired-tests.ts"
import { isPositiveControl } from "./labels.ts"

export interface LegendItem {
  readonly term: string
  readonly text: string
}

export const legendItems = (lb: Leaderboard): LegendItem[] => {
  const assumed = (lb.normalizers ?? []).filter((n) => n.assumed).map((n) => n.env)
  const family = lb.family
  return [
    {
      term: "area, last-3, peak, fact area",
      text: `A run's scores from its ${lb.metric} curve: area = the mean over its evaluations after step 0 (the primary score: not biased by picking a maximum, and it sees a collapse); last-3 = the mean of its last 3 evaluations; peak = the highest evaluation (as the paper reports it; the peak of many noisy evaluations is biased upward, and arms that share a seed share step 0). Fact area: the area of val/fact_accuracy@0.5 where logged. Shown in %: the mean over seeds, [its 95% t interval], and n seeds; one seed has no interval.`
    },
    {
      term: "Δ vs none",
      text: "The per-seed difference cell − none over the seeds both have (runs that share a seed share the warm start, the training instances and the random streams, so the comparison is paired); its mean and t interval (mean ± t·sd/√n). Seeds only one side has are left out and counted as unpaired."
    },
    {
      term: "verdict: ▲ better, ▼ worse, cannot separate",
      text: `p is the ${family.test === "sign-flip" ? `exact sign-flip permutation test of the mean difference (all 2^n sign patterns up to n = ${EXACT_MAX_PAIRS}; its smallest p is 2/2^n, 0.0625 at n = 5)` : "paired t-test"}, chosen by the calibration in docs/leaderboard.md. Holm's step-down correction over every comparison of a score on the page (${family.primary} on the area${family.selection ? `, ${family.selection} of them against a matched random control` : ""}, ${family.last3} on last-3, ${family.peak} on peak, ${family.factAuc} on the fact area) at family-wise α = ${family.alpha}; a comparison whose smallest p exceeds α cannot be rejected at any family size and leaves the family (Tarone 1990). ▲ better / ▼ worse: Holm rejects "no difference", by the sign of Δ; the Δ interval is read at its Holm level (the level column). "n = 5 cannot separate at this family size": even the most extreme result at this n could not pass the page's Holm threshold, so no interval is shown. Nothing: tested and not separated. p(Holm) is the adjusted p.`
    },
    ...lb.filters.filter(isPositiveControl).map((f) => ({
      term: f,
      text: "The positive control: a filter known to hurt (the suite's is Table 6's Q4: keep only the quarter of groups with the lowest reward spread, which the paper reports hurts). It is there to show the page's power: when it separates below none, the suite can detect a bad filter at these seeds; when it does not, no other verdict on the page can be trusted to find one."
    })),
    {
      term: "none′ (noise floor)",
      text: "The no-filter configuration with only the rollout sampling stream changed (train.samplingStream ≠ 0), paired against none: what a difference of nothing looks like. A reference: tested alone at α, never in the Holm family, the ranking or the best mark. A filter name with ′(stream=k) is that filter run on another sampling stream."
    },
    {
      term: "kept groups, kept non-zero-spread",
      text: "Mean per run of the fraction of groups the filter kept (filter/kept_ratio) and of the groups with non-zero reward spread that it kept (1 − filter/dropped_nonzero / (P − filter/zero_variance_groups)); a filter that keeps ~100% of both is close to no filter. Compact records keep the evaluation steps only (the mean is over those); — where not logged."
    },
    {
      term: "none does not learn",
      text: "A row where none's validation success is 0 at every evaluation, ≥ 90% of its groups have zero reward spread (no advantage signal), or its area does not rise above its step-0 success at a number of seeds that could show it (and none does not collapse there): shown, with the reason, but left out of the ranking, IQM and P(> none)."
    },
    {
      term: "none collapses",
      text: "A row where none rises then collapses on at least two thirds of its seeds (at least 3): success rises above step 0, then its last-3 ends at least 10 points below its peak, without a blow-up (the collapse track's gate, docs/results/calibration.md §5). The paper's regime: the row stays in the ranking, IQM and P(> none) even where its area ends below step 0."
    },
    {
      term: "seeds for ±5",
      text: "Seeds a paired comparison would need to detect a 5-point difference in the area with 80% power under the page's Holm: two-sided at the page's first Holm threshold α/m (m: the page's comparisons of two pairs or more), from the observed sd of its per-seed differences (the t form: the smallest n with n ≥ ((t1−α/2m,n−1 + t.80,n−1)·sd/0.05)²), and never fewer than the test needs to pass α/m at all. The noise floor, tested alone, at α."
    },
    ...((family.selection ?? 0) > 0
      ? [
          {
            term: "selection (Δ vs control)",
            text: `A filter against its random control at the same kept count (random with like naming the filter and its options; random at ratio r for the quantile filter keeping the lowest-spread slice of width r): the per-seed difference filter − control on the area. A filter that drops groups also takes fewer optimizer steps; the control keeps as many groups on each batch, so this difference is about which groups are kept with the update budget held equal, where Δ vs none mixes the two. Its ${family.selection} comparison${family.selection === 1 ? "" : "s"} are in the same Holm family as those with none (${family.primary} on the area).`
          }
        ]
      : []),
    {
      term: "IQM",
      text: `Across the rows of one algorithm where none learns or collapses (each row a task, normally an env): the interquartile mean of every (run, row) normalized score, the mean of the middle 50% (Agarwal et al. 2021, rliable), with a 95% stratified-bootstrap interval (${DEFAULT_RESAMPLES} runs resampled within each row). Normalized = success / the teacher's success, 1.0 on every built-in env${assumed.length ? `; assumed 1.0 for ${assumed.join(", ")}` : ""}.`
    },
    {
      term: "P(> none)",
      text: "Probability of improvement (rliable): per row, the chance that a run of the filter scores above a run of none, ties counting ½, averaged over the rows both have where none learns or collapses; 95% stratified-bootstrap interval. 0.5 = no difference."
    },
    {
      term: "budget",
      text: "Per run, summed over its steps: env steps (budget/env_steps), tokens (budget/tokens), rollouts drawn (budget/rollouts) and optimizer steps (train/optimizer_steps); a cell shows the mean per run. — where the runs did not log it (older runs). A filter that draws more rollouts or takes fewer updates shows it here."
    }
  ]
}
