/**
 * The project's random streams: the generator (core/contracts/rng.ts) and `derive`, which names
 * a stream by a seed and a path of labels. Streams with different labels are independent, so
 * adding a draw to one never moves another. Changing a label, or what a stream seeds, changes
 * results: bump SEMANTICS_VERSION (core/semantics.ts).
 *
 * Legend: every label in use, `derive(seed, …labels)` unless said otherwise.
 *
 * The trainer, from the run seed `config.seed` (core/train/):
 * - "train-instance", step, draw, i: which env instance slot i of a step's draw trains on (instances.ts).
 * - "rollout", step, draw: the policy's sampling of a training draw; each turn splits it by turn
 *   number (rollout.ts `rng.split(turn)`). Through samplingRng (instances.ts), as "probe" and "val":
 *   with train.samplingStream ≠ 0 the labels end in "stream", n (the noise floor's stream).
 * - "probe", step: the sampling of the fixed MI probe of the validation prompts (loop.ts).
 * - "val", step, temperature: the validation episodes at each temperature (eval.ts).
 * - "filter", step, draw: the filter's `ctx.rng` (filtering.ts); the random filter splits it into
 *   "random/like" (the filter whose kept count it copies) and "random/groups" (its own choice).
 * - "minibatch", step, epoch: the shuffle of whole trajectories into minibatches (update.ts).
 * - "pad", step[, epoch]: which trajectories are copied to pad the kept batch (update.ts).
 * - "mi", prefix, mode, step: the rows the MI proxies score (diagnose-step.ts).
 * From other seeds:
 * - "sft-teacher", seed (seed: the SFT's seed, sftSeed or the run seed): the teacher's actions and
 *   wording in each episode of the SFT data, per episode seed (core/train/teacher-turns.ts).
 * - "samples", i, turn (seed: the step): the ε = 0 teacher's facts beside a kept validation episode (samples.ts).
 * - "instance-split", i (seed: an env seed): the next candidate instance when a seed's instance is
 *   held out for validation (core/env/instance-split.ts).
 * - "sft-order" (seed: sftSeed): the SFT's shuffle of teacher turns (plugins/tinylm/sft.ts).
 * - "sft-val", temperature and "teacher-val", i and "retrieval" (seed: the `sft`/`warmstart`
 *   command's seed): the checks those commands report (plugins/tinylm/validate.ts).
 * - "tinylm-init" (`new Rng(seed).split`): the embedded policy's initial weights (plugins/tinylm/policy.ts).
 * The envs, from the episode seed (envs/):
 * - "frozenlake", "map" and "frozenlake", "slip": the map and the slippery moves; "sokoban", "level":
 *   the level; "countdown", "metamathqa", "searchqa": the instance; "webshop", "goal": the goal;
 *   "webshop", "catalogue", size (seed: the catalogue's fixed seed): the generated catalogue.
 * - "env-show", "teacher": `env show`'s teacher demo (envs/cli/env.ts).
 * Commands on served models (plugins/openai/), from --seed:
 * - "eval": the evaluation rollouts; "diagnose", "rollout" and "diagnose", mode: `diagnose`'s rollouts
 *   and MI rows; `new Rng(seed).split(<filter id>)`: each filter's choice; "bootstrap": the intervals;
 *   "request" (a server's own stream): a `serve` request sent without a seed.
 * Tests only: "fake", step (test/helpers/fake-train.ts, from the config hash).
 * Unlabelled `new Rng(seed)`: the statistics' bootstraps (their seed option), `leaderboard verify`'s
 * sample of runs, `filter apply --seed`, check-env's actions, the SearchQA corpus.
 */
import { Rng } from "./contracts/rng.ts"

export { fnv1a, Rng } from "./contracts/rng.ts"

/** A stream derived from a seed and a path of labels: derive(1, "env", 3). */
export const derive = (seed: number, ...labels: Array<string | number>): Rng => {
  let r = new Rng(seed)
  for (const l of labels) r = r.split(l)
  return r
}
