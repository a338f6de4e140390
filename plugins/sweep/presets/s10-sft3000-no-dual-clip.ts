/**
 * s10-sft3000-no-dual-clip — two of the differences between `s10` and docs/design.md §10's prototype
 * together: the 3,000-step SFT start (s10-sft3000) and no dual clip (s10-no-dual-clip). Run with
 * s10-sft3000's --out to share its SFT start; none vs top-p 0.9, seeds 1–5.
 */
import { defineSweep } from "../../../core/host.ts"
import sft3000 from "./s10-sft3000.ts"

export default defineSweep({
  ...sft3000,
  name: "s10-sft3000-no-dual-clip",
  description: "§10 noisy regime from a 3,000-step SFT start with dual clip off (both as the prototype): FrozenLake GRPO token-mean lr 1e-3, none vs top-p 0.9, seeds 1–5",
  fixed: { ...sft3000.fixed, algoOptions: { dualClip: 0 } }
})
