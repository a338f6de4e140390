/**
 * `ragen-bench train`: one StarPO training run (core/train). A live progress line on stderr;
 * Ctrl-C stops cleanly after the current step (summary status "stopped", checkpoint kept; a
 * second Ctrl-C exits at once); `--resume` continues a stopped or killed run from its last
 * checkpoint with results identical to an uninterrupted run.
 */
import { Console, Effect } from "effect"
import { parseYamlData } from "../../yaml.ts"
import { UsageError } from "../../errors.ts"
import { externalInputs } from "../../external-inputs.ts"
import { type FileReadError, readRegularFileSync, utf8 } from "../../files.ts"
import { resolveSinks, SinkChoices } from "../../metrics/sinks.ts"
import { decodeInput, decodeSync } from "../../schema/decode.ts"
import { RunConfig } from "../../contracts/run-config.ts"
import { parseValue, setPath } from "../kv.ts"
import { trainProgram } from "../../train/run.ts"
import { listFlag, numberFlag } from "../flags.ts"
import { defineCommand } from "../../contracts/plugin.ts"
import { Registry } from "../../registry.ts"

const TOP = new Set(["env", "envOptions", "algo", "algoOptions", "filter", "filterOptions", "policy", "policyOptions", "scorerOptions", "P", "G", "steps", "seed", "lr", "train"])

/** No run config nests this deep; a deeper document would overflow the stack of every recursive walk after parsing. */
const MAX_CONFIG_DEPTH = 64

/** Whether a parsed document nests deeper than `max` (iterative: a 100k-deep one must not overflow here either). */
const nestedDeeperThan = (doc: unknown, max: number): boolean => {
  const stack: Array<[unknown, number]> = [[doc, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== "object") continue
    if (depth > max) return true
    for (const x of Object.values(v)) stack.push([x, depth + 1])
  }
  return false
}

/** A config given with --from: a run's config.json (its resolved `config`) or a bare config, JSON or YAML. */
export const readConfigFile = (path: string): Effect.Effect<Record<string, any>, UsageError> =>
  Effect.gen(function* () {
    const field = "--from"
    let text: string
    try {
      text = utf8(readRegularFileSync(path, 1_000_000))
    } catch (e) {
      const code = (e as FileReadError).code
      const message =
        code === "ENOENT"
          ? `--from ${path}: file does not exist; pass a run's config.json or a config file (.json, .yaml)`
          : `--from ${path}: not a regular file of at most 1 MB (${(e as Error).message})`
      return yield* new UsageError({ field, message })
    }
    let doc: unknown
    try {
      doc = /\.ya?ml$/i.test(path) ? parseYamlData(text, { strict: false }) : JSON.parse(text)
    } catch (e) {
      return yield* new UsageError({ field, message: `--from ${path}: cannot parse it: ${String((e as Error).message).split("\n")[0]}` })
    }
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) return yield* new UsageError({ field, message: `--from ${path}: expected an object (a run config)` })
    if (nestedDeeperThan(doc, MAX_CONFIG_DEPTH)) return yield* new UsageError({ field, message: `--from ${path}: nested deeper than ${MAX_CONFIG_DEPTH} levels; no run config is` })
    const d = doc as Record<string, any>
    // A run folder's config.json holds the resolved config under `config`.
    return structuredClone("format" in d && d.config && typeof d.config === "object" ? d.config : d) as Record<string, any>
  })

