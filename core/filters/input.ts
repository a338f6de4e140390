/**
 * Input checks every built-in filter runs first. `select` is synchronous, so bad input is
 * thrown as a FilterInputError (an Error subclass with the offending field); the CLI and the
 * trainer turn it into a user-facing error (exit 2).
 */
import type { Group } from "../contracts/index.ts"

export class FilterInputError extends Error {
  override readonly name = "FilterInputError"
  constructor(
    readonly field: string,
    message: string
  ) {
    super(message)
  }
}

export const isFilterInputError = (e: unknown): e is FilterInputError => e instanceof FilterInputError || (typeof e === "object" && e !== null && (e as { name?: unknown }).name === "FilterInputError")

/** Rejects NaN/infinite returns and empty groups, naming the group and trajectory. */
export const checkGroups = (groups: ReadonlyArray<Group>, filter: string): void => {
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!
    if (g.returns.length === 0) {
      throw new FilterInputError(`groups[${i}]`, `${filter}: group ${g.index} has no trajectories; every group needs at least one return`)
    }
    for (let k = 0; k < g.returns.length; k++) {
      const r = g.returns[k]
      if (typeof r !== "number" || !Number.isFinite(r)) {
        throw new FilterInputError(
          `groups[${i}][${k}]`,
          `${filter}: return ${String(r)} of group ${g.index}, trajectory ${k} is not a finite number; returns must be finite (check the env's rewards and the format penalty)`
        )
      }
    }
  }
}
