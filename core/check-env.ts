/**
 * The env checker (the idea of Gymnasium's utils/env_checker.py), public so that plugin authors
 * can run it from their own tests under any runner: `checkEnv(spec, options)` returns the
 * problems found (empty when the env passes); `assertEnv` throws one Error listing them.
 *
 * It checks: a well-formed spec; same seed and same actions ⇒ the same episode; well-formed step
 * results; the episode ends within the action budget under the harness's time-limit wrapper;
 * success implies terminated; invalid actions (empty, binary, 1 MB, stray tags) are flagged, not
 * applied, and never throw; the teacher's reasoning grades as faithful and junk grades in [0, 1].
 */
import type { EnvSpec } from "./contracts/index.ts"
import { withTimeLimit } from "./env/time-limit.ts"
import { Rng } from "./rng.ts"
import { decodeSync } from "./schema/decode.ts"

export interface CheckEnvOptions {
  /** Episode seeds to check (default 0, 1, 2, 7, 123). */
  readonly seeds?: ReadonlyArray<number>
}

const HOSTILE = ["", "   ", "\u0000\u0001\u00ff binary \uffff", "x".repeat(1 << 20), "<answer>", "🙂".repeat(1000)]

const play = (spec: EnvSpec, options: unknown, seed: number, actSeed: number) => {
  const env = withTimeLimit(spec.make(options), spec.actionBudget)
  const rng = new Rng(actSeed)
  const trace: unknown[] = [env.reset(seed)]
  let steps = 0
  while (!env.done && steps < spec.actionBudget + 5) {
    trace.push(env.step(env.randomAction(rng)))
    steps++
  }
  return { trace, steps, env }
}

/** Run the checks; each problem is one line naming the env, the seed and what failed. */
export const checkEnv = (spec: EnvSpec, rawOptions: unknown = {}, o: CheckEnvOptions = {}): string[] => {
  const problems: string[] = []
  const fail = (msg: string) => problems.push(`${spec.id}: ${msg}`)
  const guard = (what: string, f: () => void) => {
    try {
      f()
    } catch (e) {
      fail(`${what} threw: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  const decoded = decodeSync(spec.options, rawOptions)
  if (!decoded.ok) return [`${spec.id}: options do not decode: ${decoded.message}`]
  const options = decoded.value
  if (!/^[a-z0-9-]+-v\d+$/.test(spec.id)) fail(`id "${spec.id}" must look like "name-v1"`)
  if (spec.description.length === 0) fail("description is empty")
  if (!(Number.isInteger(spec.actionBudget) && spec.actionBudget >= 1)) fail(`actionBudget ${spec.actionBudget} must be an integer ≥ 1`)
  if (!(Number.isInteger(spec.maxTurns) && spec.maxTurns >= 1)) fail(`maxTurns ${spec.maxTurns} must be an integer ≥ 1`)
  guard("instructions", () => {
    if (spec.instructions(options).length === 0) fail("instructions are empty")
  })
  guard("vocabulary", () => {
    if (spec.vocabulary(options).length === 0) fail("vocabulary is empty")
  })
  if (problems.length > 0) return problems

  for (const seed of o.seeds ?? [0, 1, 2, 7, 123]) {
    guard(`seed ${seed}: random episode`, () => {
      const a = play(spec, options, seed, 99)
      const b = play(spec, options, seed, 99)
      if (JSON.stringify(a.trace) !== JSON.stringify(b.trace)) fail(`seed ${seed}: the same seed and actions gave different episodes`)
      if (a.steps > spec.actionBudget || !a.env.done) fail(`seed ${seed}: the episode did not end within the action budget ${spec.actionBudget}`)
      const last = a.trace[a.trace.length - 1] as { terminated?: unknown; truncated?: unknown; info?: { success?: unknown } }
      if (a.steps > 0 && last.terminated !== true && last.truncated !== true) fail(`seed ${seed}: the last step is neither terminated nor truncated`)
      for (const [k, x] of (a.trace.slice(1) as Array<Record<string, any>>).entries()) {
        const at = `seed ${seed} step ${k + 1}`
        if (typeof x.observation !== "string") fail(`${at}: observation is not a string`)
        if (!Number.isFinite(x.reward)) fail(`${at}: reward ${x.reward} is not finite`)
        if (typeof x.terminated !== "boolean" || typeof x.truncated !== "boolean") fail(`${at}: terminated/truncated must be booleans`)
        for (const key of ["success", "valid", "effective"]) if (typeof x.info?.[key] !== "boolean") fail(`${at}: info.${key} must be a boolean`)
        if (x.info?.success === true && x.terminated !== true) fail(`${at}: success without terminated`)
      }
    })

    guard(`seed ${seed}: invalid actions`, () => {
      const env = spec.make(options)
      env.reset(seed)
      const before = JSON.stringify(env.state())
      for (const h of HOSTILE) {
        const fresh = spec.make(options)
        fresh.reset(seed)
        const label = JSON.stringify(h.slice(0, 12))
        const r = fresh.step(h)
        if (r.info.valid !== false) fail(`seed ${seed}: action ${label} was accepted as valid`)
        if (JSON.stringify(fresh.state()) !== before) fail(`seed ${seed}: invalid action ${label} changed the state`)
        if (!(r.observation.length > 0 && r.observation.length < 100_000)) fail(`seed ${seed}: observation after ${label} has length ${r.observation.length}`)
      }
      const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(5))
      if (t.reasoning.length === 0 || t.action.length === 0) fail(`seed ${seed}: the teacher returned an empty reasoning or action`)
      const g = env.gradeReasoning(env.state(), t.reasoning, t.action)
      if (g.factAccuracy < 0.99 || g.consistency < 0.99) fail(`seed ${seed}: the teacher's own reasoning grades ${g.factAccuracy} facts, ${g.consistency} consistency (want 1)`)
      const junk = env.gradeReasoning(env.state(), "zz qq 1 2 3", t.action)
      if (!(junk.factAccuracy >= 0 && junk.factAccuracy <= 1)) fail(`seed ${seed}: factAccuracy ${junk.factAccuracy} of junk reasoning is outside [0, 1]`)
    })
  }
  return problems
}

/** `checkEnv` that throws one Error listing every problem (for any test runner). */
export const assertEnv = (spec: EnvSpec, rawOptions: unknown = {}, o: CheckEnvOptions = {}): void => {
  const problems = checkEnv(spec, rawOptions, o)
  if (problems.length > 0) throw new Error(`env check failed (${problems.length}):\n${problems.join("\n")}`)
}
