/**
 * TrainOptions: every trainer knob, decoded from RunConfig.train with the defaults of the paper's
 * reference code (docs/design.md §3) and of the independent implementation of docs/design.md §10.
 * Set from the CLI with `--set key=value` (e.g. `--set evalEvery=5 --set context=last-k`).
 */
import { Schema } from "effect"
import { LossAggOption } from "../contracts/algorithm.ts"
import { CollapseThresholds } from "../diagnostics/collapse.ts"
import { withDefault as dflt } from "../contracts/defaults.ts"
import { DEFAULT_FORMAT_PENALTY } from "../prompt.ts"

const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonNegInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const NonNeg = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

export const TrainOptions = Schema.Struct({
  // ---- rollout
  /** Turns per episode; default: the env spec's maxTurns (paper: 5). */
  maxTurns: Schema.optional(PosInt),
  /** Per-turn context: markov = current observation only; last-k = the last k turns; full = all; auto = markov for grid envs (spec.markov), else full. */
  context: dflt(Schema.Literals(["auto", "markov", "last-k", "full"]), "auto"),
  /** k for context last-k. */
  historyTurns: dflt(PosInt, 2),
  /** Env instructions at the top of each prompt: auto = omitted in markov mode (short prompts for small policies). */
  instructions: dflt(Schema.Literals(["auto", "always", "never"]), "auto"),
  /** Generation cap per turn (tokens); default: the env spec's maxTokens, else 64. */
  maxTokens: Schema.optional(PosInt),
  /** Training sampling temperature (paper: 1.0); topP/minP off by default. */
  temperature: dflt(NonNeg, 1),
  topP: dflt(Schema.Finite, 1),
  minP: dflt(NonNeg, 0),
  /** Format penalty once per turn whose response does not parse (paper: −0.1). */
  formatPenalty: dflt(Schema.Finite, DEFAULT_FORMAT_PENALTY),
  /** First training seed (paper: 10000); step s uses seeds trainSeedStart + (s−1)·P … under trainInstances "shared". */
  trainSeedStart: dflt(Schema.Int, 10000),
  /** per-seed: the run seed chooses the training instances (seeds replicate over instances); shared: every run seed trains on the same ones (core/train/instances.ts). */
  trainInstances: dflt(Schema.Literals(["per-seed", "shared"]), "per-seed"),
  /** Validation and training/SFT instances disjoint by construction (core/env/instance-split.ts). */
  instanceSplit: dflt(Schema.Boolean, true),
  /** ≠ 0: another policy-sampling stream with everything else equal (the leaderboard's noise floor). */
  samplingStream: dflt(Schema.Int, 0),
  // ---- validation
  /** Validation temperatures; the first is the headline one (paper: 0.5; 1.0 shows action noise). */
  valTemperatures: dflt(Schema.Array(NonNeg), [0.5, 1.0]),
  /** Number of fixed validation seeds valSeedStart.. (§10 uses 256). */
  valSeeds: dflt(NonNegInt, 256),
  valSeedStart: dflt(Schema.Int, 123),
  /** Validation episodes kept per evaluation in samples.jsonl (the first validation seeds, headline temperature; 0 = none). */
  evalSamples: dflt(NonNegInt, 4),
  /** Validate every N steps, before training (step 0) and after the last step; 0 = only at 0 and the end. */
  evalEvery: dflt(NonNegInt, 10),
  // ---- diagnostics
  /** MI diagnostics every N steps and at step 1 (0 = off). */
  diagEvery: dflt(NonNegInt, 5),
  /** Reasoning rows for the MI cross-scoring (first turns + sampled turns). */
  diagRows: dflt(PosInt, 128),
  /** Gradient decomposition by reward-spread bucket every N steps (0 = off; costs ~3 extra backward passes). */
  gradDecompEvery: dflt(NonNegInt, 0),
  gradDecompBuckets: dflt(PosInt, 6),
  /** CrossScorer backend (registry id) for the MI proxies. */
  scorer: dflt(Schema.String, "cpu"),
  /**
   * Where the update's teacher-forced passes run (recomputed old log-probs and values, the
   * reference KL's log-probs): the policy's own forward (unset), or `scorer`, the scorer's
   * device (webgpu) when it has a forward for the policy. No default, so unset runs keep their ids.
   */
  teacherForcing: Schema.optional(Schema.Literals(["policy", "scorer"])),
  /** Collapse warning (logged as collapse/warning) and the reference code's early-stopping rules (off by default). */
  collapse: dflt(CollapseThresholds, {}),
  // ---- update
  entropyCoef: dflt(Schema.Finite, 0.001),
  klCoef: dflt(NonNeg, 0),
  /** k1 = log π − log π_ref; k3 = the low-variance estimator (verl low_var_kl). */
  klEstimator: dflt(Schema.Literals(["k1", "k3"]), "k3"),
  /**
   * Whole trajectories per minibatch (the reference's ppo_mini_batch_size: 32 at 128 trajectories
   * per step): the kept trajectories are shuffled and padded by copies to a multiple of it, so a
   * filter that keeps fewer groups takes fewer optimizer steps (core/train/update.ts).
   */
  minibatchTrajectories: dflt(PosInt, 32),
  /** Instead: a fixed count of minibatches per epoch over the kept turns (the rule before semantics 2). */
  minibatches: Schema.optional(PosInt),
  /** Instead: minibatches of about this many turns (round(kept turns / size), at least 1). */
  minibatchSize: Schema.optional(PosInt),
  epochs: dflt(PosInt, 1),
  /** Override of the algorithm's loss aggregation. */
  lossAgg: Schema.optional(LossAggOption),
  /** Turn-level rule: pad the kept turns by repetition back to the unfiltered count (4 minibatches unless minibatches/minibatchSize say otherwise). */
  padFilteredBatch: dflt(Schema.Boolean, false),
  maxGradNorm: dflt(Schema.Finite, 1),
  /** Recompute old log-probs with a forward pass instead of the sampler's untempered ones. */
  recomputeOldLogprobs: dflt(Schema.Boolean, false),
  // ---- warm start
  /** SFT steps on teacher traces before RL (0 = none); cached under <out>/.sft-cache/. */
  sftSteps: dflt(NonNegInt, 0),
  sftLr: dflt(Schema.Finite, 2e-3),
  sftBatch: dflt(PosInt, 64),
  /** Teacher turns collected for SFT (§10: 16k). */
  sftTurns: dflt(PosInt, 16384),
  /** Teacher action noise ε and reasoning noise for SFT traces (§10 uses ε = 0.5 for RL room). */
  teacherEpsilon: dflt(NonNeg, 0.5),
  reasoningNoise: dflt(NonNeg, 0),
  /**
   * With instanceSplit: the share of the training instances SFT may see (0 < share ≤ 1); the
   * others only RL meets, so RL can fail on instances the start has not memorised
   * (docs/decisions.md#issue-26). No default, so unset runs keep their ids.
   */
  sftInstanceShare: Schema.optional(Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1))),
  /** Seed of the SFT warm start (teacher traces and SFT order); default: the run seed. Fixing it
   * shares one cached warm start across the seeds of a sweep, so seeds vary the RL only. */
  sftSeed: Schema.optional(Schema.Int),
  /** Checkpoint to start from (instead of SFT). */
  init: Schema.optional(Schema.String),
  /**
   * A shipped warm start (`ragen-bench list warmstarts`): "auto" = the one trained for this env,
   * policy and prompt shape if there is one (else none), "none", "<id>" or "<id>@<hash>". The
   * resolved config records "<id>@<hash>". sftSteps > 0 or init trains or loads another start instead.
   */
  warmStart: dflt(Schema.String, "auto"),
  // ---- bookkeeping
  checkpointEvery: dflt(NonNegInt, 10),
  keepCheckpoints: dflt(PosInt, 2)
})
export type TrainOptions = typeof TrainOptions.Type

/** The generation cap when neither the run nor the env sets one. */
export const DEFAULT_MAX_TOKENS = 64

/** Trainer options with the env-dependent defaults filled in (core/train/setup.ts). */
export type ResolvedTrainOptions = TrainOptions & { readonly maxTokens: number }
