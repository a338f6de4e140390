/**
 * Expand a sweep spec into its runs: the Cartesian product of the axes, each RESOLVED through
 * the registry as `train` resolves it (core/train/setup.ts: every option decoded strictly at
 * every depth, defaults filled in, ids in full), whose content hash is the run id. So a sweep
 * and a `train` of the same settings share a run, and a typo anywhere in a spec is an error
 * naming the run and the key before any work starts.
 * Order: seeds outermost, filters innermost, so that a partly done sweep already holds
 * complete filter comparisons for the first seeds.
 */
import { Effect } from "effect"
import { setPath } from "../cli/kv.ts"
import type { UnknownIdError } from "../errors.ts"
import { UsageError } from "../errors.ts"
import { canonicalJson } from "../hash.ts"
import type { Registry } from "../registry.ts"
import { runIdOf } from "../results/store.ts"
import type { GridRun } from "../contracts/executor.ts"
import type { RunConfig } from "../contracts/run-config.ts"
import { resolveSetup } from "../train/setup.ts"
import { type Choice, DEFAULT_MAX_RUNS, type SweepSpec } from "./spec.ts"

interface Picked {
  readonly id: string
  readonly options: Record<string, unknown>
  readonly label: string
  /** Config paths set for this choice's runs (env recipes). */
  readonly set: Record<string, unknown>
}

const fmtOptions = (o: Record<string, unknown>): string => {
  const keys = Object.keys(o).sort()
  return keys.length === 0 ? "" : `(${keys.map((k) => `${k}=${typeof o[k] === "object" ? canonicalJson(o[k]) : String(o[k])}`).join(",")})`
}

const pick = (c: Choice): Picked =>
  typeof c === "string" ? { id: c, options: {}, label: c, set: {} } : { id: c.id, options: c.options, label: c.label ?? `${c.id}${fmtOptions(c.options)}${fmtOptions(c.set ?? {})}`, set: c.set ?? {} }

/** Config fields a `set` may name directly; any other key is a trainer option (train.<key>). */
const CONFIG_KEYS = new Set(["lr", "P", "G", "steps", "policy"])

/** Config fields a train-axis variant may set by path (like `--set`); any other key is a trainer option. */
const TOP = new Set(["envOptions", "algoOptions", "filterOptions", "policyOptions", "scorerOptions"])

/**
 * The grid's size from the axes' lengths, before any run is resolved: a spec of a few kilobytes
 * can name 10^9 runs, and expanding them would fill memory silently for minutes.
 */
const checkGridSize = (spec: SweepSpec, axes: ReadonlyArray<readonly [string, number]>): Effect.Effect<void, UsageError> => {
  const none = spec.noiseFloor ? spec.axes.filter.filter((c) => (typeof c === "string" ? c : c.id) === "none").length : 0
  const [, filters] = axes.find(([k]) => k === "filter")!
  const count = axes.reduce((n, [, len]) => n * len, 1) * ((filters + none) / filters)
  // A spec built in code without decoding has no default filled in.
  const limit = spec.maxRuns ?? DEFAULT_MAX_RUNS
  if (count <= limit) return Effect.void
  const product = axes
    .filter(([, len]) => len > 1)
    .map(([k, len]) => `${k} ${len}`)
    .join(" × ")
  return Effect.fail(
    new UsageError({
      field: "maxRuns",
      message: `sweep ${spec.name}: the grid has ${count} runs (${product}${none ? " + noise floor" : ""}), more than maxRuns ${limit}; shrink an axis, or set "maxRuns" in the spec if you mean to run that many`
    })
  )
}

