/**
 * Which tinylm checkpoint `serve`, `eval` and `diagnose` use (docs/decisions.md#issue-42): without
 * --checkpoint, the env's shipped warm start (the warm-start registry: `ragen-bench list
 * warmstarts`), as `train` starts from it; `--checkpoint` takes a file or a warm-start id as that
 * list prints it (`frozenlake-tiny` or `tinylm/frozenlake-tiny`, optionally `@<hash>`); an
 * untrained model only with --untrained. A warm start's file is checked against its hash, and
 * the model is rendered prompts as its recipe's trainer rendered them (promptStyleOf).
 */
import { Effect, Schema } from "effect"
import { existsSync } from "node:fs"
import { canonicalJson, checkWarmStartFile, decodeSync, type Registry, TrainOptions, UsageError } from "../../core/host.ts"
import type { WarmStart } from "../../core/contracts/index.ts"
import { PromptStyle } from "./wire.ts"

type RegistryService = Registry["Service"]

/** The prompt style of a warm start's recipe, else the trainer's defaults (what `train` would use). */
export const promptStyleOf = (w: WarmStart | undefined): PromptStyle => {
  const d = decodeSync(TrainOptions, {})
  const base = d.ok ? { context: d.value.context, historyTurns: d.value.historyTurns, instructions: d.value.instructions } : {}
  const r = decodeSync(PromptStyle, { ...base, ...(w ? { context: w.recipe.context, historyTurns: w.recipe.historyTurns, instructions: w.recipe.instructions } : {}) })
  if (!r.ok) throw new UsageError({ field: "--env", message: `warm start ${w?.id}: its recipe's prompt options do not decode (${r.message})` })
  return r.value
}

const encodedOptions = (schema: Schema.Codec<any, any>, value: unknown): unknown => JSON.parse(JSON.stringify(Schema.encodeUnknownSync(schema as any)(value)))

const tinylmStarts = (registry: RegistryService, env: string): WarmStart[] =>
  registry
    .list("warmstarts")
    .map((e) => e.value)
    .filter((w) => w.env === env && w.policy.endsWith("/tinylm"))

const checked = (w: WarmStart): Effect.Effect<WarmStart, UsageError> => Effect.try({ try: () => (checkWarmStartFile(w), w), catch: (e) => e as UsageError })

/**
 * The env's shipped tinylm warm start for these env options (the first registered, as `serve`
 * has always picked it); with `anyOptions`, else the env's first one (trained on other options).
 */
export const defaultWarmStart = (
  registry: RegistryService,
  env: { readonly fullId: string; readonly value: { readonly options: Schema.Codec<any, any> } },
  envOptions: unknown,
  anyOptions = false
): Effect.Effect<{ readonly warm: WarmStart; readonly sameOptions: boolean } | undefined, UsageError> =>
  Effect.gen(function* () {
    const starts = tinylmStarts(registry, env.fullId)
    const wanted = canonicalJson(encodedOptions(env.value.options, envOptions))
    const same = starts.find((w) => canonicalJson(w.envOptions) === wanted)
    const warm = same ?? (anyOptions ? starts[0] : undefined)
    if (!warm) return undefined
    return { warm: yield* checked(warm), sameOptions: same !== undefined }
  })

/** Does `--checkpoint` name a warm start rather than a file? (an existing file always wins) */
const looksLikeId = (s: string): boolean => !existsSync(s) && !/\.safetensors$/i.test(s) && !s.startsWith(".") && !s.includes("\\") && s.split("/").length <= 2

/**
 * `--checkpoint VALUE` as a warm start when VALUE is a registered warm-start id (`frozenlake-tiny`,
 * `tinylm/frozenlake-tiny`, either with `@<hash prefix>`); undefined when it is a file path. An
 * id-like value that names no file and no warm start is an error listing the ids.
 */
export const warmStartOfCheckpoint = (registry: RegistryService, value: string, env: string | undefined): Effect.Effect<WarmStart | undefined, UsageError> =>
  Effect.gen(function* () {
    if (!looksLikeId(value)) return undefined
    const [id, hash] = value.split("@") as [string, string | undefined]
    const entries = registry.list("warmstarts").filter((e) => e.value.policy.endsWith("/tinylm"))
    const e = entries.find((x) => x.localId === id || x.fullId === id)
    if (!e) {
      const forEnv = env ? entries.filter((x) => x.value.env === env) : entries
      return yield* new UsageError({
        field: "--checkpoint",
        message: `--checkpoint ${value}: no such file, and no warm start has that id (${env ? `shipped for ${env}` : "shipped"}: ${forEnv.map((x) => x.localId).join(", ") || "none"}; ragen-bench list warmstarts)`
      })
    }
    const w = e.value
    if (hash !== undefined && !w.sha256.startsWith(hash))
      return yield* new UsageError({
        field: "--checkpoint",
        message: `warm start ${e.localId} is ${w.sha256.slice(0, 12)} here, not ${hash}: the shipped checkpoint changed; use --checkpoint ${e.localId}`
      })
    if (env !== undefined && w.env !== env)
      return yield* new UsageError({
        field: "--checkpoint",
        message: `warm start ${e.localId} was trained for ${w.env}, not ${env}; pass --env ${w.env.replace(/^.*\//, "").replace(/-v\d+$/, "")} or another warm start`
      })
    return yield* checked(w)
  })
