/**
 * Which shipped warm start a run starts from (docs/decisions.md#issue-17; core/contracts/warm-start.ts).
 *
 * `train.warmStart`: "auto" picks the warm start trained for this env (and env options), policy
 * (and options, kernel backends aside) and prompt shape, when one is registered and the run does
 * not train or load its own start (sftSteps, init); "none" starts fresh; "<id>" or "<id>@<hash>"
 * names one, and a hash that is not the registered file's is refused (the shipped checkpoint changed).
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import type { WarmStart } from "../contracts/index.ts"
import { canonicalJson, sha256Hex } from "../hash.ts"
import { UsageError } from "../errors.ts"
import type { Entry } from "../registry.ts"

/** Trainer options that shape the prompts and turns: a warm start fits runs that share them. */
export const PROMPT_SHAPE = ["context", "historyTurns", "instructions", "maxTurns"] as const

const withoutKernels = (o: unknown): unknown => {
  if (o === null || typeof o !== "object") return o
  const { kernels: _k, ...rest } = o as Record<string, unknown>
  return rest
}

export interface WarmStartQuery {
  readonly env: string
  readonly envOptions: unknown
  readonly policy: string
  readonly policyOptions: unknown
  /** The run's resolved (encoded) trainer options. */
  readonly train: Readonly<Record<string, unknown>>
}

/** Does this warm start fit the run exactly (the `auto` rule)? */
export const fits = (w: WarmStart, q: WarmStartQuery): boolean =>
  w.env === q.env &&
  w.policy === q.policy &&
  canonicalJson(w.envOptions) === canonicalJson(q.envOptions) &&
  canonicalJson(withoutKernels(w.policyOptions)) === canonicalJson(withoutKernels(q.policyOptions)) &&
  PROMPT_SHAPE.every((k) => canonicalJson(w.recipe[k] ?? null) === canonicalJson(q.train[k] ?? null))

const askedOf = (q: WarmStartQuery): string => String(q.train.warmStart ?? "auto")
/** The run trains (sftSteps) or loads (init) its own start. */
const ownStart = (q: WarmStartQuery): boolean => Number(q.train.sftSteps ?? 0) > 0 || q.train.init !== undefined

/**
 * Why `auto` gave this run no start though its env has shipped ones (a changed env option, such as
 * FrozenLake's slip, is the usual cause), so that a start from scratch is never silent; undefined
 * when a start was found or the run asked for none, a named one or its own.
 */
export const autoMissNotice = (entries: ReadonlyArray<Entry<"warmstarts">>, q: WarmStartQuery, found: WarmStart | undefined): string | undefined => {
  if (found || askedOf(q) !== "auto" || ownStart(q)) return undefined
  const sameEnv = entries.filter((e) => e.value.env === q.env && e.value.policy === q.policy)
  if (sameEnv.length === 0) return undefined
  return `warm start: none fits these options (shipped for ${q.env}: ${sameEnv.map((e) => e.localId).join(", ")}, trained for other env, policy or prompt options); starting from scratch. Name one with --set warmStart=<id>, or train one with --sft-steps N`
}

export const resolveWarmStart = (entries: ReadonlyArray<Entry<"warmstarts">>, q: WarmStartQuery): Effect.Effect<WarmStart | undefined, UsageError> =>
  Effect.gen(function* () {
    const asked = askedOf(q)
    const own = ownStart(q)
    if (asked === "none") return undefined
    if (asked === "auto") return own ? undefined : entries.find((e) => fits(e.value, q))?.value
    if (own) {
      return yield* new UsageError({ field: "train.warmStart", message: `warmStart ${asked} and ${q.train.init !== undefined ? "init" : "sftSteps"} are two starts; keep one of them` })
    }
    const [id, hash] = asked.split("@") as [string, string | undefined]
    const known = entries.map((e) => e.localId).join(", ") || "none registered"
    const e = entries.find((x) => x.localId === id || x.fullId === id)
    if (!e) return yield* new UsageError({ field: "train.warmStart", message: `unknown warm start "${id}"; known: ${known} (or auto, none)` })
    const w = e.value
    if (hash !== undefined && !w.sha256.startsWith(hash)) {
      return yield* new UsageError({
        field: "train.warmStart",
        message: `warm start ${id} is ${w.sha256.slice(0, 12)} here, the run asks for ${hash}: the shipped checkpoint changed since; use --set warmStart=${id} for the current one, or the code version that shipped ${hash}`
      })
    }
    if (w.env !== q.env || w.policy !== q.policy) {
      return yield* new UsageError({ field: "train.warmStart", message: `warm start ${id} was trained for ${w.env} with ${w.policy}, this run is ${q.env} with ${q.policy}` })
    }
    return w
  })

/** Check a warm start's file against its registered hash (a changed file is refused, never used). */
export const checkWarmStartFile = (w: WarmStart): void => {
  const got = sha256Hex(readFileSync(w.path))
  if (got !== w.sha256)
    throw new UsageError({
      field: "train.warmStart",
      message: `warm start ${w.id}: its file's SHA-256 is ${got.slice(0, 12)}, the manifest says ${w.sha256.slice(0, 12)}; rebuild it (ragen-bench warmstart build ${w.id}) or restore the file`
    })
}
