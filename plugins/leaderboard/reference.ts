/**
 * Joining a published reference result set (a compact folder, by default the shipped
 * plugins/leaderboard/reference/standard/) to a user's runs, so that their filter's row stands beside
 * the published baselines without re-running them.
 *
 * A reference run joins when some run of the user's has the same resolved config apart from
 * the seed, the filter and its options, and the kernel backend (policyOptions.kernels: backends
 * are statistically equivalent, only exact re-runs need the same one), under the same
 * results-semantics version. Every other reference run is left out, and for each of its
 * configurations a note names what differs from the nearest configuration of the user's
 * (the dotted config keys with both values, or the semantics versions).
 * A reference run the user also has (the same run: same configuration, filter, options, seed and
 * sampling stream, the kernel backend aside) is replaced by the user's, and only that one.
 * When the published runs (joined or replaced) and the user's come from different numeric
 * families (numeric-family.ts), a note says so: paired by seed, they are independent draws.
 */
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { canonicalJson, type RunRead } from "../../core/host.ts"
import type { RunInput } from "./build.ts"
import { numericFamilyOf, rerunHint } from "./numeric-family.ts"

/** The shipped reference set (relative to this file, not to the working directory). */
export const DEFAULT_REFERENCE_DIR = fileURLToPath(new URL("./reference/standard/", import.meta.url))

/**
 * The default reference folder when it has been published, else undefined: the set named after the
 * sweep (reference/quick/ for `sweep quick`) when one is shipped, else the standard set.
 */
export const defaultReference = (sweepName?: string): string | undefined => {
  const named = sweepName && /^[a-z0-9][a-z0-9-]*$/.test(sweepName) ? fileURLToPath(new URL(`./reference/${sweepName}/`, import.meta.url)) : undefined
  if (named !== undefined && existsSync(named)) return named
  return existsSync(DEFAULT_REFERENCE_DIR) ? DEFAULT_REFERENCE_DIR : undefined
}

type ConfigFile = RunRead["config"]

/**
 * The configuration a reference run must share with a user's run: seed, filter, kernel backend
 * and sampling stream aside (the reference's noise floor, none on another stream, joins as none′).
 */
export const comparable = (file: ConfigFile): Record<string, unknown> => {
  const { seed: _s, filter: _f, filterOptions: _fo, policyOptions, train, ...rest } = file.config
  const { kernels: _k, ...policy } = policyOptions as Record<string, unknown>
  const { samplingStream: _ss, ...trainRest } = (train ?? {}) as Record<string, unknown>
  return { ...rest, policyOptions: policy, train: trainRest }
}

const keyOf = (file: ConfigFile): string => canonicalJson({ config: comparable(file), semantics: file.semantics })

/**
 * The one published run a run of yours stands for: the same resolved config (seed, filter, its
 * options and sampling stream included) under the same semantics version, the kernel backend
 * aside. Your `none` on seed 1 replaces the published `none` on seed 1, never its noise floor on
 * seed 1 (another sampling stream) nor a seed you did not run.
 */
export const runKeyOf = (file: ConfigFile): string => {
  const { kernels: _k, ...policyOptions } = file.config.policyOptions as Record<string, unknown>
  return canonicalJson({ config: { ...file.config, policyOptions }, semantics: file.semantics })
}

/** Dotted leaves: {a: {b: 1}} → a.b = "1". */
const leaves = (v: unknown, prefix: string, out: Map<string, string>): Map<string, string> => {
  if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0) {
    for (const k of Object.keys(v as object).sort()) leaves((v as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out)
  } else out.set(prefix, String(canonicalJson(v)))
  return out
}

export interface Difference {
  readonly key: string
  readonly reference: string
  readonly yours: string
}

/** What differs between two runs' comparable configurations and semantics versions (sorted by key). */
export const differences = (reference: ConfigFile, yours: ConfigFile): Difference[] => {
  const a = leaves(comparable(reference), "", new Map())
  const b = leaves(comparable(yours), "", new Map())
  const out: Difference[] = []
  for (const k of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const x = a.get(k) ?? "(unset)"
    const y = b.get(k) ?? "(unset)"
    if (x !== y) out.push({ key: k, reference: x, yours: y })
  }
  if (reference.semantics !== yours.semantics) out.push({ key: "results-semantics version", reference: String(reference.semantics), yours: String(yours.semantics) })
  return out
}

