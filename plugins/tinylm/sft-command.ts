/**
 * `ragen-bench sft --env <env>`: SFT warm-start of the tinylm policy on the env teacher's traces
 * (plugins/tinylm/sft.ts); writes a .safetensors checkpoint, prints progress, the held-out token
 * accuracy and validation success at T = 0.5 next to the teacher's (docs/design.md §3 seeds 123..).
 */
import { Console, Effect } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import { join, resolve } from "node:path"
import { buildPrompt, collectTeacherTurns, decodeInput, defineCommand, isUserError, numberFlagOr, Registry, UsageError } from "../../core/host.ts"
import { makeTinyLM, TinyLMOptions } from "./spec.ts"
import { runSft } from "./sft.ts"
import { policySuccess, reasoningRetrieval, teacherSuccess, VAL_SEED_START } from "./validate.ts"

export default defineCommand({
  pattern: "sft",
  description: "Warm-start the tinylm policy on an env teacher's traces; writes a .safetensors checkpoint",
  options: [
    { flags: "--env <env>", description: "Env id (e.g. frozenlake)" },
    { flags: "--steps <n>", description: "Max optimizer steps", default: 2000 },
    { flags: "--target-acc <a>", description: "Stop at this held-out token accuracy", default: 0.99 },
    { flags: "--epsilon <e>", description: "Teacher action noise ε", default: 0 },
    { flags: "--reasoning-noise <r>", description: "Teacher reasoning noise", default: 0 },
    { flags: "--turns <n>", description: "Teacher turns collected (docs/design.md §10: 16k)", default: 16384 },
    { flags: "--preset <p>", description: "tiny | small", default: "tiny" },
    { flags: "--lr <lr>", description: "Learning rate", default: 2e-3 },
    { flags: "--cooldown <f>", description: "Share of the final steps over which lr decays linearly to 0", default: 0 },
    { flags: "--batch <n>", description: "Sequences per step", default: 64 },
    { flags: "--seed <s>", description: "Seed", default: 0 },
    { flags: "--val-seeds <n>", description: "Validation episodes (seeds 123..)", default: 64 },
    { flags: "--max-tokens <n>", description: "Completion token cap in validation (default: the trainer's 64, or the longest teacher completion if longer)" },
    { flags: "--init <checkpoint>", description: "Continue from this checkpoint (same env and preset; its Adam state and step carry on)" },
    { flags: "--out <dir>", description: "Output folder", default: "runs/sft" },
    { flags: "--json", description: "Print the result as one JSON object on stdout (progress goes to stderr)" }
  ],
  examples: [
    "ragen-bench sft --env frozenlake --steps 2000",
    "ragen-bench sft --env sokoban --epsilon 0.5 --out runs/sft",
    "ragen-bench sft --env countdown --init runs/sft/countdown-v1-tiny-s0.safetensors --steps 1000 --out runs/sft-more"
  ],
  run: (_args, opts) =>
    Effect.gen(function* () {
      if (typeof opts.env !== "string") return yield* new UsageError({ field: "env", message: "--env is required, e.g. --env frozenlake (see `ragen-bench list envs`)" })
      const registry = yield* Registry
      const envE = yield* registry.resolve("envs", opts.env)
      const spec = envE.value
      const envOptions = yield* decodeInput(spec.options, {}, `envOptions (of ${envE.fullId})`)
      const steps = yield* numberFlagOr(opts.steps, "--steps", 2000, { integer: true, min: 1 })
      const targetAcc = yield* numberFlagOr(opts.targetAcc, "--target-acc", 0.99)
      const epsilon = yield* numberFlagOr(opts.epsilon, "--epsilon", 0, { min: 0, max: 1 })
      const reasoningNoise = yield* numberFlagOr(opts.reasoningNoise, "--reasoning-noise", 0, { min: 0, max: 1 })
      const turns = yield* numberFlagOr(opts.turns, "--turns", 16384, { integer: true, min: 1 })
      const lr = yield* numberFlagOr(opts.lr, "--lr", 2e-3, { positive: true })
      const cooldown = yield* numberFlagOr(opts.cooldown, "--cooldown", 0, { min: 0, max: 1 })
      const batch = yield* numberFlagOr(opts.batch, "--batch", 64, { integer: true, min: 1 })
      const seed = yield* numberFlagOr(opts.seed, "--seed", 0, { integer: true })
      const valSeeds = yield* numberFlagOr(opts.valSeeds, "--val-seeds", 64, { integer: true, min: 0 })
      const maxTokensOpt = opts.maxTokens === undefined ? undefined : yield* numberFlagOr(opts.maxTokens, "--max-tokens", 64, { integer: true, min: 1 })
      const policyOptions = yield* decodeInput(TinyLMOptions, { preset: opts.preset ?? "tiny", seed, microBatch: batch }, "preset")
      const out = String(opts.out ?? "runs/sft")
      const path = join(out, `${spec.id}-${policyOptions.preset}-s${seed}.safetensors`)
      const init = opts.init === undefined ? undefined : String(opts.init)
      if (init !== undefined && !existsSync(init)) return yield* new UsageError({ field: "init", message: `--init ${init}: file does not exist` })
      if (init !== undefined && resolve(init) === resolve(path)) return yield* new UsageError({ field: "out", message: `--out ${out} would overwrite the --init checkpoint; give another --out` })
      // With --json, progress lines go to stderr and stdout holds only the JSON result.
      const say = (l: string) => (opts.json ? console.error(l) : console.log(l))
      const result: Record<string, unknown> = { env: envE.fullId, checkpoint: path }
      const work = async (): Promise<void> => {
        const policy = await makeTinyLM(policyOptions, { vocabulary: spec.vocabulary(envOptions), seed })
        // Same seed ⇒ same teacher turns and held-out split as the run that wrote the checkpoint.
        if (init !== undefined) await policy.load(init)
        const data = await collectTeacherTurns(spec, envOptions, { turns, epsilon, reasoningNoise, seed, instanceSplit: true })
        say(
          `sft ${envE.fullId}${init === undefined ? "" : ` from ${init}`}: ${policy.parameterCount} parameters, vocabulary ${policy.tokenizer.size}, ${data.length} teacher turns (ε ${epsilon}, reasoning noise ${reasoningNoise})`
        )
        // A validation cap below the teacher's own longest completion cuts off correct answers
        // (Countdown's 4-number traces run to ~76 tokens); envs whose traces fit keep 64.
        let longest = 0
        for (const t of data) longest = Math.max(longest, policy.tokenizer.encode(t.completion).length)
        const maxTokens = maxTokensOpt ?? Math.max(64, longest)
        const r = await runSft(policy, data, { steps, lr, batch, targetAcc, evalEvery: 50, maxGradNorm: 1, seed, cooldown }, (p) => {
          if (p.heldOutAcc !== undefined) say(`step ${p.step}  loss ${p.loss.toFixed(4)}  held-out token acc ${p.heldOutAcc.toFixed(4)}  ${p.seconds.toFixed(1)}s`)
        })
        mkdirSync(out, { recursive: true })
        await policy.save(path)
        Object.assign(result, { steps: r.steps, seconds: r.seconds, heldOutTokenAccuracy: r.heldOutAcc })
        say(`trained ${r.steps} steps in ${r.seconds.toFixed(1)}s (${Math.round(r.tokens / r.seconds)} completion tokens/s); held-out token accuracy ${r.heldOutAcc.toFixed(4)}`)
        say(`checkpoint: ${path}`)
        if (valSeeds > 0) {
          const s = await policySuccess(policy, spec, envOptions, valSeeds, 0.5, seed, maxTokens)
          const teacher = await teacherSuccess(spec, envOptions, valSeeds, seed)
          const env = spec.make(envOptions)
          // 8 distinct validation states (as in the paper's P = 8 groups)
          const prompts = [...new Set(Array.from({ length: 64 }, (_, i) => buildPrompt({ observation: env.reset(VAL_SEED_START + i) })))].slice(0, 8)
          const retrieval = await reasoningRetrieval(policy, prompts, 0.5, seed, maxTokens)
          Object.assign(result, { valSeeds, success: s.success, formatValid: s.format_valid, factAccuracy: s.fact_accuracy, teacherSuccess: teacher, reasoningRetrieval: retrieval })
          say(`reasoning retrieval accuracy over ${prompts.length} prompts: ${retrieval.toFixed(3)} (chance ${(1 / prompts.length).toFixed(3)})`)
          say(
            `validation (${valSeeds} seeds from 123, T=0.5, cap ${maxTokens} tokens): success ${s.success!.toFixed(3)}  format ${s.format_valid!.toFixed(3)}  fact accuracy ${s.fact_accuracy!.toFixed(3)}  teacher success ${teacher.toFixed(3)}`
          )
        }
      }
      const failed = yield* Effect.promise(() =>
        work().then(
          () => undefined,
          (e) => {
            if (isUserError(e)) return e
            throw e
          }
        )
      )
      if (failed) return yield* Effect.fail(failed)
      yield* Console.log(opts.json ? JSON.stringify(result, null, 2) : "done")
    })
})
