/**
 * Parity of the remote path with the in-process policy, on a served checkpoint (not a test: the
 * figures in benchmarks/results/openai.md come from it). Usage, with `ragen-bench serve
 * --checkpoint CKPT --port 18000` running:
 *   bun test/openai/parity-script.ts CKPT http://127.0.0.1:18000/v1 MODEL
 * Samples 64 FrozenLake validation prompts through HTTP and in-process with the same per-prompt
 * seeds, scores 128 (prompt, reasoning) pairs both ways, prints one JSON line.
 */
import { decodeSync } from "../../core/schema/decode.ts"
import { Rng } from "../../core/rng.ts"
import { buildPrompt } from "../../core/prompt.ts"
import { policyFromCheckpoint } from "../../plugins/tinylm/policy.ts"
import { makeOpenAIPolicy } from "../../plugins/openai/policy.ts"
import { OpenAIOptions } from "../../plugins/openai/options.ts"
import envs from "../../envs/plugin.ts"
const [CKPT, BASE, MODEL] = [process.argv[2]!, process.argv[3]!, process.argv[4]!]
const dec = (s: any, x: any) => {
  const r = decodeSync(s, x)
  if (!r.ok) throw new Error(r.message)
  return r.value as any
}
const spec = envs.envs!.find((e) => e.id.startsWith("frozenlake"))!
const env = spec.make(dec(spec.options, {}))
const local = await policyFromCheckpoint(CKPT, { seed: 0, adam: { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 }, schedule: { kind: "constant" }, microBatch: 32 })
const remote = makeOpenAIPolicy(dec(OpenAIOptions, { baseUrl: BASE, model: MODEL }))
const prompts = Array.from({ length: 64 }, (_, i) => buildPrompt({ observation: env.reset(123 + i) }))
const o = { temperature: 1, topP: 1, minP: 0, maxTokens: 64 }
const t0 = performance.now()
const got = await remote.sample(prompts, o, new Rng(11))
const t1 = performance.now()
const seeds = new Rng(11)
let textEq = 0,
  maxd = 0,
  ntok = 0
for (let i = 0; i < prompts.length; i++) {
  const [w] = await local.sample([prompts[i]!], o, new Rng(seeds.nextU32()))
  if (w!.text === got[i]!.text) textEq++
  for (let t = 0; t < w!.rawLogprobs.length; t++) maxd = Math.max(maxd, Math.abs(w!.rawLogprobs[t]! - got[i]!.logprobs[t]!))
  ntok += w!.tokens.length
}
const reqs = prompts.slice(0, 16).flatMap((p) => got.slice(0, 8).map((c) => ({ prompt: p, continuation: c.text.split("</think>")[0]!.trim() })))
const t2 = performance.now()
const rs = await remote.score(reqs)
const t3 = performance.now()
const ls = await local.score(reqs)
let smax = 0,
  sn = 0
for (let i = 0; i < reqs.length; i++) {
  for (let t = 0; t < ls[i]!.logprobs.length; t++) smax = Math.max(smax, Math.abs(ls[i]!.logprobs[t]! - rs[i]!.logprobs[t]!))
  sn += ls[i]!.logprobs.length
  if (ls[i]!.logprobs.length !== rs[i]!.logprobs.length) throw new Error("len")
}
console.log(
  JSON.stringify({
    samples: prompts.length,
    textEqual: textEq,
    sampledTokens: ntok,
    sampleLogprobMaxAbsDiff: maxd,
    sampleSeconds: (t1 - t0) / 1000,
    scoreRequests: reqs.length,
    scoredTokens: sn,
    scoreMaxAbsDiff: smax,
    scoreSeconds: (t3 - t2) / 1000
  })
)
