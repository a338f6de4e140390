/**
 * Everything resolved and checked before any work starts: env, algorithm, filter, policy and
 * scorer from the Registry, each one's options decoded through its schema, and the sizes
 * (P, G ≥ 1; G ≥ the algorithm's minimum, e.g. 2 for GRPO). Every mistake is a UsageError
 * naming the field and the fix.
 */
import { Effect } from "effect"
import type { Algorithm, EnvSpec, Filter, PolicySpec, ScorerSpec } from "../contracts/index.ts"
import { type UnknownIdError, UsageError } from "../errors.ts"
import { Registry } from "../registry.ts"
import { decodeInput } from "../schema/decode.ts"
import { RunConfig } from "../schema/run-config.ts"
import { DEFAULT_MAX_TOKENS, type ResolvedTrainOptions, TrainOptions } from "./options.ts"
import type { RolloutSettings } from "./rollout.ts"

export interface TrainSetup {
  readonly config: RunConfig
  readonly opts: ResolvedTrainOptions
  readonly spec: EnvSpec
  readonly envOptions: unknown
  readonly algo: Algorithm
  readonly algoOptions: any
  readonly filterId: string
  readonly filter: Filter
  readonly filterOptions: unknown
  readonly policySpec: PolicySpec
  readonly policyOptions: unknown
  readonly scorerSpec: ScorerSpec | undefined
  readonly scorerOptions: unknown
  readonly rollout: RolloutSettings
}

export const resolveSetup = (raw: unknown): Effect.Effect<TrainSetup, UsageError | UnknownIdError, Registry> =>
  Effect.gen(function*() {
    const config = yield* decodeInput(RunConfig, raw, "config")
    const decoded = yield* decodeInput(TrainOptions, config.train, "train")
    const registry = yield* Registry
    const env = yield* registry.resolve("envs", config.env)
    const spec = env.value
    const opts: ResolvedTrainOptions = { ...decoded, maxTokens: decoded.maxTokens ?? spec.maxTokens ?? DEFAULT_MAX_TOKENS }
    const envOptions = yield* decodeInput(spec.options, config.envOptions, `envOptions (of ${env.fullId})`)
    const algoE = yield* registry.resolve("algorithms", config.algo)
    const algo = algoE.value
    // The generation cap is the length DAPO's overlong shaping measures against.
    const algoOptions = yield* decodeInput(algo.options, { maxLength: opts.maxTokens, ...config.algoOptions }, `algoOptions (of ${algoE.fullId})`)
    const filterE = yield* registry.resolve("filters", config.filter)
    const filterOptions = yield* decodeInput(filterE.value.options, config.filterOptions, `filterOptions (of ${filterE.fullId})`)
    const policyE = yield* registry.resolve("policies", config.policy)
    if (!policyE.value.trainable) {
      return yield* new UsageError({ field: "policy", message: `policy "${policyE.fullId}" is not trainable; pick a trainable policy (e.g. tinylm) for train` })
    }
    const policyOptions = yield* decodeInput(policyE.value.options, config.policyOptions, `policyOptions (of ${policyE.fullId})`)
    if (config.G < algo.minGroupSize) {
      return yield* new UsageError({
        field: "G",
        message: `${algoE.fullId} needs at least G = ${algo.minGroupSize} trajectories per prompt (group statistics), got G = ${config.G}; raise --G or use --algo ppo`
      })
    }
    const scorerEntry = opts.diagEvery > 0 ? registry.data.entries.scorers.length > 0 ? yield* registry.resolve("scorers", opts.scorer) : undefined : undefined
    const scorerOptions = scorerEntry ? yield* decodeInput(scorerEntry.value.options, {}, `scorer (${scorerEntry.fullId})`) : undefined
    const context = opts.context === "auto" ? (spec.markov ? "markov" : "full") : opts.context
    const instructions = opts.instructions === "always" || (opts.instructions === "auto" && context !== "markov")
      ? spec.instructions(envOptions)
      : undefined
    const rollout: RolloutSettings = {
      spec,
      envOptions,
      maxTurns: opts.maxTurns ?? spec.maxTurns,
      context,
      historyTurns: opts.historyTurns,
      instructions,
      maxTokens: opts.maxTokens,
      temperature: opts.temperature,
      topP: opts.topP,
      minP: opts.minP,
      formatPenalty: opts.formatPenalty
    }
    return {
      config,
      opts,
      spec,
      envOptions,
      algo,
      algoOptions,
      filterId: filterE.fullId,
      filter: filterE.value,
      filterOptions,
      policySpec: policyE.value,
      policyOptions,
      scorerSpec: scorerEntry?.value,
      scorerOptions,
      rollout
    }
  })
