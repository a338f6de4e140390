/**
 * The metric vocabulary (STYLE.md, cleanrl's closed list of `charts/*`, `losses/*`): every key
 * the trainer writes to a run's metrics.jsonl, with its meaning. This module is the single
 * source of truth: docs/metrics.md's tables are rendered from it (core/metrics/doc.ts) and
 * test/metrics/ fails when a short real training emits a key it does not know, or when the doc
 * and this list disagree. A new metric is a new row here, then `bun core/metrics/doc.ts --write`.
 *
 * A key may hold placeholders `<name>` (e.g. `val/success@<T>`); each placeholder is defined in
 * `placeholders` by a pattern and a meaning. Keys with placeholders are patterns: they match
 * every key the code builds from them (`val/success@0.5`, `val/success@1.0`, ...).
 */

export interface MetricKeyDef {
  /** The key, or a pattern with `<placeholder>`s. */
  readonly key: string
  /** What it measures, with its unit or range. */
  readonly meaning: string
}

export interface MetricGroup {
  /** Heading in docs/metrics.md, usually the prefix (`train/*`). */
  readonly title: string
  /** When the group is logged and what the keys share. */
  readonly about: string
  readonly keys: ReadonlyArray<MetricKeyDef>
}

export interface Placeholder {
  /** A regular expression source (no anchors) for one value of the placeholder. */
  readonly pattern: string
  readonly meaning: string
}

export const placeholders: Readonly<Record<string, Placeholder>> = {
  T: { pattern: "[0-9]+(?:\\.[0-9]+)?(?:e[-+]?[0-9]+)?", meaning: "a validation temperature as the trainer labels it (`0.5`, `1.0`; integers get one decimal)" },
  scope: {
    pattern: "first_turn|trajectory|probe_first_turn",
    meaning: "the MI rows (docs/diagnostics.md): `first_turn` (the batch's first turns), `trajectory` (random turns), `probe_first_turn` (the fixed validation probe)"
  },
  filter: { pattern: "[^/]+", meaning: "the filter's local id (`top-p`, `dapo-dynamic`, a plugin's filter)" },
  stat: { pattern: "[^/]+", meaning: "a key of the filter's own `stats` (finite values only)" },
  k: { pattern: "[1-9][0-9]*", meaning: "a reward-spread bucket, 1 = lowest spread … gradDecompBuckets (default 6) = highest" }
}

const rollout = (prefix: string, what: string): MetricKeyDef[] => [
  { key: `${prefix}success${what}`, meaning: "share of episodes that ended in the env's success condition (0–1)" },
  { key: `${prefix}return${what}`, meaning: "mean episode return: env rewards plus format penalties (return units)" },
  { key: `${prefix}turns${what}`, meaning: "mean turns per episode" },
  { key: `${prefix}format_valid${what}`, meaning: "share of turns whose response parsed (`<think>…</think><answer>…</answer>`) (0–1)" },
  { key: `${prefix}action_valid${what}`, meaning: "share of turns whose action the env accepted (0–1)" },
  { key: `${prefix}response_tokens${what}`, meaning: "mean generated tokens per turn" },
  { key: `${prefix}reasoning_words${what}`, meaning: "mean words of reasoning per turn (0 for an empty one)" }
]

const fidelity = (prefix: string, what: string, where: string): MetricKeyDef[] => [
  { key: `${prefix}fact_accuracy${what}`, meaning: `teacher-graded share of stated facts that are true of the state, over format-valid turns${where} (0–1; 0 when none parsed)` },
  { key: `${prefix}consistency${what}`, meaning: `teacher-graded share of format-valid turns${where} whose action follows from the stated reasoning (0–1)` }
]

