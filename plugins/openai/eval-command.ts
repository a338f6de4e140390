/**
 * `ragen-bench eval --policy … --env <env> --episodes N`: success rate (Wilson 95% interval) and
 * mean return (percentile-bootstrap 95% interval) over N fixed seeds; writes a run folder under
 * <out>/ (default results/agents) that the leaderboard's agents table reads.
 */
import { Console, Effect } from "effect"
import { defineCommand, numberFlagOr, UsageError } from "../../core/host.ts"
import { agentFlags, followServed, isRemote, makePolicy, resolveAgent, withPromptHint } from "./agent-flags.ts"
import { userPromise } from "./effect.ts"
import { runEval, VAL_SEED_START } from "./eval.ts"
import type { OpenAIPolicy } from "./policy.ts"

const pct = (x: number) => (100 * x).toFixed(1)

export default defineCommand({
  pattern: "eval",
  description: "Evaluate a policy (a served LLM or a tinylm checkpoint) on an env: success and return with 95% intervals; writes a run folder",
  options: [
    ...agentFlags,
    { flags: "--episodes <n>", description: "Episodes, one per seed (default 64)" },
    { flags: "--seed-start <n>", description: `First env seed (default ${VAL_SEED_START}, the validation seeds)` },
    {
      flags: "--instances <which>",
      description: "validation (default: each seed moved to a held-out validation instance, as the trainer validates) or all (the seeds as they are)"
    },
    { flags: "--out <dir>", description: "Folder of agent runs", default: "results/agents" },
    { flags: "--json", description: "Print the summary as JSON" }
  ],
  examples: [
    "ragen-bench eval --policy openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct --template qwen2.5 --env sokoban --episodes 128",
    "ragen-bench eval --policy tinylm --checkpoint runs/sft/frozenlake-v1-tiny-s0.safetensors --env frozenlake --episodes 256"
  ],
  run: (_args, o) =>
    Effect.gen(function* () {
      let a = yield* resolveAgent(o, { temperature: 0.5 })
      const episodes = yield* numberFlagOr(o.episodes, "--episodes", 64, { integer: true, min: 1 })
      const seedStart = yield* numberFlagOr(o.seedStart, "--seed-start", VAL_SEED_START, { integer: true, min: 0 })
      const instances = o.instances === undefined ? "validation" : String(o.instances)
      if (instances !== "validation" && instances !== "all") return yield* new UsageError({ field: "--instances", message: `--instances must be validation or all, got "${instances}"` })
      const policy = yield* makePolicy(a)
      if (isRemote(policy)) a = followServed(a, yield* userPromise(() => (policy as OpenAIPolicy).checkModel()))
      const setup = a
      const r = yield* userPromise(() => runEval(policy, setup, episodes, seedStart, String(o.out ?? "results/agents"), instances)).pipe(withPromptHint(setup))
      const s = r.summary
      if (o.json) return yield* Console.log(JSON.stringify(s, null, 2))
      yield* Console.log(`${s.agent} on ${s.env}: ${s.episodes} episodes at T=${a.rollout.temperature}`)
      yield* Console.log(`  success ${pct(s.success.mean)}%  (95% Wilson interval ${pct(s.success.lo)}–${pct(s.success.hi)}%)`)
      yield* Console.log(`  return  ${s.return.mean.toFixed(3)}  (95% bootstrap interval ${s.return.lo.toFixed(3)} – ${s.return.hi.toFixed(3)})`)
      yield* Console.log(`  format valid ${pct(s.means.format_valid ?? 0)}%  fact accuracy ${pct(s.means.fact_accuracy ?? 0)}%`)
      if (!s.reproducible) yield* Console.log("  not reproducible bit for bit (remote model): marked reproducible=false in the run's record")
      yield* Console.log(`run: ${r.dir}`)
    })
})
