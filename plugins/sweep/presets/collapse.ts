/**
 * collapse — the collapse track (issue 39; docs/results/calibration.md §5): per env, a regime where
 * no filter rises and then decays, chosen by the gate written before its calibration runs (on at
 * least two thirds of the calibration seeds, validation success first rises above step 0 and its
 * last-3 mean ends at least 10 points below the peak, without an immediate fall from step 0; MI-Est
 * falls, or fact accuracy where MI-Est is saturated). Two envs passed (records:
 * plugins/leaderboard/reference/calib-collapse):
 * - FrozenLake, PPO from the headroom start at lr 1e-3: 10 of 11 seeds over 150 steps, 9 of 11 over
 *   the 140 run here (fl-probe-ppo seed 1, fl-confirm-150 seeds 2–11);
 * - Sokoban, PPO from the strong start at lr 5.5e-4: 6 of 9 seeds over 80 steps and over the 60 run
 *   here (sok-probe) — exactly two thirds.
 * The lengths are the shortest cuts of the calibration runs that still pass, so that the track fits
 * 90 minutes (150 + 80 steps would take 1 h 35 min). MetaMathQA did not pass (lr 2e-4, 3e-4,
 * 6e-4), nor Sokoban at lr 7e-4 (3 of 6).
 *
 * Arms (the standard preset's definitions): none, the paper's top-p (softmax 0.9, zero-spread
 * groups included), linear top-p 0.9 (zero-spread dropped), the random control at each top-p rule's
 * kept count, the positive control Q4 and the random control at its count (25%), plus the noise
 * floor. P × G = 8 × 16, validation every 10 steps on 128 instances at T = 0.5, MI diagnostics every
 * 10 steps, 11 seeds: the page's family is 2 envs × (6 arms against none + 3 filter-against-control
 * contrasts) = 18, and at 11 pairs the exact sign-flip test passes Holm's first threshold 0.05/18
 * even with the smallest difference of the wrong sign (4/2¹¹ = 0.00195). Measured on the published
 * track, the paired sd of the area is 12–34 points (the collapse starts at a different step on each
 * seed), so 11 seeds see differences of about 20 points (Sokoban) and not 5 (calibration.md §5).
 * 50 min 38 s on 2 workers by `--dry-run`; run it in shards (`--shard i/4`) with
 * `--compact-to plugins/leaderboard/reference/collapse`.
 */
import { defineSweep } from "../../../core/host.ts"
import { FROZENLAKE, fromStart, LINEAR_TOP_P, NONE, PAPER_TOP_P, POSITIVE_CONTROL_Q4, RANDOM_LIKE_LINEAR_TOP_P, RANDOM_LIKE_PAPER_TOP_P, RANDOM_LIKE_Q4, STANDARD } from "./_common.ts"

export default defineSweep({
  name: "collapse",
  description:
    "collapse track (no filter rises then decays): FrozenLake PPO headroom start lr 1e-3 140 steps, Sokoban PPO strong start lr 5.5e-4 60 steps × {none, top-p 0.9 (softmax, include zero), top-p 0.9 (linear, drop zero), random at each top-p rule's count, Q4, random at Q4's count}, 8×16, 11 seeds, noise floor",
  axes: {
    env: [
      { ...FROZENLAKE, set: { ...fromStart(FROZENLAKE, "frozenlake-tiny-headroom", 1e-3).set, steps: 140 } },
      { id: "sokoban", set: { ...fromStart("sokoban", "sokoban-tiny", 5.5e-4).set, steps: 60 } }
    ],
    algo: ["ppo"],
    filter: [NONE, PAPER_TOP_P, LINEAR_TOP_P, RANDOM_LIKE_PAPER_TOP_P, RANDOM_LIKE_LINEAR_TOP_P, POSITIVE_CONTROL_Q4, RANDOM_LIKE_Q4],
    seeds: [...STANDARD.seeds]
  },
  fixed: { P: STANDARD.P, G: STANDARD.G, train: { ...STANDARD.train } },
  budget: { steps: 140, evalEvery: STANDARD.evalEvery, valSeeds: STANDARD.valSeeds },
  noiseFloor: true
})