export const metricGroups: ReadonlyArray<MetricGroup> = [
  {
    title: "step",
    about: "Every line has it.",
    keys: [{ key: "step", meaning: "training step: 0 = before the first update (validation of the start policy), then 1 … steps" }]
  },
  {
    title: "sft/*",
    about: "Step 0 of a run with an SFT warm start (also when the warm start came from the cache).",
    keys: [
      { key: "sft/steps", meaning: "SFT optimizer steps done" },
      { key: "sft/loss", meaning: "final SFT training loss (mean token negative log-likelihood, nats/token)" },
      { key: "sft/token_acc", meaning: "held-out token accuracy of the teacher completions (0–1)" }
    ]
  },
  {
    title: "train/*",
    about: "The training batch (pre-filter rollout statistics) and the update's bookkeeping, every step.",
    keys: [
      ...rollout("train/", ""),
      { key: "train/entropy", meaning: "token-mean policy entropy in the update's forward passes, first epoch (nats/token)" },
      { key: "train/draws", meaning: "rollout draws this step (> 1: dynamic sampling drew more prompts)" },
      { key: "train/kept_groups", meaning: "groups kept over all draws, capped at P" },
      { key: "train/kept_items", meaning: "training sequences (turns with tokens) of the kept trajectories, before padding" },
      { key: "train/minibatch_turns", meaning: "mean training sequences (turns) per minibatch, padding copies included" },
      { key: "train/skipped_update", meaning: "1 when nothing was kept (no optimizer step), else 0" },
      { key: "train/optimizer_steps", meaning: "optimizer steps taken (epochs × minibatches; minibatches of minibatchTrajectories whole trajectories by default, so fewer when a filter keeps fewer)" },
      { key: "train/grad_norm", meaning: "global gradient norm before clipping, mean over minibatches (absent when no step)" }
    ]
  },
  {
    title: "reasoning/*",
    about: "Teacher-graded reasoning fidelity (docs/design.md §4): of the training batch every step; of the validation probe on evaluation steps.",
    keys: [
      ...fidelity("reasoning/", "", " of the training batch"),
      {
        key: "reasoning/probe_fact_accuracy",
        meaning: "`reasoning/fact_accuracy` on the fixed validation seeds at the headline temperature (= `val/fact_accuracy@<T>` of the first T), evaluation steps"
      },
      { key: "reasoning/probe_consistency", meaning: "`reasoning/consistency` on the fixed validation seeds at the headline temperature, evaluation steps" }
    ]
  },
  {
    title: "budget/*",
    about: "What the step spent, every draw included (dynamic-sampling redraws too); the leaderboard sums them per run, so a filter that draws more or updates less shows it.",
    keys: [
      { key: "budget/rollouts", meaning: "trajectories rolled out this step (P × G per draw)" },
      { key: "budget/env_steps", meaning: "turns taken by those trajectories (each turn is one env interaction, a response that did not parse included)" },
      { key: "budget/tokens", meaning: "tokens generated by those trajectories" }
    ]
  },
  {
    title: "rollout/*",
    about: "The sampler, every step.",
    keys: [{ key: "rollout/neg_logprob", meaning: "mean −log p of the sampled tokens under the untempered policy (nats/token)" }]
  },
  {
    title: "filter/*",
    about:
      "What the filter kept of the first (pre-redraw) batch and the reward spread (RV) of its P groups (the paper's Table 8), every step. RV is the filter's own score of a group's returns: the unbiased std, or the variance for a filter that ranks by it (`Filter.scoreMetric`).",
    keys: [
      { key: "filter/kept_groups", meaning: "groups with at least one kept trajectory (0–P)" },
      { key: "filter/kept_ratio", meaning: "`filter/kept_groups` / P (0–1)" },
      { key: "filter/kept_trajectories", meaning: "kept trajectories (0–P·G)" },
      { key: "filter/zero_variance_groups", meaning: "groups whose reward spread is ≤ 1e-10 (0–P)" },
      { key: "filter/dropped_nonzero", meaning: "groups with reward spread > 1e-10 that the filter dropped: advantages withheld from the update (0–P)" },
      { key: "filter/empty", meaning: "1 when the filter kept nothing of the first batch, else 0" },
      { key: "filter/rv_mean", meaning: "mean RV over the P groups (return units)" },
      { key: "filter/rv_std", meaning: "population std of RV over the P groups (return units)" },
      { key: "filter/rv_min", meaning: "min RV (return units)" },
      { key: "filter/rv_max", meaning: "max RV (return units)" },
      { key: "filter/rv_std_over_mean", meaning: "std/mean of RV (0 when the mean is 0); high = bimodal spread, where the paper finds filtering helps" },
      {
        key: "filter/<filter>/<stat>",
        meaning: "a filter's own stats, e.g. `filter/top-p/threshold` (p·Σscores − eps), `filter/dapo-dynamic/dropped` (groups with equal returns), `filter/random/target` (groups it aimed to keep)"
      }
    ]
  },
  {
    title: "mi/*",
    about: "MI proxies of the pre-filter batch (docs/design.md §6, docs/diagnostics.md), every diagEvery steps and at step 1, when a scorer is available.",
    keys: [
      { key: "mi/<scope>/retrieval_acc", meaning: "Retrieval-Acc: share of rows whose own prompt ranks first in its cross-score row (0–1; chance 1/N)" },
      { key: "mi/<scope>/recall_at_2", meaning: "own prompt in the row's top 2 (0–1; chance 2/N)" },
      { key: "mi/<scope>/recall_at_4", meaning: "own prompt in the row's top 4 (0–1; chance 4/N)" },
      { key: "mi/<scope>/recall_at_8", meaning: "own prompt in the row's top 8 (0–1; chance 8/N)" },
      { key: "mi/<scope>/retrieval_acc_argmax", meaning: "Retrieval-Acc as the reference counts it: torch.argmax, a tie goes to the lowest column (0–1)" },
      { key: "mi/<scope>/chance", meaning: "chance of retrieval_acc: mean over rows of c/N, c = columns holding the row's own prompt (1/N without duplicate prompts)" },
      { key: "mi/<scope>/retrieval_above_chance", meaning: "retrieval_acc − chance" },
      { key: "mi/<scope>/valid_rate", meaning: "share of the sampled turns (first turns, or all turns) whose response parsed with non-empty reasoning; only those are scored (0–1)" },
      { key: "mi/<scope>/mi_est", meaning: "MI-Est: mean(matched − marginal) on per-token means (nats/token, ≤ log N)" },
      { key: "mi/<scope>/mi_seq_est", meaning: "MI-Seq-Est: the same on sequence sums (nats/sequence, ≤ log N)" },
      { key: "mi/<scope>/mi_upper_bound", meaning: "log N (nats)" },
      { key: "mi/<scope>/mi_zscore", meaning: "MI-Est over (std of the marginal + 1e-3) (unitless)" },
      { key: "mi/<scope>/mi_zscore_ema", meaning: "the same with an EMA of that std (decay 0.9), kept across steps and checkpoints (unitless)" },
      { key: "mi/<scope>/h_z_given_x", meaning: "H(Z|X) ≈ −mean(matched) (nats/token, ≥ 0)" },
      { key: "mi/<scope>/h_z", meaning: "H(Z) ≈ −mean(marginal) (nats/token, ≥ 0)" },
      {
        key: "mi/<scope>/regime",
        meaning: "0 diverse, 1 template collapse, 2 compressed, 3 low-entropy collapse (thresholds: H(Z|X) 0.1 nats/token, MI-Seq-Est/log N 0.5; fact accuracy below 0.5 reads as MI low)"
      },
      { key: "mi/<scope>/rows", meaning: "reasoning rows R of the cross-score matrix" },
      { key: "mi/<scope>/cols", meaning: "prompt columns N of the cross-score matrix" }
    ]
  },
  {
    title: "losses/*",
    about: "The algorithm's loss terms before their coefficients, mean over minibatches, on steps with an update.",
    keys: [
      { key: "losses/policy", meaning: "clipped policy-gradient loss" },
      { key: "losses/entropy", meaning: "entropy term (nats/token, aggregated as the loss is)" },
      { key: "losses/kl", meaning: "KL to the reference policy (only with klCoef > 0)" },
      { key: "losses/value", meaning: "clipped value loss (algorithms with a value head: PPO)" },
      { key: "losses/total", meaning: "the loss that was differentiated: policy − entropyCoef·entropy + klCoef·kl + valueCoef·value" },
      { key: "losses/clipfrac", meaning: "share of tokens whose ratio was clipped (0–1)" },
      { key: "losses/dual_clipfrac", meaning: "share of tokens hit by the dual clip (negative advantages, ratio > c) (0–1)" },
      { key: "losses/approx_kl", meaning: "mean approximate KL between the old and current policy on the batch tokens" },
      { key: "losses/ratio", meaning: "mean importance ratio π/π_old over tokens" }
    ]
  },
  {
    title: "grad/*",
    about: "Gradient decomposition by reward-spread bucket (paper Fig. 3), every gradDecompEvery steps (off by default): separate backward passes, no optimizer step.",
    keys: [
      { key: "grad/task_q<k>", meaning: "gradient norm of the task (policy) loss on bucket k's groups" },
      { key: "grad/entropy_q<k>", meaning: "gradient norm of the entropy term on bucket k" },
      { key: "grad/kl_q<k>", meaning: "gradient norm of the KL term on bucket k" },
      { key: "grad/rv_q<k>", meaning: "mean reward spread of bucket k's groups (return units)" }
    ]
  },
  {
    title: "val/*",
    about: "Validation: one episode per fixed seed (valSeedStart …) at each validation temperature, at step 0, every evalEvery steps and after the last step.",
    keys: [...rollout("val/", "@<T>"), ...fidelity("val/", "@<T>", " at temperature T")]
  },
  {
    title: "collapse/*",
    about: "The collapse check (core/diagnostics/collapse.ts, train option `collapse`), every step.",
    keys: [{ key: "collapse/warning", meaning: "1 when it warns at this step (an MI proxy fell from its best while entropy held, or reasoning fact accuracy fell; the reason is logged), else 0" }]
  },
  {
    title: "charts/*",
    about: "Settings as they were at the step.",
    keys: [{ key: "charts/lr", meaning: "learning rate" }]
  },
  {
    title: "perf/*",
    about: "Timing; excluded from determinism comparisons.",
    keys: [
      { key: "perf/step_seconds", meaning: "wall time of the training step (s)" },
      { key: "perf/rollout_seconds", meaning: "the first rollout of the step (s)" },
      { key: "perf/diag_seconds", meaning: "MI diagnostics and gradient decomposition (s)" },
      { key: "perf/update_seconds", meaning: "advantages and optimizer steps (s)" },
      { key: "perf/tokens_per_second", meaning: "sampled tokens per second of sampling time" },
      { key: "perf/sft_seconds", meaning: "SFT warm start (s), step 0" }
    ]
  }
]

