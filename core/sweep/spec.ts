/**
 * The sweep spec (docs/design.md §9, docs/decisions.md#issue-7): axes whose Cartesian product is the grid of runs,
 * fixed settings shared by every run, and the budget. Decoded strictly: an unknown key is an
 * error naming it (a typo must not silently fall back to a default).
 *
 * Sources: a `.ts` file default-exporting a spec (or `defineSweep({...})`), `.json`, `.yaml`
 * / `.yml` (parsed with the `yaml` package, then decoded through the same Schema), or the
 * name of a preset a plugin contributes (the sweep plugin's: plugins/sweep/presets/index.ts).
 */
import { Cause, Effect, Exit, Option, Schema } from "effect"
import { existsSync, statSync } from "node:fs"
import { basename, extname, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { UsageError } from "../errors.ts"
import { readRegularFileSync } from "../files.ts"
import { type RegistryData, resolveEntry } from "../registry.ts"
import { withDefault as dflt } from "../contracts/defaults.ts"
import { plainIssues } from "../schema/issues.ts"
import { nearest } from "../text.ts"
import { parseYamlData } from "../yaml.ts"

const PosInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const Options = Schema.Record(Schema.String, Schema.Unknown)
/** A list that must hold at least one value (an empty axis would make an empty grid). */
const NonEmpty = <S extends Schema.Top>(s: S) => Schema.Array(s).check(Schema.isMinLength(1))

/**
 * An axis value: a registry id, or an id with options, an optional display label and, on the env
 * axis, `set`: config paths set for that env's runs as `--set` does (its RL recipe: `lr`,
 * `train.*`, `policyOptions.*`, ...), over `fixed` and the `lr` axis, under a `train` axis variant.
 */
export const Choice = Schema.Union([Schema.String, Schema.Struct({ id: Schema.String, options: dflt(Options, {}), label: Schema.optional(Schema.String), set: Schema.optional(Options) })])
export type Choice = typeof Choice.Type

/** A named set of train-option overrides: one value of the `train` axis (e.g. klCoef 0.01). */
export const TrainVariant = Schema.Struct({ label: Schema.String, set: Options })

export const Axes = Schema.Struct({
  env: NonEmpty(Choice),
  algo: dflt(NonEmpty(Choice), ["grpo"]),
  /** Any registered filter id, plugin ones included ("my-plugin/my-filter"). */
  filter: dflt(NonEmpty(Choice), ["none"]),
  seeds: dflt(NonEmpty(Schema.Int), [1, 2]),
  /** Group shapes P×G (prompts × trajectories per prompt). */
  PG: Schema.optional(NonEmpty(Schema.Struct({ P: PosInt, G: PosInt }))),
  lr: Schema.optional(NonEmpty(Schema.Finite)),
  /** Model presets of the policy (policyOptions.preset). */
  model: Schema.optional(NonEmpty(Schema.String)),
  train: Schema.optional(NonEmpty(TrainVariant))
})

/** Settings shared by every run; an axis overrides the matching field. */
export const Fixed = Schema.Struct({
  envOptions: Schema.optional(Options),
  algoOptions: Schema.optional(Options),
  filterOptions: Schema.optional(Options),
  policy: Schema.optional(Schema.String),
  policyOptions: Schema.optional(Options),
  /** Options of the MI diagnostics' cross-scorer (RunConfig.scorerOptions); left out, runs record none. */
  scorerOptions: Schema.optional(Options),
  P: Schema.optional(PosInt),
  G: Schema.optional(PosInt),
  lr: Schema.optional(Schema.Finite),
  /** Trainer options (core/train/options.ts), e.g. sftSteps, entropyCoef, teacher epsilon. */
  train: Schema.optional(Options)
})

/** No shipped suite comes near it; `sweep --max-runs` raises it (a spec's own `maxRuns` may only lower it). */
export const DEFAULT_MAX_RUNS = 10_000

export const Budget = Schema.Struct({
  steps: dflt(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), 100),
  /** Validation cadence and validation seed count; written into train.evalEvery / train.valSeeds. */
  evalEvery: Schema.optional(PosInt),
  valSeeds: Schema.optional(PosInt)
})

