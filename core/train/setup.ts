/**
 * Everything resolved and checked before any work starts: env, algorithm, filter, policy and
 * scorer from the Registry, each one's options decoded strictly through its schema (an unknown
 * key is an error naming it and the nearest known key), and the sizes (G ≥ the algorithm's
 * minimum, e.g. 2 for GRPO). Every mistake is a UsageError naming the field and the fix.
 *
 * The result carries the RESOLVED config: every default filled in and every id resolved to
 * "<plugin>/<id>". It is what config.json records and what the run id hashes, so two spellings
 * of the same settings are one run, a changed default is another, and `train --from` re-runs it.
 */
import { Effect, Schema } from "effect"
import { type Algorithm, type EnvSpec, type Filter, type Plugin, type PolicySpec, type ScorerSpec, type WarmStart, warmStartRef } from "../contracts/index.ts"
import { pluginHash } from "../config.ts"
import { seedCache } from "../env/instance-split.ts"
import { type UnknownIdError, UsageError } from "../errors.ts"
import { Registry } from "../registry.ts"
import { decodeInput } from "../schema/decode.ts"
import type { PluginRecord } from "../contracts/results.ts"
import { RunConfig } from "../contracts/run-config.ts"
import { DEFAULT_MAX_TOKENS, type ResolvedTrainOptions, TrainOptions } from "./options.ts"
import { autoMissNotice, resolveWarmStart } from "./warm-starts.ts"
import type { RolloutSettings } from "./rollout.ts"

export interface TrainSetup {
  /** The resolved config (config.json's `config`; hashed into the run id). */
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
  /** The plugins whose contributions this run uses, for config.json. */
  readonly plugins: ReadonlyArray<PluginRecord>
  /** The shipped warm start the run starts from (undefined: fresh, SFT or --init). */
  readonly warmStart: WarmStart | undefined
  /** Set when `auto` found no shipped warm start that fits though the env has some: logged at start. */
  readonly warmStartNotice: string | undefined
}

/** The encoded (JSON) form of a decoded value: decoding it again gives the same value. */
const encoded = (schema: Schema.Codec<any, any>, value: unknown): any => JSON.parse(JSON.stringify(Schema.encodeUnknownSync(schema as any)(value)))

/** Settings that exclude each other or need another: a UsageError naming the field. */
const checkTrainRules = (opts: ResolvedTrainOptions): Effect.Effect<void, UsageError> => {
  if ([opts.minibatches, opts.minibatchSize].filter((x) => x !== undefined).length > 1) {
    return Effect.fail(
      new UsageError({
        field: "train.minibatches",
        message: "train.minibatches and train.minibatchSize are two rules for the same thing; set one of them (or neither: minibatches of minibatchTrajectories whole trajectories)"
      })
    )
  }
  if (opts.sftInstanceShare !== undefined && !opts.instanceSplit) {
    return Effect.fail(
      new UsageError({
        field: "train.sftInstanceShare",
        message: "train.sftInstanceShare keeps a share of the training instances from SFT, which needs the instance split; set train.instanceSplit=true or leave sftInstanceShare out"
      })
    )
  }
  return Effect.void
}

/** The algorithm, filter, policy and scorer entries with their decoded options, each checked against the config. */
const resolveParts = (config: RunConfig, opts: ResolvedTrainOptions) =>
  Effect.gen(function* () {
    const registry = yield* Registry
    const algoE = yield* registry.resolve("algorithms", config.algo)
    const algo = algoE.value
    // The generation cap is the length DAPO's overlong shaping measures against.
    const algoOptions = yield* decodeInput(algo.options, { ...algo.trainerDefaults?.({ maxTokens: opts.maxTokens }), ...config.algoOptions }, "algoOptions")
    const filterE = yield* registry.resolve("filters", config.filter)
    const filterOptions = yield* decodeInput(filterE.value.options, config.filterOptions, "filterOptions")
    const policyE = yield* registry.resolve("policies", config.policy)
    if (!policyE.value.trainable) {
      return yield* new UsageError({ field: "policy", message: `policy "${policyE.fullId}" is not trainable; pick a trainable policy (e.g. tinylm) for train` })
    }
    const policyOptions = yield* decodeInput(policyE.value.options, config.policyOptions, "policyOptions")
    if (config.G < algo.minGroupSize) {
      return yield* new UsageError({
        field: "G",
        message: `${algoE.fullId} needs at least G = ${algo.minGroupSize} trajectories per prompt (group statistics), got G = ${config.G}; raise --G or use --algo ppo`
      })
    }
    const scorerEntry = opts.diagEvery > 0 || opts.teacherForcing === "scorer" ? yield* registry.resolve("scorers", opts.scorer) : undefined
    if (!scorerEntry && config.scorerOptions !== undefined) {
      return yield* new UsageError({
        field: "scorerOptions",
        message: "scorerOptions is set but no scorer runs (train.diagEvery is 0 and train.teacherForcing is not scorer); set train.diagEvery > 0 or leave scorerOptions out"
      })
    }
    const scorerOptions = scorerEntry ? yield* decodeInput(scorerEntry.value.options, config.scorerOptions ?? {}, "scorerOptions") : undefined
    return { algoE, algo, algoOptions, filterE, filterOptions, policyE, policyOptions, scorerEntry, scorerOptions }
  })