/** Build the raw RunConfig from --from and the flags (flags win); `--set a.b=v` sets a path (train.* when the head is not a RunConfig field). */
export const configFromFlags = (o: Record<string, any>, filterValueOption: (id: string) => string | undefined) =>
  Effect.gen(function* () {
    const base: Record<string, any> = o.from !== undefined ? yield* readConfigFile(String(o.from)) : {}
    // A received config runs only what its sender could not make it reach (as `leaderboard verify`).
    const external = o.from !== undefined && o.allowExternal !== true ? externalInputs(base) : []
    if (external.length > 0) {
      return yield* new UsageError({
        field: "--from",
        message: `--from ${String(o.from)}: its config reads files or reaches URLs (${external.join(", ")}); run it only if you trust where it came from, with --allow-external`
      })
    }
    if (!o.env && base.env === undefined) return yield* new UsageError({ field: "--env", message: "--env is required (e.g. --env frozenlake); see ragen-bench list envs" })
    const cfg: Record<string, any> = { envOptions: {}, algoOptions: {}, filterOptions: {}, policyOptions: {}, train: {}, ...base }
    if (o.env !== undefined) cfg.env = String(o.env)
    if (o.algo !== undefined) cfg.algo = String(o.algo)
    if (o.filter !== undefined) cfg.filter = String(o.filter)
    if (o.policy !== undefined) cfg.policy = String(o.policy)
    if (o.preset !== undefined) cfg.policyOptions = { ...cfg.policyOptions, preset: String(o.preset) }
    const rules = [
      ["P", { integer: true, min: 1 }],
      ["G", { integer: true, min: 1 }],
      ["steps", { integer: true, min: 0 }],
      ["seed", { integer: true }],
      ["lr", { positive: true }]
    ] as const
    for (const [key, rule] of rules) {
      const v = yield* numberFlag(o[key], `--${key}`, rule)
      if (v !== undefined) cfg[key] = v
    }
    if (o.sftSteps !== undefined) cfg.train = { ...cfg.train, sftSteps: yield* numberFlag(o.sftSteps, "--sft-steps", { integer: true, min: 0 }) }
    if (o.init !== undefined) cfg.train = { ...cfg.train, init: String(o.init) }
    for (const s of listFlag(o.set)) {
      const eq = s.indexOf("=")
      if (eq <= 0) return yield* new UsageError({ field: "--set", message: `--set ${s}: expected key=value (e.g. --set evalEvery=5 or --set envOptions.successRate=0.8)` })
      const path = s.slice(0, eq).split(".")
      if (!TOP.has(path[0]!)) path.unshift("train")
      yield* setPath(cfg, path, parseValue(s.slice(eq + 1)), "--set")
    }
    if (o.filterValue !== undefined) {
      const id = cfg.filter ?? "none"
      const opt = filterValueOption(id)
      if (!opt) return yield* new UsageError({ field: "--filter-value", message: `filter "${id}" takes no --filter-value; set its options with --set filterOptions.<name>=<value>` })
      cfg.filterOptions = { ...cfg.filterOptions, [opt]: yield* numberFlag(o.filterValue, "--filter-value") }
    }
    return cfg
  })

const fmt = (x: number | null | undefined, d = 3) => (x === undefined || x === null ? "-" : x.toFixed(d))

/** RunConfig's own defaults, shown in --help (never typed in by hand). */
const dflt = (() => {
  const r = decodeSync(RunConfig, { env: "-" })
  return r.ok ? r.value : undefined
})()
const d = (k: keyof RunConfig): string => (dflt ? ` (default ${String(dflt[k])})` : "")

