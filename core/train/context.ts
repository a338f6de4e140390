/** What every part of one training run shares: the resolved setup, the policy, the reference, the scorer. */
import type { CrossScorer, Policy, ResolvedFilter, TrainablePolicy } from "../contracts/index.ts"
import type { MiEma } from "../diagnostics/mi.ts"
import type { TrainSetup } from "./setup.ts"

export interface TrainContext {
  readonly s: TrainSetup
  readonly policy: TrainablePolicy
  /** The reference policy for KL (the RL start's snapshot); undefined when klCoef is 0. */
  readonly ref: Policy | undefined
  readonly scorer: CrossScorer | undefined
  /** MI z-score EMA states, per metric prefix (checkpointed). */
  readonly miEma: Record<string, MiEma>
  /** Any registered filter by id (the `random` control matches another filter's kept count). */
  readonly resolveFilter: (id: string) => ResolvedFilter
}

/** A training step found no usable update (non-finite loss or gradient): the run fails, its last checkpoint kept. */
export class NonFiniteUpdate extends Error {
  override readonly name = "NonFiniteUpdate"
}
