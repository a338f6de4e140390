/** The four reasoning regimes of RAGEN-2 Fig. 1 (re-exported from mi.ts for discoverability). */
export { classifyRegime, defaultRegimeThresholds, type Regime, regimeCodes, type RegimeThresholds } from "./mi.ts"

/** Regime name from its logged numeric code (mi/<...>/regime). */
export const regimeName = (code: number): string =>
  ["diverse", "template-collapse", "compressed", "low-entropy-collapse"][code] ?? "unknown"
