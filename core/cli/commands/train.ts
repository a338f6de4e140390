/**
 * `ragen-bench train`: one StarPO training run (core/train). A live progress line on stderr;
 * Ctrl-C stops cleanly after the current step (summary status "stopped", checkpoint kept; a
 * second Ctrl-C exits at once); `--resume` continues a stopped or killed run from its last
 * checkpoint with results identical to an uninterrupted run.
 */
import { Console, Effect } from "effect"
import { UsageError } from "../../errors.ts"
import { trainProgram } from "../../train/run.ts"
import { numberFlag } from "../flags.ts"
import { defineCommand } from "../command.ts"
import { Registry } from "../../registry.ts"

const TOP = new Set(["env", "envOptions", "algo", "algoOptions", "filter", "filterOptions", "policy", "policyOptions", "P", "G", "steps", "seed", "lr", "train"])

const parseValue = (v: string): unknown => {
  try {
    return JSON.parse(v)
  } catch {
    return v
  }
}


/** Build the raw RunConfig from flags; `--set a.b=v` sets a path (train.* when the head is not a RunConfig field). */
export const configFromFlags = (o: Record<string, any>, filterValueOption: (id: string) => string | undefined) =>
  Effect.gen(function*() {
    if (!o.env) return yield* new UsageError({ field: "--env", message: "--env is required (e.g. --env frozenlake); see ragen-bench list envs" })
    const cfg: Record<string, any> = { env: String(o.env), envOptions: {}, algoOptions: {}, filterOptions: {}, policyOptions: {}, train: {} }
    if (o.algo !== undefined) cfg.algo = String(o.algo)
    if (o.filter !== undefined) cfg.filter = String(o.filter)
    if (o.policy !== undefined) cfg.policy = String(o.policy)
    if (o.preset !== undefined) cfg.policyOptions.preset = String(o.preset)
    for (const [flag, key] of [["P", "P"], ["G", "G"], ["steps", "steps"], ["seed", "seed"], ["lr", "lr"]] as const) {
      const v = yield* numberFlag(o[flag], `--${flag}`)
      if (v !== undefined) cfg[key] = v
    }
    if (o.sftSteps !== undefined) cfg.train.sftSteps = yield* numberFlag(o.sftSteps, "--sft-steps")
    if (o.init !== undefined) cfg.train.init = String(o.init)
    const sets = o.set === undefined ? [] : Array.isArray(o.set) ? o.set : [o.set]
    for (const s of sets.map(String)) {
      const eq = s.indexOf("=")
      if (eq <= 0) return yield* new UsageError({ field: "--set", message: `--set ${s}: expected key=value (e.g. --set evalEvery=5 or --set envOptions.successRate=0.8)` })
      const path = s.slice(0, eq).split(".")
      if (!TOP.has(path[0]!)) path.unshift("train")
      let at = cfg
      for (const k of path.slice(0, -1)) at = at[k] ??= {}
      at[path.at(-1)!] = parseValue(s.slice(eq + 1))
    }
    if (o.filterValue !== undefined) {
      const id = cfg.filter ?? "none"
      const opt = filterValueOption(id)
      if (!opt) return yield* new UsageError({ field: "--filter-value", message: `filter "${id}" takes no --filter-value; set its options with --set filterOptions.<name>=<value>` })
      cfg.filterOptions[opt] = yield* numberFlag(o.filterValue, "--filter-value")
    }
    return cfg
  })

const fmt = (x: number | null | undefined, d = 3) => (x === undefined || x === null ? "-" : x.toFixed(d))

export default defineCommand({
  pattern: "train",
  description: "Train a policy with PPO/GRPO/DAPO and a rollout filter (StarPO loop); writes a run folder",
  options: [
    { flags: "--env <id>", description: "Environment (e.g. frozenlake, sokoban)" },
    { flags: "--algo <id>", description: "Algorithm: ppo, grpo, dapo (default grpo)" },
    { flags: "--filter <id>", description: "Rollout filter (default none)" },
    { flags: "--filter-value <v>", description: "The filter's main option (e.g. p for top-p)" },
    { flags: "--steps <n>", description: "Training steps (default 200)" },
    { flags: "--seed <n>", description: "Run seed (default 1)" },
    { flags: "--P <n>", description: "Prompts per step (default 8)" },
    { flags: "--G <n>", description: "Trajectories per prompt (default 16)" },
    { flags: "--lr <x>", description: "Learning rate (default 1e-4)" },
    { flags: "--policy <id>", description: "Trainable policy (default tinylm)" },
    { flags: "--preset <name>", description: "Policy preset (tinylm: tiny, small)" },
    { flags: "--init <checkpoint>", description: "Start from this policy checkpoint" },
    { flags: "--sft-steps <n>", description: "SFT steps on teacher traces first (cached under <out>/.sft-cache)" },
    { flags: "--out <dir>", description: "Results folder", default: "results" },
    { flags: "--resume", description: "Continue the run from its last checkpoint" },
    { flags: "--fresh", description: "Start over, deleting an existing run folder of the same config" },
    { flags: "--set <key=value>", description: "Any trainer option (core/train/options.ts) or config path, repeatable" },
    { flags: "--quiet", description: "No progress line" }
  ],
  examples: [
    "ragen-bench train --env frozenlake --algo grpo --filter top-p --filter-value 0.9 --steps 150 --sft-steps 2000",
    "ragen-bench train --env sokoban --algo ppo --steps 200 --seed 1 --set evalEvery=20 --resume"
  ],
  run: (_args, o) =>
    Effect.gen(function*() {
      const registry = yield* Registry
      const raw = yield* configFromFlags(o, (id) => {
        const e = registry.data.entries.filters.find((x) => x.fullId === id || x.localId === id)
        return e?.value.valueOption
      })
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
      const summary = yield* trainProgram(raw, {
        outDir: String(o.out ?? "results"),
        resume: Boolean(o.resume),
        fresh: Boolean(o.fresh),
        signal: ctl.signal,
        onLog: (l) => process.stderr.write(l + "\n"),
        onProgress: ({ step, steps, metrics: m }) => {
          if (o.quiet) return
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
      yield* Console.log(JSON.stringify({ runId: summary.runId, status: summary.status, stepsDone: summary.stepsDone, finalValSuccess: summary.finalValSuccess, peakValSuccess: summary.peakValSuccess, ...(summary.error ? { error: summary.error } : {}) }))
      if (summary.status === "failed") process.exitCode = 1
    })
})
