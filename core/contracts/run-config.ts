/**
 * The resolved configuration of one training run. Its content hash is the run id; it is
 * written to config.json and is all that is needed to re-run the run.
 * Defaults are the paper's reference code's (docs/design.md §3).
 */
import { Schema } from "effect"
import { withDefault as dflt } from "./defaults.ts"

const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Options = Schema.Record(Schema.String, Schema.Unknown)

export const RunConfig = Schema.Struct({
  /** Env id (registry id) and its options. */
  env: Schema.String,
  envOptions: dflt(Options, {}),
  /** Algorithm id and its options. */
  algo: dflt(Schema.String, "grpo"),
  algoOptions: dflt(Options, {}),
  /** Filter id and its options (after --filter-value is applied). */
  filter: dflt(Schema.String, "none"),
  filterOptions: dflt(Options, {}),
  /** Policy id and options (e.g. {preset: "tiny"}). */
  policy: dflt(Schema.String, "tinylm"),
  policyOptions: dflt(Options, {}),
  /** Prompts per step and trajectories per prompt. */
  P: dflt(PosInt, 8),
  G: dflt(PosInt, 16),
  steps: dflt(NonNegInt, 200),
  seed: dflt(Schema.Int, 1),
  lr: dflt(Schema.Finite, 1e-4),
  /**
   * Options of the cross-scorer (train.scorer) the MI diagnostics use. Optional, not defaulted:
   * left out, it is absent from the resolved config too, so configs (and run ids) that never set
   * it are unchanged since it was added (docs/decisions.md#issue-24).
   */
  scorerOptions: Schema.optional(Options),
  /** Everything else the trainer reads (rollout, regularisers, eval, diagnostics); see core/train. */
  train: dflt(Options, {})
})
export type RunConfig = typeof RunConfig.Type
