/**
 * Matched controls: which cell of a row is a filter's random control at the same kept count, so
 * that the page can compare the filter with it ("selection", filter − control, paired by seed)
 * beside "filter − none". A filter that drops groups also takes fewer optimizer steps; the random
 * control keeps as many groups on each batch, so filter − control separates *which* groups are
 * kept from *how much* the model is updated (issue 39).
 *
 * - `random` with `like` naming a filter and that filter's options inline (algorithms/filters/random.ts)
 *   controls the cell of that filter (same local id) whose resolved options agree with every
 *   option the control sets; the sweep presets write it so (plugins/sweep/presets/_common.ts
 *   RANDOM_LIKE_PAPER_TOP_P, RANDOM_LIKE_LINEAR_TOP_P).
 * - `random` with `ratio` r controls the quantile filter that keeps the lowest-spread slice of
 *   width r (lo = 1 − r, hi = 1: Q4 at r = 0.25, Table 6's positive control).
 * - A control that matches no filter of its row, or more than one, controls none (it stays a
 *   filter compared with none). A `count` control matches nothing: its kept count is fixed, not a
 *   filter's.
 *
 * Only cells on the default sampling stream pair (a ′ variant is another experiment).
 */
import { canonicalJson } from "../../core/host.ts"

/** A cell's filter as its runs' resolved configs hold it. */
export interface CellFilter {
  /** The cell's display name on the page. */
  readonly name: string
  readonly id: string
  readonly options: Readonly<Record<string, unknown>>
  /** The rollout sampling stream (0 unless the cell is a ′ variant or the noise floor). */
  readonly stream: number
}

export const RANDOM_CONTROL = "random"
export const QUANTILE = "quantile"

const localId = (id: string): string => id.replace(/^.*\//, "")

const sameValue = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null)

/** The filter a random control stands for among `cells` (null: none, or several). */
export const controlledBy = (control: CellFilter, cells: ReadonlyArray<CellFilter>): CellFilter | null => {
  if (localId(control.id) !== RANDOM_CONTROL || control.stream !== 0) return null
  const { like, count, ratio, ...inline } = control.options
  if (count !== undefined) return null
  const candidates = cells.filter((c) => c.stream === 0 && c !== control && localId(c.id) !== RANDOM_CONTROL)
  let matches: CellFilter[]
  if (typeof ratio === "number") {
    // Q4 and its like: the lowest-spread slice of the same width as the control's ratio.
    matches = candidates.filter((c) => {
      const { lo, hi } = c.options
      return localId(c.id) === QUANTILE && typeof lo === "number" && typeof hi === "number" && Math.abs(hi - 1) < 1e-9 && Math.abs(hi - lo - ratio) < 1e-9
    })
  } else {
    if (typeof like !== "string") return null
    matches = candidates.filter((c) => (c.id === like || localId(c.id) === localId(like)) && Object.entries(inline).every(([k, v]) => sameValue(c.options[k], v)))
  }
  return matches.length === 1 ? matches[0]! : null
}

/** Per filter name, the name of its matched random control in the same row (a filter with none is absent). */
export const matchedControls = (cells: ReadonlyArray<CellFilter>): Map<string, string> => {
  const out = new Map<string, string>()
  const claimed = new Map<string, number>()
  const pairs = cells.flatMap((control) => {
    const f = controlledBy(control, cells)
    return f ? [{ filter: f.name, control: control.name }] : []
  })
  for (const p of pairs) claimed.set(p.filter, (claimed.get(p.filter) ?? 0) + 1)
  // A filter two controls both claim is left without one: which is its match is not for the page to guess.
  for (const p of pairs) if (claimed.get(p.filter) === 1) out.set(p.filter, p.control)
  return out
}
