/**
 * s10-no-dual-clip — one of the remaining differences between `s10` and docs/design.md §10's prototype,
 * tested alone: the prototype's GRPO has no dual clip (reference/prototype/proto.py grpo_update),
 * ours follows the reference's verl default (c = 3). Same SFT start as s10 (its SFT cache: run
 * with s10's --out, or copy <out>/.sft-cache), none vs top-p 0.9 vs random, s10's 5 seeds and 3 more. The curves
 * table does not split runs by algorithm options, so give it its own --out.
 */
import { defineSweep } from "../../../core/host.ts"
import s10 from "./s10.ts"
import { NONE, RANDOM_LIKE_TOP_P, TOP_P } from "./_common.ts"

export default defineSweep({
  ...s10,
  name: "s10-no-dual-clip",
  description: "§10 noisy regime with dual clip off (as the prototype): FrozenLake GRPO token-mean lr 1e-3, none vs top-p 0.9 vs random, seeds 1–8",
  axes: { ...s10.axes, filter: [NONE, TOP_P, RANDOM_LIKE_TOP_P], seeds: [1, 2, 3, 4, 5, 6, 7, 8] },
  fixed: { ...s10.fixed, algoOptions: { dualClip: 0 } }
})