export const expandGrid = (spec: SweepSpec): Effect.Effect<GridRun[], UsageError | UnknownIdError, Registry> =>
  Effect.gen(function* () {
    const a = spec.axes
    const f = spec.fixed
    const envs = a.env.map(pick)
    const algos = a.algo.map(pick)
    const filters = a.filter.map(pick)
    const pgs: ReadonlyArray<{ P?: number; G?: number }> = a.PG ?? [{}]
    const lrs: ReadonlyArray<number | undefined> = a.lr ?? [undefined]
    const models: ReadonlyArray<string | undefined> = a.model ?? [undefined]
    const trains: ReadonlyArray<{ label: string; set: Record<string, unknown> } | undefined> = a.train ?? [undefined]
    yield* checkGridSize(spec, [
      ["seeds", a.seeds.length],
      ["env", envs.length],
      ["algo", algos.length],
      ["filter", filters.length],
      ["PG", pgs.length],
      ["lr", lrs.length],
      ["model", models.length],
      ["train", trains.length]
    ])
    const budgetTrain: Record<string, unknown> = {}
    if (spec.budget.evalEvery !== undefined) budgetTrain.evalEvery = spec.budget.evalEvery
    if (spec.budget.valSeeds !== undefined) budgetTrain.valSeeds = spec.budget.valSeeds
    const out: GridRun[] = []
    const seen = new Set<string>()
    for (const seed of a.seeds) {
      for (const env of envs) {
        for (const algo of algos) {
          for (const pg of pgs) {
            for (const lr of lrs) {
              for (const model of models) {
                for (const tv of trains) {
                  for (const filter of filters) {
                    const raw: Record<string, any> = {
                      env: env.id,
                      envOptions: { ...f.envOptions, ...env.options },
                      algo: algo.id,
                      algoOptions: { ...f.algoOptions, ...algo.options },
                      filter: filter.id,
                      filterOptions: { ...f.filterOptions, ...filter.options },
                      ...(f.policy !== undefined ? { policy: f.policy } : {}),
                      policyOptions: { ...f.policyOptions, ...(model !== undefined ? { preset: model } : {}) },
                      ...(f.scorerOptions !== undefined ? { scorerOptions: f.scorerOptions } : {}),
                      ...((pg.P ?? f.P) !== undefined ? { P: pg.P ?? f.P } : {}),
                      ...((pg.G ?? f.G) !== undefined ? { G: pg.G ?? f.G } : {}),
                      steps: spec.budget.steps,
                      seed,
                      ...((lr ?? f.lr) !== undefined ? { lr: lr ?? f.lr } : {}),
                      train: { ...f.train, ...budgetTrain }
                    }
                    for (const [k, v] of Object.entries(env.set)) {
                      const path = k.split(".")
                      yield* setPath(raw, TOP.has(path[0]!) || CONFIG_KEYS.has(path[0]!) || path[0] === "train" ? path : ["train", ...path], v, `axes.env "${env.label}" set`)
                    }
                    for (const [k, v] of Object.entries(tv?.set ?? {})) {
                      const path = k.split(".")
                      yield* setPath(raw, TOP.has(path[0]!) ? path : ["train", ...path], v, `axes.train "${tv!.label}"`)
                    }
                    // The noise floor: next to each `none` run, the same run on another sampling stream.
                    const variants: Array<[Record<string, any>, string]> = [[raw, filter.label]]
                    if (spec.noiseFloor && filter.id === "none") variants.push([{ ...raw, train: { ...raw.train, samplingStream: 1 } }, "none′ (noise floor)"])
                    for (const [r, filterLabel] of variants) {
                      const where = `sweep ${spec.name}: run ${env.label} / ${algo.label} / ${filterLabel} seed ${seed}`
                      const setup = yield* resolveSetup(r).pipe(Effect.mapError((e) => new UsageError({ field: "spec", message: `${where}: ${e.message}` })))
                      const config: RunConfig = setup.config
                      const { hash, runId } = runIdOf(config)
                      if (seen.has(runId)) continue
                      seen.add(runId)
                      const parts = [env.label, algo.label, filterLabel]
                      if (a.PG) parts.push(`${config.P}x${config.G}`)
                      if (a.lr) parts.push(`lr=${config.lr}`)
                      if (model !== undefined) parts.push(model)
                      if (tv) parts.push(tv.label)
                      parts.push(`s${seed}`)
                      out.push({ runId, hash, config, label: parts.join(" "), ...(setup.warmStartNotice ? { notice: setup.warmStartNotice } : {}) })
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    return out
  })
