/**
 * Validation (docs/design.md §3): one episode on each fixed seed valSeedStart.. at each validation
 * temperature (0.5 first, the headline; 1.0 shows action noise). Metrics are named
 * val/<stat>@<T>, e.g. val/success@0.5, val/fact_accuracy@1.0; reasoning/probe_fact_accuracy and
 * reasoning/probe_consistency repeat the headline temperature's reasoning fidelity. The first
 * evalSamples episodes at the headline temperature go to `onSamples` (samples.jsonl).
 */
import type { Policy } from "../contracts/index.ts"
import type { Rng } from "../rng.ts"
import type { SamplesLine } from "../schema/samples.ts"
import { rollout, type RolloutSettings, rolloutStats } from "./rollout.ts"
import { factsTeacher, sampleEpisode } from "./samples.ts"

export const tempLabel = (t: number): string => (Number.isInteger(t) ? t.toFixed(1) : String(t))

export const validate = async (
  policy: Policy,
  settings: RolloutSettings,
  o: { readonly valSeeds: number; readonly valSeedStart: number; readonly valTemperatures: ReadonlyArray<number>; readonly evalSamples?: number },
  /** The sampling stream by labels (core/train/instances.ts samplingRng: the run seed's, or the noise floor's). */
  stream: (...labels: Array<string | number>) => Rng,
  step: number,
  onSamples?: (line: SamplesLine) => void
): Promise<Record<string, number>> => {
  const out: Record<string, number> = {}
  if (o.valSeeds === 0) return out
  const seeds = Array.from({ length: o.valSeeds }, (_, i) => o.valSeedStart + i)
  const keep = onSamples ? Math.min(o.evalSamples ?? 0, o.valSeeds) : 0
  for (const [ti, T] of o.valTemperatures.entries()) {
    const kept = ti === 0 && keep > 0
    // Sampling noise depends on (run seed, step, T) only, so a resumed run validates identically.
    const b = await rollout(policy, { ...settings, temperature: T, topP: 1, minP: 0, ...(kept ? { teachFacts: factsTeacher(keep, step) } : {}) }, seeds, 1, stream("val", step, T), "validation")
    for (const [k, v] of Object.entries(rolloutStats(b))) out[`val/${k}@${tempLabel(T)}`] = v
    if (kept) onSamples!({ step, temperature: T, episodes: b.trajectories.slice(0, keep).map(sampleEpisode) })
  }
  // Reasoning fidelity on the fixed validation probe, beside the training batch's reasoning/*.
  const h = tempLabel(o.valTemperatures[0] ?? 0.5)
  for (const k of ["fact_accuracy", "consistency"]) {
    const v = out[`val/${k}@${h}`]
    if (v !== undefined) out[`reasoning/probe_${k}`] = v
  }
  return out
}
