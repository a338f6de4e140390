/**
 * Flags shared by `eval` and `diagnose`: which env, which policy and its options, and the
 * rollout settings, resolved through the Registry and decoded strictly (a misspelt option is
 * a one-line error with a hint). The recorded policy options hold the API key's variable
 * name (apiKeyEnv), never the key.
 */
import { Console, Effect } from "effect"
import { type CommandOption, type EnvSpec, type Policy, type PolicySpec, type WarmStart, warmStartRef } from "../../core/contracts/index.ts"
import { decodeInput, DEFAULT_MAX_TOKENS, FORBIDDEN_KEYS, listFlag, numberFlag, Registry, type RolloutSettings, type UnknownIdError, UsageError, type UserError } from "../../core/host.ts"
import { userPromise } from "./effect.ts"
import type { ServedModel } from "./policy.ts"
import { defaultWarmStart, promptStyleOf, warmStartOfCheckpoint } from "./warm-start.ts"

export const agentFlags: ReadonlyArray<CommandOption> = [
  { flags: "--env <id>", description: "Env id (e.g. frozenlake, countdown; see ragen-bench list envs)" },
  { flags: "--env-option <key=value>", description: "Env option, repeatable (e.g. --env-option successRate=0.8)" },
  { flags: "--policy <id>", description: "Policy: openai (a served model) or tinylm (default tinylm)" },
  { flags: "--base-url <url>", description: "openai: server root with /v1 (e.g. http://127.0.0.1:8000/v1)" },
  { flags: "--model <name>", description: "openai: model name as the server lists it" },
  { flags: "--api-key-env <VAR>", description: "openai: environment variable holding the API key" },
  { flags: "--template <name>", description: "openai: prompt format for /v1/completions: raw, qwen2.5, llama3, custom" },
  { flags: "--endpoint <kind>", description: "openai: completions (default) or chat" },
  {
    flags: "--checkpoint <file|id>",
    description: "tinylm: a checkpoint written by sft or train, or a warm start's id (ragen-bench list warmstarts); default: the env's shipped warm start"
  },
  { flags: "--untrained", description: "tinylm: an untrained model instead of the env's warm start" },
  { flags: "--policy-option <key=value>", description: "Any policy option, repeatable (e.g. --policy-option concurrency=4)" },
  { flags: "--temperature <t>", description: "Sampling temperature" },
  { flags: "--top-p <p>", description: "Nucleus mass (default 1)" },
  { flags: "--min-p <p>", description: "Min-p (default 0)" },
  { flags: "--max-tokens <n>", description: "Tokens per turn (default: the env's, else 64)" },
  { flags: "--max-turns <n>", description: "Turns per episode (default: the env's)" },
  { flags: "--seed <n>", description: "Seed of sampling and of the statistics (default 1)" },
  {
    flags: "--instructions <when>",
    description:
      "Show the env's task description in prompts: auto (as the model's trainer did: tinylm, and models served by ragen-bench serve, leave it out on Markov envs; other served models see it), always, never"
  }
]

const parseValue = (v: string): unknown => {
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}

/** key=value pairs into an object; a bad pair or a forbidden key is a UsageError naming the flag. */
export const pairsOf = (values: ReadonlyArray<string>, flag: string): Effect.Effect<Record<string, unknown>, UsageError> =>
  Effect.gen(function* () {
    const out: Record<string, unknown> = {}
    for (const s of values) {
      const eq = s.indexOf("=")
      if (eq <= 0) return yield* new UsageError({ field: flag, message: `${flag} ${s}: expected key=value` })
      const k = s.slice(0, eq)
      if (FORBIDDEN_KEYS.has(k)) return yield* new UsageError({ field: flag, message: `${flag}: "${k}" is not allowed as a key` })
      out[k] = parseValue(s.slice(eq + 1))
    }
    return out
  })