/** Every definition, in document order. */
export const metricKeys: ReadonlyArray<MetricKeyDef> = metricGroups.flatMap((g) => g.keys)

const placeholderRe = /<([A-Za-z]+)>/g
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The regular expression a key (pattern) stands for; an unknown placeholder is a bug. */
export const keyRegExp = (key: string): RegExp => {
  let src = ""
  let last = 0
  for (const m of key.matchAll(placeholderRe)) {
    const p = placeholders[m[1]!]
    if (!p) throw new Error(`metric key ${key}: unknown placeholder <${m[1]}> (define it in core/metrics/keys.ts placeholders)`)
    src += escapeRe(key.slice(last, m.index)) + `(?:${p.pattern})`
    last = m.index! + m[0].length
  }
  return new RegExp(`^${src}${escapeRe(key.slice(last))}$`)
}

export const isPattern = (key: string): boolean => /<[A-Za-z]+>/.test(key)

const exact = new Map(metricKeys.filter((d) => !isPattern(d.key)).map((d) => [d.key, d]))
const patterns = metricKeys.filter((d) => isPattern(d.key)).map((d) => ({ def: d, re: keyRegExp(d.key) }))

/** The definition a concrete key belongs to: an exact key first, else the first matching pattern. */
export const matchMetricKey = (key: string): MetricKeyDef | undefined => exact.get(key) ?? patterns.find((p) => p.re.test(key))?.def

/** Keys of a metrics line (or several) that the vocabulary does not know. */
export const unknownMetricKeys = (keys: Iterable<string>): string[] => [...new Set(keys)].filter((k) => !matchMetricKey(k)).sort()

/** Timing keys (`perf/*`, and `time/`, `timing/` a plugin may write): they differ between two runs of one config, so comparisons of results leave them aside. */
export const isTimingMetric = (name: string): boolean => /^(perf|time|timing)\//.test(name)