const MAX_LISTED = 6

const describe = (ds: ReadonlyArray<Difference>): string => {
  const shown = ds.slice(0, MAX_LISTED).map((d) => `${d.key} (reference ${d.reference}, yours ${d.yours})`)
  return shown.join(", ") + (ds.length > MAX_LISTED ? ` and ${ds.length - MAX_LISTED} more` : "")
}

export interface Joined {
  /** The reference runs that join the user's rows. */
  readonly runs: RunInput[]
  /** One line per left-out reference configuration, and a count of what was joined. */
  readonly notes: string[]
  readonly left: number
}

export const joinReference = (yours: ReadonlyArray<RunInput>, reference: ReadonlyArray<RunInput>, label: string): Joined => {
  const yourKeys = new Map<string, ConfigFile>()
  const yourSeeds = new Set<string>()
  const yourIds = new Set<string>()
  for (const { run } of yours) {
    yourKeys.set(keyOf(run.config), run.config)
    yourSeeds.add(runKeyOf(run.config))
    yourIds.add(run.config.runId)
  }
  const runs: RunInput[] = []
  let duplicates = 0
  // numeric family → how many of the published runs set beside (or replaced by) the user's have it
  const refFamilies = new Map<string, number>()
  const countFamily = (r: RunInput) => {
    const f = numericFamilyOf(r.run.config.runtime?.notes)
    if (f !== undefined) refFamilies.set(f, (refFamilies.get(f) ?? 0) + 1)
  }
  // reference configuration → its runs, for those no run of the user's shares
  const leftOut = new Map<string, RunInput[]>()
  for (const r of reference) {
    const f = r.run.config
    if (yourIds.has(f.runId) || yourSeeds.has(runKeyOf(f))) {
      duplicates++
      countFamily(r)
      continue
    }
    const key = keyOf(f)
    if (yourKeys.has(key)) {
      runs.push(r)
      countFamily(r)
    } else leftOut.set(key, [...(leftOut.get(key) ?? []), r])
  }
  const notes: string[] = []
  const unrelated: string[] = []
  let left = 0
  for (const group of leftOut.values()) {
    left += group.length
    const ref = group[0]!.run.config
    const c = ref.config
    // The nearest of the user's configurations of the same env and algorithm: fewest differences.
    let best: Difference[] | undefined
    for (const mine of yourKeys.values()) {
      if (mine.config.env !== c.env || mine.config.algo !== c.algo) continue
      const ds = differences(ref, mine)
      if (!best || ds.length < best.length) best = ds
    }
    if (best) notes.push(`reference ${c.env} · ${c.algo}: ${group.length} run(s) left out of your rows, the configuration differs: ${describe(best)}`)
    else unrelated.push(`${c.env} · ${c.algo}`)
  }
  if (unrelated.length > 0) {
    const names = [...new Set(unrelated)].sort()
    notes.push(
      `reference: ${names.length} configuration(s) with no run of yours of the same env and algorithm left out (${names.slice(0, MAX_LISTED).join(", ")}${names.length > MAX_LISTED ? ", …" : ""})`
    )
  }
  const yourFamilies = new Set(yours.map(({ run }) => numericFamilyOf(run.config.runtime?.notes)).filter((f): f is string => f !== undefined))
  const foreign = [...refFamilies].filter(([f]) => !yourFamilies.has(f)).sort(([a], [b]) => (a < b ? -1 : 1))
  if (foreign.length > 0 && yourFamilies.size > 0) {
    const theirs = foreign.map(([f, n]) => `${n} of numeric family ${f}`).join(", ")
    const hints = foreign.map(([f]) => rerunHint(f)).filter((h) => h !== "")
    notes.unshift(
      `reference ${label}: published run(s) ${theirs}, yours ${[...yourFamilies].sort().join(", ")}: paired by seed, they are independent draws, not bit-for-bit twins${hints.length > 0 ? `; ${hints.join("; ")}` : ""}`
    )
  }
  notes.unshift(
    `reference ${label}: ${runs.length} of ${reference.length} run(s) joined beside yours${duplicates > 0 ? `, ${duplicates} you also have (yours kept)` : ""}${left > 0 ? `, ${left} left out` : ""}`
  )
  return { runs, notes, left }
}
