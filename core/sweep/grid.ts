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
const checkGridSize = (spec: SweepSpec, axes: ReadonlyArray<readonly [string, number]>, userMax: number = DEFAULT_MAX_RUNS): Effect.Effect<void, UsageError> => {
  const none = spec.noiseFloor ? spec.axes.filter.filter((c) => (typeof c === "string" ? c : c.id) === "none").length : 0
  const [, filters] = axes.find(([k]) => k === "filter")!
  const count = axes.reduce((n, [, len]) => n * len, 1) * ((filters + none) / filters)
  // A spec built in code without decoding has no default filled in.
  // The spec's maxRuns may lower the user's cap (--max-runs), never raise it: a received spec cannot lift it.
  const limit = Math.min(spec.maxRuns ?? DEFAULT_MAX_RUNS, userMax)
  if (count <= limit) return Effect.void
  const product = axes
    .filter(([, len]) => len > 1)
    .map(([k, len]) => `${k} ${len}`)
    .join(" × ")
  return Effect.fail(
    new UsageError({
      field: limit === userMax ? "--max-runs" : "maxRuns",
      message:
        limit === userMax
          ? `sweep ${spec.name}: the grid has ${count} runs (${product}${none ? " + noise floor" : ""}), more than --max-runs ${limit}${(spec.maxRuns ?? 0) > limit ? ` (the spec's maxRuns ${spec.maxRuns} cannot raise it)` : ""}; shrink an axis, or pass --max-runs ${count} if you mean to run that many`
          : `sweep ${spec.name}: the grid has ${count} runs (${product}${none ? " + noise floor" : ""}), more than the spec's maxRuns ${limit}; shrink an axis, or raise "maxRuns" in the spec (and --max-runs) if you mean to run that many`
    })
  )
}

type Train = { label: string; set: Record<string, unknown> } | undefined

/** One point of the grid, before its filter's noise-floor twin. */
interface Cell {
  readonly seed: number
  readonly env: Picked
  readonly algo: Picked
  readonly pg: { P?: number; G?: number }
  readonly lr: number | undefined
  readonly model: string | undefined
  readonly tv: Train
  readonly filter: Picked
}

/** The axes' values, each axis with one undefined value where the spec leaves it out. */
const axesOf = (spec: SweepSpec) => {
  const a = spec.axes
  return {
    seeds: a.seeds,
    envs: a.env.map(pick),
    algos: a.algo.map(pick),
    filters: a.filter.map(pick),
    pgs: (a.PG ?? [{}]) as ReadonlyArray<{ P?: number; G?: number }>,
    lrs: (a.lr ?? [undefined]) as ReadonlyArray<number | undefined>,
    models: (a.model ?? [undefined]) as ReadonlyArray<string | undefined>,
    trains: (a.train ?? [undefined]) as ReadonlyArray<Train>
  }
}

/** The Cartesian product in the published order: seeds outermost, filters innermost. */
const cellsOf = (x: ReturnType<typeof axesOf>): Cell[] =>
  x.seeds.flatMap((seed) =>
    x.envs.flatMap((env) =>
      x.algos.flatMap((algo) =>
        x.pgs.flatMap((pg) => x.lrs.flatMap((lr) => x.models.flatMap((model) => x.trains.flatMap((tv) => x.filters.map((filter) => ({ seed, env, algo, pg, lr, model, tv, filter }))))))
      )
    )
  )

/** A cell's config before resolution: the fixed settings, the axis values, then each axis's `set` paths. */
const rawConfig = (spec: SweepSpec, c: Cell, budgetTrain: Record<string, unknown>): Effect.Effect<Record<string, any>, UsageError> =>
  Effect.gen(function* () {
    const f = spec.fixed
    const raw: Record<string, any> = {
      env: c.env.id,
      envOptions: { ...f.envOptions, ...c.env.options },
      algo: c.algo.id,
      algoOptions: { ...f.algoOptions, ...c.algo.options },
      filter: c.filter.id,
      filterOptions: { ...f.filterOptions, ...c.filter.options },
      ...(f.policy !== undefined ? { policy: f.policy } : {}),
      policyOptions: { ...f.policyOptions, ...(c.model !== undefined ? { preset: c.model } : {}) },
      ...(f.scorerOptions !== undefined ? { scorerOptions: f.scorerOptions } : {}),
      ...((c.pg.P ?? f.P) !== undefined ? { P: c.pg.P ?? f.P } : {}),
      ...((c.pg.G ?? f.G) !== undefined ? { G: c.pg.G ?? f.G } : {}),
      steps: spec.budget.steps,
      seed: c.seed,
      ...((c.lr ?? f.lr) !== undefined ? { lr: c.lr ?? f.lr } : {}),
      train: { ...f.train, ...budgetTrain }
    }
    for (const [k, v] of Object.entries(c.env.set)) {
      const path = k.split(".")
      yield* setPath(raw, TOP.has(path[0]!) || CONFIG_KEYS.has(path[0]!) || path[0] === "train" ? path : ["train", ...path], v, `axes.env "${c.env.label}" set`)
    }
    for (const [k, v] of Object.entries(c.tv?.set ?? {})) {
      const path = k.split(".")
      yield* setPath(raw, TOP.has(path[0]!) ? path : ["train", ...path], v, `axes.train "${c.tv!.label}"`)
    }
    return raw
  })

/** A cell's runs (the noise floor: beside each `none` run, the same run on another sampling stream), resolved and labelled; a run id already in `seen` is skipped. */
const cellRuns = (spec: SweepSpec, c: Cell, raw: Record<string, any>, seen: Set<string>) =>
  Effect.gen(function* () {
    const a = spec.axes
    const out: GridRun[] = []
    const variants: Array<[Record<string, any>, string]> = [[raw, c.filter.label]]
    if (spec.noiseFloor && c.filter.id === "none") variants.push([{ ...raw, train: { ...raw.train, samplingStream: 1 } }, "none′ (noise floor)"])
    for (const [r, filterLabel] of variants) {
      const where = `sweep ${spec.name}: run ${c.env.label} / ${c.algo.label} / ${filterLabel} seed ${c.seed}`
      const setup = yield* resolveSetup(r).pipe(Effect.mapError((e) => new UsageError({ field: "spec", message: `${where}: ${e.message}` })))
      const config: RunConfig = setup.config
      const { hash, runId } = runIdOf(config)
      if (seen.has(runId)) continue
      seen.add(runId)
      const parts = [c.env.label, c.algo.label, filterLabel]
      if (a.PG) parts.push(`${config.P}x${config.G}`)
      if (a.lr) parts.push(`lr=${config.lr}`)
      if (c.model !== undefined) parts.push(c.model)
      if (c.tv) parts.push(c.tv.label)
      parts.push(`s${c.seed}`)
      out.push({ runId, hash, config, label: parts.join(" "), ...(setup.warmStartNotice ? { notice: setup.warmStartNotice } : {}) })
    }
    return out
  })

/** `maxRuns`: the user's cap on the grid's size (`sweep --max-runs`, default DEFAULT_MAX_RUNS); the spec's own maxRuns may only lower it. */
export const expandGrid = (spec: SweepSpec, options: { readonly maxRuns?: number } = {}): Effect.Effect<GridRun[], UsageError | UnknownIdError, Registry> =>
  Effect.gen(function* () {
    const x = axesOf(spec)
    yield* checkGridSize(
      spec,
      [
        ["seeds", x.seeds.length],
        ["env", x.envs.length],
        ["algo", x.algos.length],
        ["filter", x.filters.length],
        ["PG", x.pgs.length],
        ["lr", x.lrs.length],
        ["model", x.models.length],
        ["train", x.trains.length]
      ],
      options.maxRuns
    )
    const budgetTrain: Record<string, unknown> = {}
    if (spec.budget.evalEvery !== undefined) budgetTrain.evalEvery = spec.budget.evalEvery
    if (spec.budget.valSeeds !== undefined) budgetTrain.valSeeds = spec.budget.valSeeds
    const out: GridRun[] = []
    const seen = new Set<string>()
    for (const cell of cellsOf(x)) out.push(...(yield* cellRuns(spec, cell, yield* rawConfig(spec, cell, budgetTrain), seen)))
    return out
  })