export interface AgentSetup {
  readonly envId: string
  readonly spec: EnvSpec
  readonly envOptions: unknown
  readonly policyId: string
  readonly policySpec: PolicySpec
  readonly policyOptions: unknown
  /** The options as given (recorded in run files; decoded ones may hold defaults only); a warm start as `warmStart: "<id>@<hash>"`. */
  readonly policyOptionsRaw: Record<string, unknown>
  readonly seed: number
  /** --instructions as given (auto: a served model's prompt style decides, see followServed). */
  readonly instructionsWhen: "auto" | "always" | "never"
  readonly rollout: RolloutSettings
}

export const resolveAgent = (o: Record<string, any>, defaults: { readonly temperature: number }): Effect.Effect<AgentSetup, UsageError | UnknownIdError, Registry> =>
  Effect.gen(function* () {
    if (typeof o.env !== "string") return yield* new UsageError({ field: "--env", message: "--env is required (e.g. --env frozenlake); see ragen-bench list envs" })
    const registry = yield* Registry
    const envE = yield* registry.resolve("envs", o.env)
    const spec = envE.value
    const envOptions = yield* decodeInput(spec.options, yield* pairsOf(listFlag(o.envOption), "--env-option"), `envOptions (of ${envE.fullId})`)
    const policyE = yield* registry.resolve("policies", typeof o.policy === "string" ? o.policy : "tinylm")
    const raw: Record<string, unknown> = yield* pairsOf(listFlag(o.policyOption), "--policy-option")
    const named: Array<[string, string]> = [
      ["baseUrl", "baseUrl"],
      ["model", "model"],
      ["apiKeyEnv", "apiKeyEnv"],
      ["template", "template"],
      ["endpoint", "endpoint"],
      ["checkpoint", "init"]
    ]
    for (const [flag, key] of named) if (o[flag] !== undefined && o[flag] !== true) raw[key] = String(o[flag])
    // tinylm: the env's shipped warm start unless --checkpoint or --untrained says otherwise (as serve);
    // recorded by id and hash (warmStart), never by the file's path.
    let warm: WarmStart | undefined
    if (o.untrained && policyE.value.id !== "tinylm") return yield* new UsageError({ field: "--untrained", message: "--untrained is for --policy tinylm" })
    if (policyE.value.id === "tinylm") {
      if (o.untrained && raw.init !== undefined) return yield* new UsageError({ field: "--untrained", message: "--checkpoint and --untrained are two models; keep one of them" })
      if (typeof raw.init === "string") warm = yield* warmStartOfCheckpoint(registry, raw.init, envE.fullId)
      else if (raw.init === undefined && !o.untrained) {
        const found = yield* defaultWarmStart(registry, envE, envOptions, true)
        warm = found?.warm
        if (found && !found.sameOptions)
          yield* Console.error(`note: ${found.warm.id} (the shipped warm start of ${envE.fullId}) was trained with env options ${JSON.stringify(found.warm.envOptions)}; evaluating it on these`)
      }
    }
    const recorded: Record<string, unknown> = warm ? { ...Object.fromEntries(Object.entries(raw).filter(([k]) => k !== "init")), warmStart: warmStartRef(warm) } : raw
    if (warm) raw.init = warm.path
    if (policyE.value.id === "openai") {
      if (raw.baseUrl === undefined) return yield* new UsageError({ field: "--base-url", message: "--policy openai needs --base-url, the server root with /v1 (e.g. http://127.0.0.1:8000/v1)" })
      if (raw.model === undefined) return yield* new UsageError({ field: "--model", message: "--policy openai needs --model, the model name the server lists under /v1/models" })
    }
    const policyOptions = yield* decodeInput(policyE.value.options, raw, `policyOptions (of ${policyE.fullId})`)
    const seed = (yield* numberFlag(o.seed, "--seed", { integer: true, min: 0 })) ?? 1
    const temperature = (yield* numberFlag(o.temperature, "--temperature", { min: 0 })) ?? defaults.temperature
    const topP = (yield* numberFlag(o.topP, "--top-p", { min: 0, max: 1 })) ?? 1
    const minP = (yield* numberFlag(o.minP, "--min-p", { min: 0, max: 1 })) ?? 0
    const maxTokens = (yield* numberFlag(o.maxTokens, "--max-tokens", { integer: true, min: 1 })) ?? spec.maxTokens ?? DEFAULT_MAX_TOKENS
    const maxTurns = (yield* numberFlag(o.maxTurns, "--max-turns", { integer: true, min: 1 })) ?? spec.maxTurns
    const context = spec.markov ? "markov" : "full"
    const when = o.instructions === undefined ? "auto" : String(o.instructions)
    if (!["auto", "always", "never"].includes(when)) return yield* new UsageError({ field: "--instructions", message: `--instructions must be auto, always or never, got "${when}"` })
    // Served LLMs need the task description; the tiny policy's Markov prompts leave it out (as the trainer does).
    const show = when === "always" || (when === "auto" && !(policyE.value.id === "tinylm" && context === "markov"))
    const instructions = show ? spec.instructions(envOptions) : undefined
    const setup: AgentSetup = {
      envId: envE.fullId,
      spec,
      envOptions,
      policyId: policyE.fullId,
      policySpec: policyE.value,
      policyOptions,
      policyOptionsRaw: recorded,
      seed,
      instructionsWhen: when as AgentSetup["instructionsWhen"],
      rollout: { spec, envOptions, maxTurns, context, historyTurns: 2, instructions, maxTokens, temperature, topP, minP, formatPenalty: -0.1 }
    }
    // A warm start is prompted as its recipe's trainer prompted it (what serve tells an openai client).
    return warm ? followServed(setup, { promptStyle: yield* Effect.try({ try: () => promptStyleOf(warm), catch: (e) => e as UsageError }) }) : setup
  })

