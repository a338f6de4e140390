/** What each statistic on the page means, in plain text (each renderer escapes it). */
import { MIN_PAIRS_TO_SEPARATE } from "./statistics/paired.ts"
import { DEFAULT_RESAMPLES } from "./statistics/bootstrap.ts"
import type { Leaderboard } from "./schema.ts"

export interface LegendItem {
  readonly term: string
  readonly text: string
}

export const legendItems = (lb: Leaderboard): LegendItem[] => {
  const assumed = (lb.normalizers ?? []).filter((n) => n.assumed).map((n) => n.env)
  const family = lb.family ?? { peak: 0, last3: 0, alpha: 0.05 }
  return [
    {
      term: "peak, last-3",
      text: `A run's score two ways from its ${lb.metric} curve: peak = the highest evaluation (as the paper reports it); last-3 = the mean of its last 3 evaluations (the end of training; the peak of many noisy evaluations is biased upward). Shown in %: the mean over seeds, [its 95% percentile-bootstrap interval] (${DEFAULT_RESAMPLES} seeded resamples), and n seeds; one seed has no interval.`
    },
    {
      term: "Δ vs none",
      text: "The per-seed difference cell − none over the seeds both have (runs that share a seed share the warm start, the training instances and the random streams, so the comparison is paired); its mean and percentile-bootstrap interval. Seeds only one side has are left out and counted as unpaired."
    },
    {
      term: "separated ✓",
      text: `Holm's step-down correction over every comparison on the page (${family.peak} on peak, ${family.last3} on last-3, each score its own family) rejects "no difference" at family-wise α = ${family.alpha}. Each Δ interval is read at its Holm level 1 − α/(m − k) (the level column; k = its rank by p), so a ✓ interval always excludes 0 (one without ✓ may too, when Holm stopped at a comparison ranked before it). p is the two-sided bootstrap p, p(Holm) the adjusted one. With few seeds a bootstrap interval is narrower than it should be (it cannot reach beyond the differences seen): read it with the seeds column and the noise floor. A comparison with fewer than ${MIN_PAIRS_TO_SEPARATE} pairs is not tested (n<${MIN_PAIRS_TO_SEPARATE}).`
    },
    {
      term: "none′ (noise floor)",
      text: "The no-filter configuration with only the rollout sampling stream changed (train.samplingStream ≠ 0), paired against none: what a difference of nothing looks like. A reference: never in the Holm family, the ranking or the best mark. A filter name with ′(stream=k) is that filter run on another sampling stream."
    },
    {
      term: "seeds for ±5",
      text: "Seeds a paired comparison would need to detect a 5-point difference with 80% power at two-sided α 0.05, from the observed sd of its per-seed differences: n = ⌈((z.975 + z.80)·sd/0.05)²⌉, the normal approximation (at least 2); — with one pair."
    },
    {
      term: "IQM",
      text: `Across the rows of one algorithm (each row a task, normally an env): the interquartile mean of every (run, row) normalized score, the mean of the middle 50% (Agarwal et al. 2021, rliable), with a 95% stratified-bootstrap interval (runs resampled within each row). Normalized = success / the teacher's success, 1.0 on every built-in env${assumed.length ? `; assumed 1.0 for ${assumed.join(", ")}` : ""}.`
    },
    {
      term: "P(> none)",
      text: "Probability of improvement (rliable): per row, the chance that a run of the filter scores above a run of none, ties counting ½, averaged over the rows both have; 95% stratified-bootstrap interval. 0.5 = no difference."
    },
    {
      term: "budget",
      text: "Per run, summed over its steps: env steps (budget/env_steps), tokens (budget/tokens), rollouts drawn (budget/rollouts) and optimizer steps (train/optimizer_steps); a cell shows the mean per run. — where the runs did not log it (older runs). A filter that draws more rollouts or takes fewer updates shows it here."
    }
  ]
}