export const SweepSpec = Schema.Struct({
  name: Schema.String,
  description: dflt(Schema.String, ""),
  axes: Axes,
  fixed: dflt(Fixed, {}),
  budget: dflt(Budget, {}),
  /** Add, next to each `none` run, the same run with train.samplingStream 1: the leaderboard's noise floor. */
  noiseFloor: dflt(Schema.Boolean, false),
  /** The most runs the grid may have (counted before it is expanded); it may lower the user's `--max-runs`, never raise it. */
  maxRuns: dflt(PosInt, DEFAULT_MAX_RUNS),
  /** Seconds per training step for --dry-run's estimate (default: core/sweep/estimate.ts). */
  secondsPerStep: Schema.optional(Schema.Finite.check(Schema.isGreaterThan(0)))
})
export type SweepSpec = typeof SweepSpec.Type
export type SweepSpecInput = typeof SweepSpec.Encoded

/** Typed identity for `.ts` spec files: `export default defineSweep({...})`. */
export const defineSweep = (spec: SweepSpecInput): SweepSpecInput => spec

/** Decode a spec value strictly; the error names the source and the field. */
export const decodeSpec = (input: unknown, source: string): Effect.Effect<SweepSpec, UsageError> => {
  const exit = Schema.decodeUnknownExit(SweepSpec as any)(input, { errors: "all", onExcessProperty: "error", reportInput: true }) as Exit.Exit<SweepSpec, unknown>
  if (Exit.isSuccess(exit)) return Effect.succeed(exit.value)
  const e = Cause.squash(exit.cause) as { message?: string }
  return Effect.fail(new UsageError({ field: "spec", message: `sweep spec ${source} is invalid: ${plainIssues(String(e?.message ?? e))}` }))
}

/** The preset names of the registry (every plugin's `presets`), sorted. */
export const presetNames = (data: RegistryData | undefined): string[] => (data?.entries.presets ?? []).map((e) => e.localId).sort()

/** A name that is no file and no preset: one line with the nearest preset name, or the list of them. */
const unknownRef = (ref: string, data: RegistryData | undefined): UsageError => {
  const names = presetNames(data)
  const near = nearest(ref, names)
  const hint = near ? `did you mean ${near}? ` : ""
  return new UsageError({
    field: "spec",
    message: `sweep spec "${ref}" is neither a file nor a preset; ${hint}presets: ${names.join(", ") || "(none)"}; or pass a .ts, .json or .yaml file`
  })
}

const importDefault = (path: string): Effect.Effect<unknown, UsageError> =>
  Effect.tryPromise({
    try: async () => (await import(pathToFileURL(resolve(path)).href)).default,
    catch: (e) => new UsageError({ field: "spec", message: `cannot load sweep spec ${path}: ${String((e as Error)?.message ?? e).split("\n")[0]}` })
  })

const parseText = (path: string, text: string, ext: string): Effect.Effect<unknown, UsageError> =>
  Effect.try({
    try: () => (ext === ".json" ? JSON.parse(text) : parseYamlData(text)),
    catch: (e) => new UsageError({ field: "spec", message: `sweep spec ${path} does not parse: ${String((e as Error)?.message ?? e).split("\n")[0]}` })
  })

const readSpecText = (path: string): Effect.Effect<string, UsageError> =>
  Effect.try({
    try: () => new TextDecoder().decode(readRegularFileSync(path, 16 << 20)),
    catch: (e) => new UsageError({ field: "spec", message: `cannot read sweep spec: ${(e as Error).message}` })
  })

/**
 * Load a spec from a file path, or a preset by name from the registry's presets (a file of that
 * name wins). The core takes the presets it is given; it scans no folder for them.
 */
export const loadSpec = (ref: string, data?: RegistryData): Effect.Effect<SweepSpec, UsageError> =>
  Effect.gen(function* () {
    const path = ref
    if (!existsSync(ref)) {
      const preset = data && extname(ref) === "" ? yield* Effect.option(resolveEntry(data, "presets", ref)) : Option.none()
      if (Option.isSome(preset)) return yield* decodeSpec(preset.value.value, `preset ${preset.value.fullId}`)
      return yield* unknownRef(ref, data)
    }
    const kind = extname(path).toLowerCase()
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
      return yield* new UsageError({ field: "spec", message: `sweep spec ${path} is a folder; pass a .ts, .json or .yaml file (or a preset: ${presetNames(data).join(", ") || "(none)"})` })
    }
    let value: unknown
    if (kind === ".ts" || kind === ".js" || kind === ".mjs") value = yield* importDefault(path)
    else if (kind === ".json" || kind === ".yaml" || kind === ".yml") value = yield* parseText(path, yield* readSpecText(path), kind)
    else return yield* new UsageError({ field: "spec", message: `sweep spec ${path}: unknown file type "${kind}"; use .ts, .json, .yaml or .yml` })
    return yield* decodeSpec(value, basename(path))
  })
