/**
 * The shared env checker (gymnasium's utils/env_checker.py idea): every env passes it.
 * Same seed ⇒ same episode; outputs well formed; invalid actions leave the state alone;
 * terminated vs truncated; the action budget is enforced; hostile action text never throws.
 */
import { expect } from "bun:test"
import type { EnvSpec } from "../../core/contracts/index.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { Rng } from "../../core/rng.ts"

const rollout = (spec: EnvSpec, options: unknown, seed: number, actSeed: number) => {
  const env = spec.make(options)
  const rng = new Rng(actSeed)
  const trace: unknown[] = [env.reset(seed)]
  let steps = 0
  while (!env.done && steps < spec.actionBudget + 5) {
    const r = env.step(env.randomAction(rng))
    trace.push(r)
    steps++
  }
  return { trace, steps, env }
}

export const checkEnv = (spec: EnvSpec, rawOptions: unknown = {}, seeds: ReadonlyArray<number> = [0, 1, 2, 7, 123]): void => {
  const decoded = decodeSync(spec.options, rawOptions)
  if (!decoded.ok) throw new Error(`options do not decode: ${decoded.message}`)
  const options = decoded.value
  expect(spec.id).toMatch(/^[a-z0-9-]+-v\d+$/)
  expect(spec.description.length).toBeGreaterThan(0)
  expect(spec.actionBudget).toBeGreaterThanOrEqual(1)
  expect(spec.maxTurns).toBeGreaterThanOrEqual(1)
  expect(spec.instructions(options).length).toBeGreaterThan(0)
  expect(spec.vocabulary(options).length).toBeGreaterThan(0)

  for (const seed of seeds) {
    // Determinism: same seed and same actions ⇒ identical episode.
    const a = rollout(spec, options, seed, 99)
    const b = rollout(spec, options, seed, 99)
    expect(JSON.stringify(a.trace)).toBe(JSON.stringify(b.trace))
    // Budget: the episode ends by the action budget at the latest.
    expect(a.steps).toBeLessThanOrEqual(spec.actionBudget)
    expect(a.env.done).toBe(true)
    const last = a.trace[a.trace.length - 1] as { terminated: boolean; truncated: boolean; info: { success: boolean } }
    expect(last.terminated || last.truncated).toBe(true)
    if (last.info.success) expect(last.terminated).toBe(true)
    for (const r of a.trace.slice(1) as Array<Record<string, any>>) {
      expect(typeof r.observation).toBe("string")
      expect(Number.isFinite(r.reward)).toBe(true)
      expect(typeof r.terminated).toBe("boolean")
      expect(typeof r.truncated).toBe("boolean")
      expect(typeof r.info.success).toBe("boolean")
      expect(typeof r.info.valid).toBe("boolean")
      expect(typeof r.info.effective).toBe("boolean")
    }

    // Invalid actions: not applied, flagged, never throw.
    const env = spec.make(options)
    env.reset(seed)
    const before = JSON.stringify(env.state())
    const hostile = ["", "   ", "\u0000\u0001\u00ff binary \uffff", "x".repeat(1 << 20), "<answer>", "🙂".repeat(1000)]
    for (const h of hostile) {
      const fresh = spec.make(options)
      fresh.reset(seed)
      const r = fresh.step(h)
      expect(r.info.valid).toBe(false)
      expect(JSON.stringify(fresh.state())).toBe(before)
      expect(r.observation.length).toBeGreaterThan(0)
      expect(r.observation.length).toBeLessThan(100_000)
    }
    // The teacher returns well-formed output and its reasoning grades as faithful.
    const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, new Rng(5))
    expect(t.reasoning.length).toBeGreaterThan(0)
    expect(t.action.length).toBeGreaterThan(0)
    const g = env.gradeReasoning(env.state(), t.reasoning, t.action)
    expect(g.factAccuracy).toBeGreaterThanOrEqual(0.99)
    expect(g.consistency).toBeGreaterThanOrEqual(0.99)
    const junk = env.gradeReasoning(env.state(), "zz qq 1 2 3", t.action)
    expect(junk.factAccuracy).toBeGreaterThanOrEqual(0)
    expect(junk.factAccuracy).toBeLessThanOrEqual(1)
  }
}