/** How rollouts run: the env, its turns and context, the sampling settings. */
const rolloutSettings = (spec: EnvSpec, envOptions: unknown, opts: ResolvedTrainOptions, maxTurns: number): RolloutSettings => {
  const context = opts.context === "auto" ? (spec.markov ? "markov" : "full") : opts.context
  const instructions = opts.instructions === "always" || (opts.instructions === "auto" && context !== "markov") ? spec.instructions(envOptions) : undefined
  return {
    spec,
    envOptions,
    maxTurns,
    context,
    historyTurns: opts.historyTurns,
    instructions,
    maxTokens: opts.maxTokens,
    temperature: opts.temperature,
    topP: opts.topP,
    minP: opts.minP,
    formatPenalty: opts.formatPenalty,
    ...(opts.instanceSplit ? { instanceSplit: seedCache() } : {})
  }
}

export const resolveSetup = (raw: unknown): Effect.Effect<TrainSetup, UsageError | UnknownIdError, Registry> =>
  Effect.gen(function* () {
    const config = yield* decodeInput(RunConfig, raw, "config")
    const decoded = yield* decodeInput(TrainOptions, config.train, "train")
    const registry = yield* Registry
    const env = yield* registry.resolve("envs", config.env)
    const spec = env.value
    const envOptions = yield* decodeInput(spec.options, config.envOptions, "envOptions")
    const maxTurns = decoded.maxTurns ?? spec.maxTurns
    const opts: ResolvedTrainOptions = { ...decoded, maxTurns, maxTokens: decoded.maxTokens ?? spec.maxTokens ?? DEFAULT_MAX_TOKENS }
    yield* checkTrainRules(opts)
    const { algoE, algo, algoOptions, filterE, filterOptions, policyE, policyOptions, scorerEntry, scorerOptions } = yield* resolveParts(config, opts)
    const train = { ...encoded(TrainOptions, decoded), maxTurns, maxTokens: opts.maxTokens, ...(scorerEntry ? { scorer: scorerEntry.fullId } : {}) }
    const warmStarts = registry.list("warmstarts")
    const query = {
      env: env.fullId,
      envOptions: encoded(spec.options, envOptions),
      policy: policyE.fullId,
      policyOptions: encoded(policyE.value.options, policyOptions),
      train
    }
    const ws = yield* resolveWarmStart(warmStarts, query)
    const wsPlugin = ws ? warmStarts.find((e) => e.value === ws)?.plugin : undefined
    const resolved: RunConfig = {
      ...config,
      env: env.fullId,
      envOptions: encoded(spec.options, envOptions),
      algo: algoE.fullId,
      algoOptions: encoded(algo.options, algoOptions),
      filter: filterE.fullId,
      filterOptions: encoded(filterE.value.options, filterOptions),
      policy: policyE.fullId,
      policyOptions: encoded(policyE.value.options, policyOptions),
      // Recorded only when set, with its defaults filled in (see RunConfig.scorerOptions).
      ...(scorerEntry && config.scorerOptions !== undefined ? { scorerOptions: encoded(scorerEntry.value.options, scorerOptions) } : {}),
      train: { ...train, warmStart: ws ? warmStartRef(ws) : "none" }
    }
    const used = new Set([env.plugin, algoE.plugin, filterE.plugin, policyE.plugin, ...(scorerEntry ? [scorerEntry.plugin] : []), ...(wsPlugin ? [wsPlugin] : [])])
    const plugins = registry.data.plugins.filter((p: Plugin) => used.has(p.name)).map((p: Plugin) => ({ name: p.name, version: p.version, hash: pluginHash(p) }))
    return {
      config: resolved,
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
      rollout: rolloutSettings(spec, envOptions, opts, maxTurns),
      plugins,
      warmStart: ws,
      warmStartNotice: autoMissNotice(warmStarts, query, ws)
    }
  })
