/**
 * s10-sft3000 — one of the remaining differences between `s10` and docs/design.md §10's prototype,
 * tested alone: the length of the SFT warm start. The prototype's ε = 0.5 start ran 3,000 SFT
 * steps (reference/prototype/ckpt/sft_eps05.pt.json; warm-up 100 steps, then early stopping that
 * did not fire before 3,000); s10 runs 2,000 without warm-up. Same everything else as s10, none
 * vs top-p 0.9, seeds 1–5. Its own SFT start (a different cache key), so any --out works.
 * Not tested here: the prototype's 100-step warm-up (the trainer's SFT has no warm-up option).
 */
import { defineSweep } from "../../../core/host.ts"
import s10 from "./s10.ts"
import { NONE, TOP_P } from "./_common.ts"

export default defineSweep({
  ...s10,
  name: "s10-sft3000",
  description: "§10 noisy regime from a 3,000-step SFT start (as the prototype's): FrozenLake GRPO token-mean lr 1e-3, none vs top-p 0.9, seeds 1–5",
  axes: { ...s10.axes, filter: [NONE, TOP_P], seeds: [1, 2, 3, 4, 5] },
  fixed: { ...s10.fixed, train: { ...s10.fixed!.train, sftSteps: 3000 } }
})
