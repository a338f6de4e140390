/** `none`: keep every group and trajectory (the no-filter baseline). */
import { Schema } from "effect"
import type { Filter } from "../../core/contracts/index.ts"
import { checkGroups } from "../../core/host.ts"
import { keepWhole } from "./score.ts"

export const noneFilter: Filter<{}> = {
  name: "none",
  description: "Keep every group (no filtering; the baseline)",
  options: Schema.Struct({}),
  select: (groups) => {
    checkGroups(groups, "none")
    return keepWhole(groups, groups.keys())
  }
}
