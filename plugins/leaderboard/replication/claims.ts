/** The claims of docs/replication.md, in the order of the paper's issue (C1–C7), then the project's own finding. */
import { c2MiPredictsSuccess, c3RetrievalFallsEntropyHolds, c7TaskGradientGrowsWithRv, factSeesCollapseEarlier } from "./diagnostic-claims.ts"
import { c1TopPRaisesSuccess, c4QuartilesDecline, c5PromptBeatsTrajectory, c6AdvantageShrinksWithSlip } from "./filter-claims.ts"
import type { ClaimRow } from "./row.ts"
import type { RunView } from "./runs.ts"

export const CLAIMS: ReadonlyArray<(runs: ReadonlyArray<RunView>) => ClaimRow> = [
  c1TopPRaisesSuccess,
  c2MiPredictsSuccess,
  c3RetrievalFallsEntropyHolds,
  c4QuartilesDecline,
  c5PromptBeatsTrajectory,
  c6AdvantageShrinksWithSlip,
  c7TaskGradientGrowsWithRv,
  factSeesCollapseEarlier
]

export const evaluateClaims = (runs: ReadonlyArray<RunView>): ClaimRow[] => CLAIMS.map((c) => c(runs))
