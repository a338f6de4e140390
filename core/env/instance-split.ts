/**
 * Disjoint validation and training instances (docs/decisions.md#issue-17: a rise in validation success must measure
 * learning, not memorisation). Env seeds are not instances: two seeds can generate the same
 * FrozenLake map or Countdown problem, so disjoint seed ranges do not give disjoint instances.
 * An instance is what the policy is shown at reset (its first observation: the map, the level,
 * the problem, the instruction; for grid envs without what moves, EnvSpec.instanceKey); every
 * instance falls into exactly one part by the hash of that text, one in VALIDATION_SHARE into "validation" and the rest into "train". A seed whose instance
 * falls into the other part is replaced by the first of a fixed sequence of derived seeds whose
 * instance falls into the wanted part, so validation (any seed) and training or SFT (any seed) can
 * never meet the same instance, whatever the env's instance space.
 */
import type { Env, EnvSpec } from "../contracts/index.ts"
import { UsageError } from "../errors.ts"
import { sha256Hex } from "../hash.ts"
import { derive } from "../rng.ts"

export type InstancePart = "train" | "validation"

/** One instance in this many is a validation instance. */
export const VALIDATION_SHARE = 8

/** Derived seeds tried before giving up (an env whose every instance falls in one part is a bug). */
const MAX_TRIES = 512

/** The instance an observation belongs to (EnvSpec.instanceKey; default the observation itself). */
export const instanceOf = (spec: EnvSpec, observation: string): string => spec.instanceKey?.(observation) ?? observation

/** The part an instance belongs to (SHA-256: FNV-1a's low bits are not uniform over such similar texts). */
export const partOf = (instance: string): InstancePart => (Number.parseInt(sha256Hex(instance).slice(0, 8), 16) % VALIDATION_SHARE === 0 ? "validation" : "train")

/**
 * Whether a training instance is one an SFT limited to `share` of them may see (sftInstanceShare;
 * docs/decisions.md#issue-26): a second hash slice, independent of the validation split, so the
 * rest are training instances that only RL meets.
 */
export const inSftShare = (instance: string, share: number): boolean => share >= 1 || Number.parseInt(sha256Hex(instance).slice(8, 16), 16) / 2 ** 32 < share

/** The i-th candidate for a seed: the seed itself, then a fixed pseudo-random sequence of 31-bit seeds. */
const candidate = (seed: number, i: number): number => (i === 0 ? seed : derive(seed, "instance-split", i).nextU32() >>> 1)

const resetOf = async (env: Env, seed: number): Promise<string> => (env.resetAsync ? await env.resetAsync(seed) : env.reset(seed))

/**
 * The seeds to reset with so that every instance falls into `part`. Memoised per env spec and
 * options (`cache`), since validation resolves the same seeds at every evaluation. `sftShare` < 1
 * narrows the training part to the instances an SFT may see (inSftShare).
 */
export const splitSeeds = async (spec: EnvSpec, envOptions: unknown, seeds: ReadonlyArray<number>, part: InstancePart, cache?: Map<string, number>, sftShare = 1): Promise<number[]> => {
  const wanted = (instance: string) => partOf(instance) === part && (part !== "train" || inSftShare(instance, sftShare))
  let env: Env | undefined
  const out: number[] = []
  for (const seed of seeds) {
    const key = sftShare < 1 ? `${part}:${sftShare}:${seed}` : `${part}:${seed}`
    const hit = cache?.get(key)
    if (hit !== undefined) {
      out.push(hit)
      continue
    }
    env ??= spec.make(envOptions)
    let found: number | undefined
    for (let i = 0; i < MAX_TRIES && found === undefined; i++) {
      const s = candidate(seed, i)
      if (wanted(instanceOf(spec, await resetOf(env, s)))) found = s
    }
    if (found === undefined) {
      throw new UsageError({
        field: "train.instanceSplit",
        message: `env ${spec.id} has no ${part} instance among ${MAX_TRIES} seeds derived from ${seed} (too few distinct instances to hold some out); set train.instanceSplit=false, and validation then shares the training instances`
      })
    }
    cache?.set(key, found)
    out.push(found)
  }
  return out
}

/** A per-run memo of resolved seeds (one env spec and options per run). */
export const seedCache = (): Map<string, number> => new Map()
