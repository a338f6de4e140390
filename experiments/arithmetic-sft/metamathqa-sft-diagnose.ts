/**
 * Where does a MetaMathQA SFT checkpoint go wrong? One completion per validation seed (the
 * trainer's validation instances and prompt: instructions, T = 0.5), compared step by step with
 * the teacher's worked steps: the first place it leaves them — the quantities list, an operand
 * (copying), the operator, a result (the arithmetic, by operator), the answer — or format.
 *
 *   bun experiments/arithmetic-sft/metamathqa-sft-diagnose.ts <checkpoint.safetensors> [seeds=256] [env=metamathqa-v1]
 */
import { Effect } from "effect"
import { builtinPlugins } from "../../builtins.ts"
import { buildPrompt, parseResponse } from "../../core/prompt.ts"
import { derive } from "../../core/rng.ts"
import { registryLayerFrom } from "../../core/registry.ts"
import { splitSeeds } from "../../core/env/instance-split.ts"
import { resolveSetup } from "../../core/train/setup.ts"
import type { MetaMathState } from "../../envs/metamathqa/teacher.ts"
import { generateProblem } from "../../envs/metamathqa/problems.ts"
import { policyFromCheckpoint } from "../../plugins/tinylm/policy.ts"
import { settingsOf } from "../../plugins/tinylm/spec.ts"
import { VAL_SEED_START } from "../../plugins/tinylm/validate.ts"

const [ckpt, nArg, envArg] = process.argv.slice(2)
if (!ckpt) throw new Error("usage: bun experiments/arithmetic-sft/metamathqa-sft-diagnose.ts <checkpoint> [seeds]")
const N = Number(nArg ?? 256)
const s = await Effect.runPromise(resolveSetup({ env: envArg ?? "metamathqa-v1", train: { diagEvery: 0 } }).pipe(Effect.provide(registryLayerFrom(builtinPlugins))))
const policy = await policyFromCheckpoint(ckpt, settingsOf(s.policyOptions as never, 0, 0))
const env = s.spec.make(s.envOptions)
const seeds = await splitSeeds(
  s.spec,
  s.envOptions,
  Array.from({ length: N }, (_, i) => VAL_SEED_START + i),
  "validation"
)
const prompts: string[] = []
const states: MetaMathState[] = []
const templates: string[] = []
for (const seed of seeds) {
  prompts.push(buildPrompt({ instructions: s.rollout.instructions, observation: env.reset(seed) }))
  states.push(env.state() as MetaMathState)
  templates.push(generateProblem(derive(seed, "metamathqa")).template)
}
const cs = await policy.sample(prompts, { temperature: 0.5, topP: 1, minP: 0, maxTokens: s.opts.maxTokens }, derive(0, "diagnose-sample"))

const first: Record<string, number> = {}
const wrongResultByOp: Record<string, number> = {}
const byTemplate: Record<string, { n: number; ok: number }> = {}
const EQ = /(\d+) ([-+*/]) (\d+) = (\d+)/g
for (let i = 0; i < N; i++) {
  const st = states[i]!
  const p = generateProblem(derive(seeds[i]!, "metamathqa"))
  const r = parseResponse(cs[i]!.text)
  const t = (byTemplate[templates[i]!] ??= { n: 0, ok: 0 })
  t.n++
  const where = (() => {
    if (!r.valid) return "format"
    const head = /quantities ([\d, ]+):/.exec(r.reasoning)
    if (
      !head ||
      head[1]!
        .split(",")
        .map((x) => Number(x.trim()))
        .join(" ") !== st.quantities.join(" ")
    )
      return "quantities list"
    const eqs = [...r.reasoning.matchAll(EQ)].map((m) => ({ a: Number(m[1]), op: m[2]!, b: Number(m[3]), c: Number(m[4]) }))
    for (let j = 0; j < p.steps.length; j++) {
      const want = p.steps[j]!
      const got = eqs[j]
      if (!got) return "missing step"
      if (got.op !== want.op) return "operator"
      if (got.a !== want.a || got.b !== want.b) return "operand"
      if (got.c !== want.c) {
        wrongResultByOp[want.op] = (wrongResultByOp[want.op] ?? 0) + 1
        return `result (${want.op})`
      }
    }
    return r.action.trim() === p.answer ? "right" : "answer"
  })()
  if (where === "right") t.ok++
  first[where] = (first[where] ?? 0) + 1
}
console.log(`checkpoint ${ckpt}, ${N} validation seeds, T = 0.5`)
console.log("first departure from the teacher's steps:", JSON.stringify(first))
console.log("by template (right / n):", JSON.stringify(Object.fromEntries(Object.entries(byTemplate).map(([k, v]) => [k, `${v.ok}/${v.n}`]))))
