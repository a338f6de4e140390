/**
 * Why does a Countdown SFT checkpoint fail? (benchmarks/results/countdown-sft.md)
 *   bun benchmarks/countdown-sft-diagnose.ts <checkpoint.safetensors> [seeds=256] [show=0]
 * 1. Samples one completion per validation seed (123.., T = 0.5, 100-token cap) and counts, over
 *    the equations "a op b = c" the reasoning writes: arithmetic false, operands not available
 *    (not given / already used), last result = target, action value = last result (consistency),
 *    action numbers right, success.
 * 2. Teacher forcing on the current teacher's completions: mean probability of the teacher's token
 *    by role — header copy, operands and operators, equation results (the arithmetic), action.
 */
import { buildPrompt, formatCompletion, parseResponse } from "../core/prompt.ts"
import { derive } from "../core/rng.ts"
import { decodeSync } from "../core/schema/decode.ts"
import { countdownSpec, scoreAnswer } from "../envs/countdown/env.ts"
import { apply, eq, ofInt } from "../envs/countdown/rational.ts"
import { readEquations, readItems, type CountdownState } from "../envs/countdown/teacher.ts"
import { settingsOf, TinyLMOptions } from "../plugins/tinylm/plugin.ts"
import { policyFromCheckpoint } from "../plugins/tinylm/policy.ts"

const [ckpt, nArg, showArg] = process.argv.slice(2)
if (!ckpt) throw new Error("usage: bun benchmarks/countdown-sft-diagnose.ts <checkpoint> [seeds] [show]")
const N = Number(nArg ?? 256)
const show = Number(showArg ?? 0)
const po = decodeSync(TinyLMOptions, { preset: "tiny" })
const eo = decodeSync(countdownSpec.options, {})
if (!po.ok || !eo.ok) throw new Error("option decoding failed")
const policy = await policyFromCheckpoint(ckpt, settingsOf(po.value, 0, 0))
const env = countdownSpec.make(eo.value)

const prompts: string[] = [], states: CountdownState[] = [], teacher: string[] = []
for (let i = 0; i < N; i++) {
  prompts.push(buildPrompt({ observation: env.reset(123 + i) }))
  states.push(env.state() as CountdownState)
  const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, derive(0, "diagnose", i))
  teacher.push(formatCompletion(t.reasoning, t.action))
}

// ---- 1. sampled completions --------------------------------------------------------------
const cs = await policy.sample(prompts, { temperature: 0.5, topP: 1, minP: 0, maxTokens: 100 }, derive(0, "diagnose-sample"))
const c = { seeds: N, formatValid: 0, equations: 0, arithmeticFalse: 0, firstEquationFalse: 0, operandsUnavailable: 0, lastResultIsTarget: 0, consistent: 0, actionNumbersRight: 0, success: 0 }
const bySize: Record<number, { n: number; success: number }> = {}
for (let i = 0; i < N; i++) {
  const st = states[i]!, r = parseResponse(cs[i]!.text)
  const k = st.numbers.length
  bySize[k] ??= { n: 0, success: 0 }
  bySize[k].n++
  if (!r.valid) continue
  c.formatValid++
  const eqs = readEquations(readItems(r.reasoning))
  const avail = [...st.numbers]
  eqs.forEach(({ eq: e }, j) => {
    c.equations++
    const v = apply(e.op, ofInt(e.a), ofInt(e.b))
    if (!(v !== undefined && eq(v, ofInt(e.c)))) {
      c.arithmeticFalse++
      if (j === 0) c.firstEquationFalse++
    }
    const ia = avail.indexOf(e.a)
    if (ia >= 0) avail.splice(ia, 1)
    const ib = avail.indexOf(e.b)
    if (ib >= 0) avail.splice(ib, 1)
    if (ia < 0 || ib < 0) c.operandsUnavailable++
    avail.push(e.c)
  })
  const reached = eqs.length > 0 ? eqs[eqs.length - 1]!.eq.c : undefined
  const s = scoreAnswer(st, r.action)
  if (reached === st.target) c.lastResultIsTarget++
  if (reached !== undefined && s.value === String(reached)) c.consistent++
  if (s.numbersRight) c.actionNumbersRight++
  if (s.reward === 1) {
    c.success++
    bySize[k].success++
  }
  if (i < show) console.log(`seed ${123 + i} ${s.reward === 1 ? "ok " : "bad"} | ${r.reasoning} => ${r.action}\n    teacher: ${teacher[i]}`)
}
console.log("sampled (T=0.5):", JSON.stringify(c))
console.log("by number count:", JSON.stringify(bySize))

// ---- 2. teacher forcing by token role ----------------------------------------------------
const roles = teacher.map((comp) => {
  const out: string[] = []
  let phase: "head" | "eq" | "tail" | "action" = comp.includes(" : ") ? "head" : "eq"
  let afterEquals = false
  for (const w of comp.split(/\s+/)) {
    if (phase === "head") out.push("header")
    else if (w === "</think>" || w === "<answer>" || w === "</answer>") out.push("tags")
    else if (phase === "eq" && (w === "," || w === "then" || w === "so")) out.push("separator")
    else if (phase === "eq" && w === "=") out.push("equals")
    else if (phase === "eq") out.push(afterEquals ? "result" : "operand/op")
    else out.push("action")
    if (phase === "head" && w === ":") phase = "eq"
    else if (w === "=") afterEquals = true
    else if (w === "," || w === "then" || w === "so") afterEquals = false
    if (w === "</think>") phase = "tail"
    else if (w === "<answer>") phase = "action"
  }
  return out
})
const scores = await policy.score(prompts.map((prompt, i) => ({ prompt, continuation: teacher[i]! })))
const agg: Record<string, { n: number; p: number; above: number }> = {}
scores.forEach((s, i) => {
  if (s.logprobs.length !== roles[i]!.length) throw new Error(`seed ${123 + i}: ${s.logprobs.length} tokens scored, ${roles[i]!.length} roles`)
  s.logprobs.forEach((lp, j) => {
    const a = (agg[roles[i]![j]!] ??= { n: 0, p: 0, above: 0 })
    a.n++
    a.p += Math.exp(lp)
    if (lp > Math.log(0.5)) a.above++ // p > 0.5 ⇒ the argmax
  })
})
for (const [k, a] of Object.entries(agg)) console.log(`teacher-forced ${k.padEnd(10)} tokens ${String(a.n).padStart(6)}  mean p ${(a.p / a.n).toFixed(3)}  share p>0.5 ${(a.above / a.n).toFixed(3)}`)
