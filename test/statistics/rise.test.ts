import { expect, test } from "bun:test"
import { riseOf, riseText } from "../../plugins/leaderboard/statistics/rise.ts"

test("a rise on every seed rises; a flat or falling run does not; too few seeds to tell stay undecided", () => {
  const up = riseOf([0.05, 0.08, 0.02, 0.06, 0.04, 0.07])!
  expect(up.rises).toBe(true)
  expect(up.p).toBeCloseTo(2 / 64, 12) // all six positive: the exact sign-flip p is 2/2^6
  expect(up.lo!).toBeGreaterThan(0)
  // Mixed signs at a testable n: does not rise.
  expect(riseOf([0.05, -0.04, 0.02, -0.03, 0.01, -0.02])!.rises).toBe(false)
  // Falling on every seed (a collapse) is significant but not a rise.
  expect(riseOf([-0.05, -0.08, -0.02, -0.06, -0.04, -0.07])!.rises).toBe(false)
  // Four seeds: the smallest two-sided p is 2/16 > 0.05, so nothing can be said.
  expect(riseOf([0.05, 0.08, 0.02, 0.06])!.rises).toBeNull()
  expect(riseOf([])).toBeNull()
  expect(riseText(up)).toMatch(/^\+5\.3 points \[\d\.\d, \d\.\d\], p = 0\.031 \(n = 6\)$/)
})
