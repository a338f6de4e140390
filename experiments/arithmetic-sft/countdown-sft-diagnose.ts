/**
 * Why does a Countdown SFT checkpoint fail? (experiments/arithmetic-sft/countdown-sft.md)
 *   bun experiments/arithmetic-sft/countdown-sft-diagnose.ts <checkpoint.safetensors> [seeds=256] [show=0] [maxTokens=110]
 * 1. Samples one completion per validation seed (123.., T = 0.5) and counts, over the equations
 *    "a op b = c" the reasoning writes (read as the grader reads them: a "rev" scratchpad's
 *    numbers least significant digit first): arithmetic false, last result = target, the grader's
 *    consistency and fact accuracy, action numbers right, success; and, since the teacher's
 *    trace is deterministic, where a sample first leaves the teacher's trace (by token role).
 * 2. Teacher forcing on the current teacher's completions: mean probability of the teacher's token
 *    by role — operand copies, results (the arithmetic), borrow marks, control (operators,
 *    separators, "neg", fillers), the "neg" list, the action; then the result digits by number count, equation (index and
 *    operator) and digit (d0 = the first written).
 */
import { buildPrompt, formatCompletion, parseResponse } from "../../core/prompt.ts"
import { derive } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { countdownSpec, scoreAnswer } from "../../envs/countdown/env.ts"
import { apply, eq, ofInt } from "../../envs/countdown/rational.ts"
import { gradeCountdown, readReasoning, type CountdownState } from "../../envs/countdown/teacher.ts"
import { settingsOf, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { policyFromCheckpoint } from "../../plugins/tinylm/policy.ts"

const [ckpt, nArg, showArg, capArg] = process.argv.slice(2)
if (!ckpt) throw new Error("usage: bun experiments/arithmetic-sft/countdown-sft-diagnose.ts <checkpoint> [seeds] [show] [maxTokens]")
const N = Number(nArg ?? 256)
const show = Number(showArg ?? 0)
const cap = Number(capArg ?? 110)
const po = decodeSync(TinyLMOptions, { preset: "tiny" })
const eo = decodeSync(countdownSpec.options, {})
if (!po.ok || !eo.ok) throw new Error("option decoding failed")
const policy = await policyFromCheckpoint(ckpt, settingsOf(po.value, 0, 0))
const env = countdownSpec.make(eo.value)

const prompts: string[] = [],
  states: CountdownState[] = [],
  teacher: string[] = []
for (let i = 0; i < N; i++) {
  prompts.push(buildPrompt({ observation: env.reset(123 + i) }))
  states.push(env.state() as CountdownState)
  const t = env.teach({ epsilon: 0, reasoningNoise: 0 }, derive(0, "diagnose", i))
  teacher.push(formatCompletion(t.reasoning, t.action))
}

/** One role per teacher token: a word, except numbers with their commas and parentheses, which the tokenizer splits into single characters. */
const rolesOf = (comp: string): string[] => {
  const out: string[] = []
  let phase: "head" | "eq" | "neg" | "tail" | "action" = comp.includes(" : ") ? "head" : "eq"
  let afterEquals = false
  for (const w of comp.split(/\s+/).flatMap((x) => (/^[0-9,()]+$/.test(x) ? x.split("") : [x]))) {
    const digit = /^[0-9]$/.test(w)
    const mark = w === "'" || w === "^" // borrow marks inside a difference
    if (mark) {
      out.push("borrow mark")
      continue
    }
    if (w === "</think>" || w === "<answer>" || w === "</answer>") out.push("tags")
    else if (phase === "head") out.push("header")
    else if (phase === "action") out.push("action")
    else if (w === "neg") out.push("control")
    else if (phase === "neg") out.push(digit ? "neg list" : "control")
    else if (digit) out.push(afterEquals ? "result" : "operand")
    else out.push("control")
    if (phase === "head" && w === ":") phase = "eq"
    else if (w === "=") afterEquals = true
    else if (!digit) afterEquals = false
    if (w === "neg") phase = "neg"
    if (w === "</think>") phase = "tail"
    else if (w === "<answer>") phase = "action"
  }
  return out
}

// ---- 1. sampled completions --------------------------------------------------------------
const cs = await policy.sample(prompts, { temperature: 0.5, topP: 1, minP: 0, maxTokens: cap }, derive(0, "diagnose-sample"))
const c = {
  seeds: N,
  formatValid: 0,
  equations: 0,
  arithmeticFalse: 0,
  firstEquationFalse: 0,
  lastResultIsTarget: 0,
  consistent: 0,
  factAccuracy: 0,
  actionNumbersRight: 0,
  sameAsTeacher: 0,
  success: 0
}
const bySize: Record<number, { n: number; success: number }> = {}
const leaves: Record<string, number> = {}
for (let i = 0; i < N; i++) {
  const st = states[i]!,
    text = cs[i]!.text,
    r = parseResponse(text)
  const k = st.numbers.length
  bySize[k] ??= { n: 0, success: 0 }
  bySize[k].n++
  const tw = teacher[i]!.split(/\s+/),
    sw = text.trim().split(/\s+/),
    roles = rolesOf(teacher[i]!)
  let j = 0
  while (j < tw.length && tw[j] === sw[j]) j++
  if (j >= tw.length) c.sameAsTeacher++
  else leaves[roles[j]!] = (leaves[roles[j]!] ?? 0) + 1
  if (!r.valid) continue
  c.formatValid++
  const eqs = readReasoning(r.reasoning).equations
  eqs.forEach((e, j) => {
    c.equations++
    const v = apply(e.op, ofInt(e.a), ofInt(e.b))
    if (!(v !== undefined && eq(v, ofInt(e.c)))) {
      c.arithmeticFalse++
      if (j === 0) c.firstEquationFalse++
    }
  })
  if (eqs.length > 0 && eqs[eqs.length - 1]!.c === st.target) c.lastResultIsTarget++
  const g = gradeCountdown(st, r.reasoning, r.action)
  c.consistent += g.consistency
  c.factAccuracy += g.factAccuracy / N
  const s = scoreAnswer(st, r.action)
  if (s.numbersRight) c.actionNumbersRight++
  if (s.reward === 1) {
    c.success++
    bySize[k].success++
  }
  if (i < show) console.log(`seed ${123 + i} ${s.reward === 1 ? "ok " : "bad"} | ${r.reasoning} => ${r.action}\n    teacher: ${teacher[i]}`)
}
c.factAccuracy = Number(c.factAccuracy.toFixed(3))
console.log(`sampled (T=0.5, cap ${cap}):`, JSON.stringify(c))
console.log("by number count:", JSON.stringify(bySize))
console.log("first token off the teacher's trace, by role:", JSON.stringify(leaves))

// ---- 2. teacher forcing by token role ----------------------------------------------------
const roles = teacher.map(rolesOf)
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

const digits: Record<string, { n: number; p: number }> = {}
scores.forEach((s, i) => {
  const w = teacher[i]!.split(/\s+/)
  let eqIdx = -1,
    d = -1,
    op = ""
  w.forEach((t, j) => {
    if (t === "neg" || t === "</think>") eqIdx = 99
    if (eqIdx === 99) return
    if (["+", "-", "*", "/"].includes(t)) op = t
    if (t === "'" || t === "^") return
    if (t === "=") {
      eqIdx++
      d = 0
    } else if (d >= 0 && /^[0-9]$/.test(t)) {
      const a = (digits[`${states[i]!.numbers.length} numbers, equation ${eqIdx} (${op}) d${d}`] ??= { n: 0, p: 0 })
      a.n++
      a.p += Math.exp(s.logprobs[j]!)
      d++
    } else d = -1
  })
})
const lines = Object.entries(digits)
  .filter(([, a]) => a.n >= 16)
  .sort(([x], [y]) => x.localeCompare(y, "en", { numeric: true }))
for (const [k, a] of lines) console.log(`teacher-forced result digit, ${k}: mean p ${(a.p / a.n).toFixed(3)} (${a.n})`)
