import { expect, test } from "bun:test"
import { collapseOf, settingCollapses, successFalls } from "../../plugins/leaderboard/statistics/collapse.ts"

const curve = (xs: ReadonlyArray<number>) => xs.map((value, i) => ({ step: 10 * i, value }))

test("the collapse track's gate per run: a rise then a fall of at least 10 points collapses; a blow-up, a plateau or a fall without a rise does not", () => {
  expect(collapseOf(curve([0.58, 0.76, 0.88, 0.86, 0.68, 0.22, 0.1, 0.05]))?.kind).toBe("collapses")
  // the first evaluation 10 points below step 0: a blow-up, whatever follows
  expect(collapseOf(curve([0.76, 0.66, 0.9, 0.5, 0.3, 0.2]))?.kind).toBe("blow-up")
  // a rise that holds
  expect(collapseOf(curve([0.5, 0.7, 0.8, 0.8, 0.78, 0.8]))?.kind).toBe("no collapse")
  // never above step 0
  expect(collapseOf(curve([0.8, 0.75, 0.7, 0.5, 0.4, 0.3]))?.kind).toBe("no collapse")
  // exactly 10 points below the peak collapses
  expect(collapseOf(curve([0.5, 0.9, 0.8, 0.8, 0.8]))?.kind).toBe("collapses")
  expect(collapseOf(curve([0.5, 0.9, 0.8]))).toBeNull()
  expect(collapseOf([{ step: 10, value: 0.5 }, ...curve([0.9, 0.8, 0.7]).map((p) => ({ ...p, step: p.step + 20 }))])).toBeNull()
})

test("success falls: last-3 at least 10 points below the highest evaluation, step 0 included", () => {
  expect(successFalls(curve([0.8, 0.75, 0.7, 0.5, 0.4, 0.3]))).toBe(true)
  expect(successFalls(curve([0.76, 0.66, 0.9, 0.5, 0.3, 0.2]))).toBe(true)
  expect(successFalls(curve([0.5, 0.7, 0.8, 0.8, 0.78, 0.8]))).toBe(false)
  expect(successFalls(curve([0.5, 0.7]))).toBeNull()
})

test("a setting collapses when at least two thirds of its runs do", () => {
  const c = curve([0.5, 0.8, 0.6, 0.4, 0.3])
  const h = curve([0.5, 0.6, 0.7, 0.8, 0.8])
  expect(settingCollapses([c, c, h])).toEqual({ collapses: true, runs: 3, collapsed: 2 })
  expect(settingCollapses([c, h, h])).toEqual({ collapses: false, runs: 3, collapsed: 1 })
  expect(settingCollapses([curve([0.5])])).toBeNull()
})
