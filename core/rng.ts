/**
 * The project's random streams: the generator (core/contracts/rng.ts) and `derive`, which names
 * a stream by a seed and a path of labels.
 */
import { Rng } from "./contracts/rng.ts"

export { fnv1a, Rng } from "./contracts/rng.ts"

/** A stream derived from a seed and a path of labels: derive(1, "env", 3). */
export const derive = (seed: number, ...labels: Array<string | number>): Rng => {
  let r = new Rng(seed)
  for (const l of labels) r = r.split(l)
  return r
}
