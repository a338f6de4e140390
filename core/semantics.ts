/**
 * The results-semantics version: what a run's numbers mean beyond its options. It is hashed into
 * every run id, so a change of code that changes numbers without changing any option (a filter
 * rule, how a loss is aggregated, how minibatches are cut, the SFT seeds) gives new run ids: an
 * old run is never resumed, skipped as complete, or pooled on the leaderboard with new ones.
 *
 * Bump it with every such change and say why below. test/train/semantics.test.ts pins a short
 * run's metrics per version and fails when they change while the version did not.
 *
 * 1 — before versioning (results format 1).
 * 2 — filters as the paper's reference (top-p with p ≥ 1 drops zero-spread groups, min-p/top-k/
 *     quantile/within-group rounding); minibatches of 32 whole trajectories; AdamW betas
 *     (0.9, 0.999); SFT teacher seeds from 1,000,000; MI rows of valid first turns only; the
 *     harness's time limit; model-agnostic env text.
 * 3 — the run seed chooses the training instances (trainInstances per-seed); validation and
 *     training/SFT instances disjoint (instanceSplit); shipped warm starts by default
 *     (warmStart auto); budget/* metrics.
 */
export const SEMANTICS_VERSION = 3
