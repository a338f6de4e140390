/**
 * The four reasoning regimes of RAGEN-2 Fig. 1 (re-exported from mi.ts for discoverability).
 * The quadrant reads H(Z|X) and MI-Seq-Est / log N, with the batch's reasoning fact accuracy as
 * grounded evidence when given (`RegimeEvidence`): docs/design.md §10's collapse (fact accuracy
 * 0.99 → 0.16 while MI-Seq-Est stays near log N) is template collapse, not "diverse".
 */
export {
  classifyRegime,
  defaultRegimeThresholds,
  type Regime,
  regimeCodes,
  type RegimeEvidence,
  type RegimeThresholds
} from "./mi.ts"

/** Regime name from its logged numeric code (mi/<...>/regime). */
export const regimeName = (code: number): string => ["diverse", "template-collapse", "compressed", "low-entropy-collapse"][code] ?? "unknown"
