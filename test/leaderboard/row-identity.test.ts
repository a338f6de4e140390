import { expect, test } from "bun:test"
import { filterNameKey, filterNames } from "../../plugins/leaderboard/row-identity.ts"

test("filter names show only the options that tell same-id filters apart, and never an option a set leaves out", () => {
  const configs = [
    { filter: "filters/none", filterOptions: {} },
    { filter: "filters/random", filterOptions: { like: "top-p-softmax", p: 0.9, includeZero: true } },
    { filter: "filters/random", filterOptions: { like: "top-p", p: 0.9 } },
    { filter: "filters/top-p", filterOptions: { p: 0.9 } }
  ]
  const names = filterNames(configs)
  expect(configs.map((c) => names.get(filterNameKey(c)))).toEqual(["none", "random(includeZero=true,like=top-p-softmax)", "random(like=top-p)", "top-p"])
})
