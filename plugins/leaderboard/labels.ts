/**
 * The names a page gives its filters: the labels the sweep gave them, so that "Q4 (lowest-spread
 * quarter, positive control)" printed by `sweep quick` is what its page, plots and verdict say too.
 * A run's config does not hold its label (the label is not part of what ran, and the run id hashes
 * the config), so a label is matched back to runs by filter id and options: a sweep's labelled
 * choice names every run whose filter has its local id and whose resolved options agree with every
 * option the choice sets; the choice that sets the most options wins (`{p: 0.9, includeZero: true}`
 * over `{p: 0.9}`). The suite's labels (SUITE_LABELS) name their exact configurations only. Runs no label names keep the name the files give them (row-identity.ts filterNames).
 */
import { canonicalJson } from "../../core/host.ts"

/** A labelled filter choice, as a sweep spec's filter axis writes it (core/sweep/spec.ts Choice). */
export interface FilterLabel {
  readonly id: string
  readonly options: Readonly<Record<string, unknown>>
  readonly label: string
  /** Names only the configuration whose resolved options are exactly these (else: every one that agrees with them). */
  readonly exact?: boolean
}

/**
 * The suite presets' labelled filters (plugins/sweep/presets/_common.ts PAPER_TOP_P, LINEAR_TOP_P,
 * RANDOM_LIKE_PAPER_TOP_P, RANDOM_LIKE_LINEAR_TOP_P, POSITIVE_CONTROL_Q4, RANDOM_LIKE_Q4; standard-extended's two),
 * each with its options as a run resolves them (every default filled in), so that a label names
 * exactly that configuration on any page, the published reference sets' included, and no other
 * (a top-p with another eps stays "top-p(eps=…)"). test/leaderboard/labels.test.ts checks each
 * against the preset's own label and resolved config, so the two cannot drift apart.
 */
export const SUITE_LABELS: ReadonlyArray<FilterLabel> = [
  { id: "top-p-softmax", options: { p: 0.9, temperature: 1, metric: "std", includeZero: true }, label: "top-p 0.9 (softmax, include zero)" },
  { id: "top-p", options: { p: 0.9, eps: 0.01, metric: "std", includeZero: false }, label: "top-p 0.9 (linear, drop zero)" },
  { id: "random", options: { like: "top-p-softmax", p: 0.9, includeZero: true }, label: "random (top-p's count)" },
  { id: "random", options: { like: "top-p", p: 0.9 }, label: "random (linear top-p's count)" },
  { id: "random", options: { like: "quantile", lo: 0.75, hi: 1 }, label: "random (Q4's count)" },
  { id: "quantile", options: { lo: 0.75, hi: 1, metric: "std", includeZero: true }, label: "Q4 (lowest-spread quarter, positive control)" },
  { id: "top-p", options: { p: 1, eps: 0.01, metric: "std", includeZero: false }, label: "top-p 1.0 (linear, zero dropped)" },
  { id: "top-k", options: { k: 0.25, metric: "std", includeZero: false }, label: "top-k 0.25" }
].map((l) => ({ ...l, exact: true }))

/** What marks a filter as the suite's positive control (a filter known to hurt) in its label. */
export const POSITIVE_CONTROL = "positive control"

export const isPositiveControl = (name: string): boolean => name.includes(POSITIVE_CONTROL)

const localId = (id: string): string => id.replace(/^.*\//, "")

/** The label of a run's filter: the most specific labelled choice that matches it (first listed on a tie), or undefined. */
export const labelOf = (c: { filter: string; filterOptions: Readonly<Record<string, unknown>> }, labels: ReadonlyArray<FilterLabel>): string | undefined => {
  let best: FilterLabel | undefined
  for (const l of labels) {
    if (l.id !== c.filter && localId(l.id) !== localId(c.filter)) continue
    if (l.exact && canonicalJson(l.options) !== canonicalJson(c.filterOptions)) continue
    if (!Object.entries(l.options).every(([k, v]) => k in c.filterOptions && canonicalJson(c.filterOptions[k]) === canonicalJson(v))) continue
    if (!best || Object.keys(l.options).length > Object.keys(best.options).length) best = l
  }
  return best?.label
}

/**
 * The labelled choices of a sweep spec's filter axis: what the spec's author named (an unlabelled
 * choice keeps the name its runs' files give it, or the suite's label for the suite's configurations).
 */
export const specLabels = (choices: ReadonlyArray<string | { id: string; options?: Readonly<Record<string, unknown>>; label?: string }>): FilterLabel[] =>
  choices.flatMap((c) => (typeof c === "string" || c.label === undefined ? [] : [{ id: c.id, options: c.options ?? {}, label: c.label }]))