export default defineCommand({
  pattern: "train",
  description: "Train a policy with PPO/GRPO/DAPO and a rollout filter (StarPO loop); writes a run folder",
  options: [
    { flags: "--env <id>", description: "Environment (e.g. frozenlake, sokoban)" },
    { flags: "--algo <id>", description: `Algorithm: ppo, grpo, dapo${d("algo")}` },
    { flags: "--filter <id>", description: `Rollout filter${d("filter")}` },
    { flags: "--filter-value <v>", description: "The filter's main option (e.g. p for top-p)" },
    { flags: "--steps <n>", description: `Training steps${d("steps")}` },
    { flags: "--seed <n>", description: `Run seed${d("seed")}` },
    { flags: "--P <n>", description: `Prompts per step${d("P")}` },
    { flags: "--G <n>", description: `Trajectories per prompt${d("G")}` },
    { flags: "--lr <x>", description: `Learning rate${d("lr")}` },
    { flags: "--policy <id>", description: `Trainable policy${d("policy")}` },
    { flags: "--preset <name>", description: "Policy preset (tinylm: tiny, small)" },
    { flags: "--init <checkpoint>", description: "Start from this policy checkpoint" },
    { flags: "--sft-steps <n>", description: "SFT steps on teacher traces first (cached under <out>/.sft-cache)" },
    { flags: "--from <file>", description: "Start from a recorded config (a run's config.json, or a .json/.yaml config); flags override it" },
    { flags: "--allow-external", description: "With --from: run a config that reads files or reaches URLs (dataPath, init, a server's URL); only one you trust" },
    { flags: "--out <dir>", description: "Results folder", default: "results" },
    { flags: "--resume", description: "Continue the run from its last checkpoint" },
    { flags: "--fresh", description: "Start over, deleting an existing run folder of the same config" },
    { flags: "--set <key=value>", description: "Any trainer option (core/train/options.ts) or config path, repeatable" },
    { flags: "--sink <id>", description: "A metric sink besides metrics.jsonl (e.g. csv, tensorboard), repeatable" },
    { flags: "--json", description: "Print the summary as JSON (the default output is one JSON line too; with --json the progress line is off)" },
    { flags: "--quiet", description: "No progress line" }
  ],
  examples: [
    "ragen-bench train --env frozenlake --algo grpo --filter top-p --filter-value 0.9 --steps 150 --sft-steps 2000",
    "ragen-bench train --env sokoban --algo ppo --steps 200 --seed 1 --set evalEvery=20 --resume",
    "ragen-bench train --from results/<run>/config.json --out results-again"
  ],
  run: (_args, o) =>
    Effect.gen(function* () {
      const registry = yield* Registry
      const raw = yield* configFromFlags(o, (id) => {
        const e = registry.data.entries.filters.find((x) => x.fullId === id || x.localId === id)
        return e?.value.valueOption
      })
      const sinks = yield* resolveSinks(yield* decodeInput(SinkChoices, listFlag(o.sink), "--sink"), "--sink")
      const ctl = new AbortController()
      let interrupts = 0
      const onSigint = () => {
        if (++interrupts > 1) process.exit(130)
        process.stderr.write("\nstopping after the current step (Ctrl-C again to quit now)\n")
        ctl.abort()
      }
      process.on("SIGINT", onSigint)
      const t0 = performance.now()
      let firstStep: number | undefined
      const quiet = Boolean(o.quiet || o.json)
      const summary = yield* trainProgram(raw, {
        outDir: String(o.out ?? "results"),
        resume: Boolean(o.resume),
        fresh: Boolean(o.fresh),
        signal: ctl.signal,
        sinks,
        onLog: (l) => process.stderr.write(l + "\n"),
        onProgress: ({ step, steps, metrics: m }) => {
          if (quiet) return
          firstStep ??= step
          const el = (performance.now() - t0) / 1000
          const done = step - firstStep
          const eta = done > 0 ? ((steps - step) * el) / done : NaN
          const val = m["val/success@0.5"]
          process.stderr.write(
            `step ${step}/${steps}  success ${fmt(m["train/success"])}  reward ${fmt(m["train/return"])}  entropy ${fmt(m["train/entropy"])}  kept ${fmt(m["filter/kept_ratio"], 2)}  tok/s ${fmt(m["perf/tokens_per_second"], 0)}  ${val !== undefined ? `val ${fmt(val)}  ` : ""}${m["collapse/warning"] === 1 ? "COLLAPSE WARNING  " : ""}ETA ${Number.isFinite(eta) ? `${eta.toFixed(0)}s` : "-"}\n`
          )
        }
      }).pipe(Effect.ensuring(Effect.sync(() => process.off("SIGINT", onSigint))))
      const out = {
        runId: summary.runId,
        status: summary.status,
        stepsDone: summary.stepsDone,
        finalValSuccess: summary.finalValSuccess,
        peakValSuccess: summary.peakValSuccess,
        ...(summary.error ? { error: summary.error } : {})
      }
      yield* Console.log(o.json ? JSON.stringify(out, null, 2) : JSON.stringify(out))
      if (summary.status === "failed") process.exitCode = 1
      if (summary.status === "stopped") process.exitCode = 130
    })
})