export const makePolicy = (a: AgentSetup): Effect.Effect<Policy, UserError> => userPromise(() => a.policySpec.make(a.policyOptions, { vocabulary: a.spec.vocabulary(a.envOptions), seed: a.seed }))

/**
 * With `--instructions auto`, a served model whose server says how its trainer rendered prompts
 * (`ragen-bench serve`'s prompt_style) gets them rendered the same way, resolved for this env as
 * the trainer resolves them (core/train/setup.ts): context auto = markov on Markov envs, else
 * full; instructions auto = shown unless the context is markov.
 */
export const followServed = (a: AgentSetup, served: ServedModel): AgentSetup => {
  const style = served.promptStyle
  if (a.instructionsWhen !== "auto" || !style) return a
  const context = style.context === "auto" ? (a.spec.markov ? "markov" : "full") : style.context
  const show = style.instructions === "always" || (style.instructions === "auto" && context !== "markov")
  return { ...a, rollout: { ...a.rollout, context, historyTurns: style.historyTurns, instructions: show ? a.spec.instructions(a.envOptions) : undefined } }
}

/** A prompt over the served model's context (the policy's UsageError on "prompt"): one line that names the flag that helps. */
export const withPromptHint =
  (a: AgentSetup) =>
  <A, R>(e: Effect.Effect<A, UserError, R>): Effect.Effect<A, UserError, R> =>
    Effect.mapError(e, (err) => {
      if (err._tag !== "UsageError" || err.field !== "prompt") return err
      const hint =
        a.rollout.instructions !== undefined
          ? "pass --instructions never to leave out the env's task description"
          : a.rollout.context !== "markov"
            ? "the prompt carries earlier turns; serve a model with a longer context"
            : "the prompt is the observation alone; serve a model with a longer context"
      return new UsageError({ field: "--instructions", message: `${err.message}; ${hint}` })
    })

/** A remote policy's samples cannot be reproduced bit for bit. */
export const isRemote = (p: Policy): boolean => (p as { remote?: unknown }).remote === true
