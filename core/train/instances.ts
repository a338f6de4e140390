/**
 * Which env instances a run trains on, and its sampling streams (docs/decisions.md#issue-17, "seeds that replicate").
 *
 * - trainInstances "per-seed" (default): the run seed chooses the training seeds, so seeds
 *   replicate over instances too; runs that share a seed (e.g. two filters) share the instances,
 *   the warm start and the random streams, so filter comparisons are paired. "shared": every run
 *   seed trains on trainSeedStart + (step−1)·P + i (the paper's reference and semantics ≤ 2).
 * - samplingStream ≠ 0 changes every policy-sampling stream (training draws, validation, the MI
 *   probe) and nothing else: `none` against itself with another stream is the noise floor.
 */
import { derive, type Rng } from "../rng.ts"
import type { TrainSetup } from "./setup.ts"

/** Dynamic-sampling redraws of the shared rule start here (beyond any step's training seeds). */
export const REDRAW_SEED_BASE = 50_000_000

/** The P slot seeds of a step's draw (0 = the regular draw, > 0 = dynamic-sampling redraws). */
export const trainSlotSeeds = (s: TrainSetup, step: number, draw: number, maxDraws: number): number[] => {
  const { config, opts } = s
  const P = config.P
  if (opts.trainInstances === "shared") {
    return Array.from({ length: P }, (_, i) => (draw === 0 ? opts.trainSeedStart + (step - 1) * P + i : REDRAW_SEED_BASE + ((step - 1) * maxDraws + draw) * P + i))
  }
  // 30-bit offsets from trainSeedStart: distinct runs and steps meet the same seed by chance only.
  return Array.from({ length: P }, (_, i) => opts.trainSeedStart + (derive(config.seed, "train-instance", step, draw, i).nextU32() >>> 2))
}

/** A policy-sampling stream: the run seed's, or another one for the noise floor. */
export const samplingRng = (s: TrainSetup, ...labels: Array<string | number>): Rng =>
  s.opts.samplingStream === 0 ? derive(s.config.seed, ...labels) : derive(s.config.seed, ...labels, "stream", s.opts.samplingStream)
