/**
 * What the page reads from a Leaderboard, in one place: the primary score and its paired
 * difference, each comparison's verdict, the page's first sentence, the across-env aggregates
 * and what a cell's filter kept. The renderers (html.ts, plots/, rows.ts, csv.ts) read these
 * accessors only, so a change of the leaderboard's fields is a change here.
 */
import type { Across, Aggregate, Cell, Estimate, Leaderboard, Paired, Row, Verdict } from "./schema.ts"

export type { Verdict }

/** The score the page leads with, in words. */
export const PRIMARY_LABEL = "area under the validation curve"

/** A cell's primary score over seeds (the area under its validation curve). */
export const primaryOf = (c: Cell): Estimate | null => c.auc

/** A cell's paired difference from `none` on the primary score (null for none itself). */
export const primaryDeltaOf = (c: Cell): Paired | null => c.delta

/** The verdict on one paired comparison (plugins/leaderboard/statistics/verdicts.ts). */
export const verdictOf = (d: Paired): Verdict => d.verdict

/** The mean fraction of groups the cell's filter kept (null where not logged). */
export const keptOf = (c: Cell): number | null => c.kept.groups

export const iqmOf = (a: Across): Aggregate | null => a.iqm
export const improvementOf = (a: Across): Aggregate | null => a.improvement

/** The row's noise-floor cell (none on another sampling stream), if any. */
export const noiseFloorOf = (r: Row): Cell | undefined => r.cells.find((c) => c.kind === "noise-floor")

/** Why none does not learn in this row (it stays on the page, out of the aggregates); null when it learns. */
export const notLearningOf = (r: Row): string | null => r.notLearning

/** The page's verdict in one sentence (build.ts writes it into leaderboard.json). */
export const pageSentence = (lb: Leaderboard): string => lb.verdict.sentence

/** Best in its row: build.ts marks the highest primary among cells separated above none. */
export const bestOf = (c: Cell): boolean => c.best
