/**
 * Which runs pool into a row and a cell: rows are env, algo and every resolved setting except
 * seed, filter and the rollout sampling stream; cells are filter + options (+ stream). Display
 * names of filters and the settings that tell rows apart come from the files alone.
 */
import { canonicalJson, contentHash, type RunRead } from "../../core/host.ts"
import { type FilterLabel, labelOf } from "./labels.ts"

/**
 * Runs pool into one row only when their resolved configs agree apart from the seed and the
 * filter, under the same results-semantics version (a changed rule or default never pools).
 */
export const rowKeyOf = (file: RunRead["config"]): string => {
  const { seed: _s, filter: _f, filterOptions: _fo, ...rest } = withoutStream(file.config)
  return canonicalJson({ config: rest, semantics: file.semantics })
}

/**
 * The config without train.samplingStream (the stream tells cells apart, not rows) and without
 * policyOptions.kernels (runs on different kernel backends are statistically equivalent and pool;
 * exact re-runs need the same backend, which config.json's runtime records).
 */
export const withoutStream = (c: RunRead["config"]["config"]): RunRead["config"]["config"] => {
  const { kernels: _k, ...policyOptions } = (c.policyOptions ?? {}) as Record<string, unknown>
  if (!c.train || !("samplingStream" in c.train)) return { ...c, policyOptions }
  const { samplingStream: _ss, ...train } = c.train as Record<string, unknown>
  return { ...c, policyOptions, train }
}

/** The cell's identity: the resolved config (seed aside) and the semantics version its runs share. */
export const cellHashOf = (file: RunRead["config"]): string => {
  const { seed: _s, ...rest } = withoutStream(file.config)
  return contentHash({ config: rest, semantics: file.semantics })
}

export const localId = (id: string): string => id.replace(/^.*\//, "")

/**
 * Display names of filters: the sweep's label where one names the configuration, else the suite's
 * (`fallback`; labels.ts; a label that would name two configurations present, or clash with
 * another's name, is not used),
 * else from the files alone: the filter's local id, plus the options whose values differ between
 * the configurations of that filter present ("top-p(p=0.9)" next to "top-p(p=1)"; a filter run
 * with one configuration is just "top-p").
 */
export const filterNames = (
  configs: ReadonlyArray<{ filter: string; filterOptions: Record<string, unknown> }>,
  labels: ReadonlyArray<FilterLabel> = [],
  fallback: ReadonlyArray<FilterLabel> = []
): Map<string, string> => {
  const derived = derivedFilterNames(configs)
  if (labels.length === 0 && fallback.length === 0) return derived
  const labelled = new Map<string, string>()
  for (const c of configs) {
    const l = labelOf(c, labels) ?? labelOf(c, fallback)
    if (l !== undefined) labelled.set(filterNameKey(c), l)
  }
  const uses = new Map<string, number>()
  for (const l of labelled.values()) uses.set(l, (uses.get(l) ?? 0) + 1)
  const taken = new Set([...derived].filter(([k]) => !labelled.has(k)).map(([, name]) => name))
  const out = new Map<string, string>()
  for (const [k, name] of derived) {
    const l = labelled.get(k)
    out.set(k, l !== undefined && uses.get(l) === 1 && !taken.has(l) ? l : name)
  }
  return out
}

const derivedFilterNames = (configs: ReadonlyArray<{ filter: string; filterOptions: Record<string, unknown> }>): Map<string, string> => {
  const byId = new Map<string, Array<Record<string, unknown>>>()
  for (const c of configs) {
    const list = byId.get(c.filter) ?? []
    if (!list.some((o) => canonicalJson(o) === canonicalJson(c.filterOptions))) list.push(c.filterOptions)
    byId.set(c.filter, list)
  }
  // Two plugins' filters of the same local id keep their full ids.
  const locals = new Map<string, number>()
  for (const id of byId.keys()) locals.set(localId(id), (locals.get(localId(id)) ?? 0) + 1)
  const out = new Map<string, string>()
  for (const [id, optionSets] of byId) {
    const keys = [...new Set(optionSets.flatMap((o) => Object.keys(o)))].sort()
    const varying = keys.filter((k) => new Set(optionSets.map((o) => canonicalJson(o[k] ?? null))).size > 1)
    const name = locals.get(localId(id))! > 1 ? id : localId(id)
    for (const o of optionSets) {
      // An option one set leaves out is left out of its label (not "k=undefined").
      const shown = varying.filter((k) => o[k] !== undefined)
      const label = shown.length === 0 ? name : `${name}(${shown.map((k) => `${k}=${typeof o[k] === "object" ? canonicalJson(o[k]) : String(o[k])}`).join(",")})`
      out.set(`${id}\u0000${canonicalJson(o)}`, label)
    }
  }
  return out
}
export const filterNameKey = (c: { filter: string; filterOptions: Record<string, unknown> }): string => `${c.filter}\u0000${canonicalJson(c.filterOptions)}`

/** Dotted leaves of an object: {a: {b: 1}} → {"a.b": "1"}. */
const leaves = (v: unknown, prefix: string, out: Map<string, string>): void => {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    for (const k of Object.keys(v as object).sort()) leaves((v as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out)
  } else out.set(prefix, canonicalJson(v))
}

/**
 * The settings that tell apart rows of the same env and algorithm, shown next to them (an env
 * option that only one env has, or one value per env, is not a distinguishing setting).
 */
export const settingLabels = (configs: ReadonlyMap<string, RunRead["config"]["config"]>): Map<string, string> => {
  const groups = new Map<string, Array<[string, Map<string, string>]>>()
  for (const [key, c] of configs) {
    const { seed: _s, filter: _f, filterOptions: _fo, env: _e, algo: _a, ...rest } = withoutStream(c)
    const m = new Map<string, string>()
    leaves(rest, "", m)
    const g = `${c.env}\u0000${c.algo}`
    groups.set(g, [...(groups.get(g) ?? []), [key, m]])
  }
  const out = new Map<string, string>()
  for (const rows of groups.values()) {
    const allKeys = new Set(rows.flatMap(([, m]) => [...m.keys()]))
    const varying = [...allKeys].filter((k) => new Set(rows.map(([, m]) => m.get(k) ?? "∅")).size > 1).sort()
    for (const [key, m] of rows) out.set(key, varying.map((k) => `${k}=${(m.get(k) ?? "-").replace(/^"|"$/g, "")}`).join(" "))
  }
  return out
}
