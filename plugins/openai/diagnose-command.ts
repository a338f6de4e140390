/**
 * `ragen-bench diagnose --policy … --env <env> [--P 8 --G 16]`: a template-collapse diagnosis of
 * any policy (diagnose.ts) as text, `--json`, or an HTML page (`--html FILE`).
 */
import { Console, Effect } from "effect"
import { defineCommand, derive, numberFlagOr, Registry, rollout, rolloutStats, scorerContext, writeFileAtomic } from "../../core/host.ts"
import { agentFlags, followServed, isRemote, makePolicy, resolveAgent, withPromptHint } from "./agent-flags.ts"
import { type DiagnoseReport, entropyOf, filterOutcomes, groupsOf, miOf, rewardProfile } from "./diagnose.ts"
import { renderHtml, renderText } from "./diagnose-render.ts"
import { userPromise } from "./effect.ts"
import { agentLabel, VAL_SEED_START } from "./eval.ts"
import type { OpenAIPolicy } from "./policy.ts"

export default defineCommand({
  pattern: "diagnose",
  description: "Diagnose template collapse of a policy (a served LLM or a tinylm checkpoint): MI proxies, entropy, fidelity, reward variance and what each filter keeps",
  options: [
    ...agentFlags,
    { flags: "--P <n>", description: "Prompts (groups) (default 8)" },
    { flags: "--G <n>", description: "Trajectories per prompt (default 16)" },
    { flags: "--seed-start <n>", description: `First env seed (default ${VAL_SEED_START}: the fixed validation probe)` },
    { flags: "--max-rows <n>", description: "First-turn reasoning rows scored against the P prompts (default 128)" },
    { flags: "--no-mi", description: "Skip the MI proxies (servers without prompt log-probs)" },
    { flags: "--json", description: "Print the report as JSON" },
    { flags: "--html <file>", description: "Also write the report as an HTML page" }
  ],
  examples: [
    "ragen-bench diagnose --policy openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct --template qwen2.5 --env sokoban --P 8 --G 16 --html diag.html",
    "ragen-bench diagnose --policy tinylm --checkpoint runs/sft/frozenlake-v1-tiny-s0.safetensors --env frozenlake --json"
  ],
  run: (_args, o) =>
    Effect.gen(function* () {
      let a = yield* resolveAgent(o, { temperature: 1 })
      const P = yield* numberFlagOr(o.P, "--P", 8, { integer: true, min: 1 })
      const G = yield* numberFlagOr(o.G, "--G", 16, { integer: true, min: 1 })
      const seedStart = yield* numberFlagOr(o.seedStart, "--seed-start", VAL_SEED_START, { integer: true, min: 0 })
      const maxRows = yield* numberFlagOr(o.maxRows, "--max-rows", 128, { integer: true, min: 1 })
      const withMi = o.mi !== false
      const registry = yield* Registry
      const policy = yield* makePolicy(a)
      if (isRemote(policy)) {
        const remote = policy as OpenAIPolicy
        a = followServed(a, yield* userPromise(() => remote.checkModel()))
        // Before any rollout: a server that cannot score prompts fails now, not after the samples.
        if (withMi) yield* userPromise(() => remote.checkScoring())
      }
      const scorer = withMi ? yield* userPromise(() => scorerContext(registry.data, policy).scorer("cpu")) : undefined
      const seeds = Array.from({ length: P }, (_, i) => seedStart + i)
      const setup = a
      const batch = yield* userPromise(() => rollout(policy, setup.rollout, seeds, G, derive(setup.seed, "diagnose", "rollout"))).pipe(withPromptHint(setup))
      const mi = scorer ? yield* userPromise(() => miOf(scorer, batch, a.seed, maxRows)) : { firstTurn: null, trajectory: null, skipped: "--no-mi" }
      const entropy = yield* userPromise(() => entropyOf(policy, batch, a.rollout.temperature))
      const groups = groupsOf(batch)
      const report: DiagnoseReport = {
        kind: "diagnose",
        env: a.envId,
        agent: agentLabel(a, policy),
        reproducible: !isRemote(policy),
        P,
        G,
        seeds,
        temperature: a.rollout.temperature,
        seed: a.seed,
        rollout: rolloutStats(batch),
        entropy,
        mi,
        rewardVariance: rewardProfile(groups),
        filters: yield* filterOutcomes(registry.data, groups, a.seed)
      }
      if (typeof o.html === "string") writeFileAtomic(o.html, renderHtml(report))
      yield* Console.log(o.json ? JSON.stringify(report, null, 2) : renderText(report))
      if (typeof o.html === "string" && !o.json) yield* Console.log(`page: ${o.html}`)
    })
})
