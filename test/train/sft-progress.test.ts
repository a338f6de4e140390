/**
 * An SFT of a few thousand steps runs for minutes (a warm-start build, `train --sft-steps`): it
 * prints a line every SFT_PROGRESS_EVERY steps, and none for the last step, which the caller
 * reports whole.
 */
import { expect, test } from "bun:test"
import { SFT_PROGRESS_EVERY, sftProgressLog } from "../../core/train/warm-start.ts"

test("a progress line every SFT_PROGRESS_EVERY steps, naming step, loss, held-out accuracy and seconds", () => {
  const lines: string[] = []
  const steps = 2 * SFT_PROGRESS_EVERY
  const onProgress = sftProgressLog(steps, (l) => lines.push(l))
  for (let step = 1; step <= steps; step++) onProgress({ step, loss: 1 / step, heldOutAcc: step % 100 === 0 ? 0.5 : undefined, seconds: step / 10 })
  expect(lines).toEqual([`sft: step ${SFT_PROGRESS_EVERY}/${steps}, loss ${(1 / SFT_PROGRESS_EVERY).toFixed(4)}, held-out token acc 0.500, ${SFT_PROGRESS_EVERY / 10} s`])
})
