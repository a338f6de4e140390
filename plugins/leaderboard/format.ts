/** Number formatting shared by the Markdown and HTML renderers. */
import type { Stat } from "./schema.ts"

/** Success rates as percent with one decimal, as the paper's tables print them. */
export const pct = (x: number): string => (100 * x).toFixed(1)

export const fmtStat = (s: Stat): string => `${pct(s.mean)}${s.se !== null ? ` ± ${pct(s.se)}` : ""} (n=${s.n})`

export const fmtDelta = (s: Stat): string => `${s.mean >= 0 ? "+" : ""}${pct(s.mean)}${s.se !== null ? ` ± ${pct(s.se)}` : ""}`
