import { describe, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TrainItem } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { frozenLakeSpec } from "../../envs/frozenlake/env.ts"
import { lrFactor } from "../../plugins/tinylm/adamw.ts"
import { parameterCount, PRESETS } from "../../plugins/tinylm/config.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { drawToken, SamplerScratch } from "../../plugins/tinylm/sampler.ts"
import { collectTeacherTurns } from "../../core/train/teacher-turns.ts"
import { nllLoss, runSft } from "../../plugins/tinylm/sft.ts"
import { Tokenizer } from "../../plugins/tinylm/tokenizer.ts"
import { mixedLoss, wholeModelFdError } from "./helpers.ts"

const VOCAB = ["a b c d e f g h", "go left right up down", "the cat sat on mat"]
const opts = (o: Record<string, unknown> = {}) => {
  const r = decodeSync(TinyLMOptions, { ctx: 32, d: 16, layers: 2, heads: 2, microBatch: 4, ...o })
  if (!r.ok) throw new Error(r.message)
  return r.value
}
const make = (o: Record<string, unknown> = {}, seed = 1) => makeTinyLM(opts(o), { vocabulary: VOCAB, seed })
const items = (p: { tokenizer: Tokenizer }): TrainItem[] => [
  { prompt: "a b c <think>", tokens: p.tokenizer.encode("go left </think> <answer> up </answer>") },
  { prompt: "the cat sat on the mat 12 <think>", tokens: p.tokenizer.encode("d e </think> <answer> down </answer>") },
  { prompt: "h <think>", tokens: p.tokenizer.encode("right 3 </answer>") },
  { prompt: "g f e d c b a <think>", tokens: p.tokenizer.encode("cat </think>") },
  { prompt: "up up <think>", tokens: p.tokenizer.encode("a </think> <answer> left </answer>") },
  { prompt: "mat <think>", tokens: p.tokenizer.encode("b") }
]
const lossValue = async (p: Awaited<ReturnType<typeof make>>, its: TrainItem[]) => mixedLoss(await p.forward(its)).loss

describe("tinylm model and policy", () => {
  test("tokenizer: deterministic, digits split, round trip", () => {
    const t = Tokenizer.fromVocabulary(VOCAB)
    expect(Tokenizer.fromVocabulary([...VOCAB].reverse()).words).toEqual(t.words)
    const ids = t.encode("go 45 left </think> <answer> up </answer>\nzebra")
    expect(t.decode(ids)).toBe("go 45 left </think> <answer> up </answer>\n<unk>")
    expect(Array.from(t.encode("45")).map((i) => t.words[i])).toEqual(["4", "##5"])
  })

  test("presets and parameter count (tiny: 112,449 on a 64-word vocabulary, 115,521 on FrozenLake's 103)", () => {
    const n = parameterCount({ vocab: 64, ...PRESETS.tiny })
    expect(n).toBeGreaterThan(100_000)
    expect(n).toBeLessThan(120_000)
  })

  test("by default the value loss trains only the value head (detached, like a separate critic)", async () => {
    const p = await make({ microBatch: 8 })
    p.model.p.valuew!.set(p.model.p.lnfw!.map((_, i) => 0.1 * Math.sin(i)))
    const its = items(p)
    const valueOnly = (fw: ReadonlyArray<{ logprobs: Float32Array }>) => ({
      loss: 0,
      grads: fw.map((f) => ({ dLogprobs: new Float32Array(f.logprobs.length), dEntropy: new Float32Array(f.logprobs.length), dValues: new Float32Array(f.logprobs.length).fill(1) })),
      stats: {}
    })
    p.zeroGrad()
    await p.accumulate(its, valueOnly)
    let trunk = 0,
      head = 0
    for (const t of p.model.tensors) {
      const g = p.model.grads.subarray(t.offset, t.offset + t.size)
      const n = g.reduce((a, x) => a + Math.abs(x), 0)
      if (t.name.startsWith("value")) head += n
      else trunk += n
    }
    expect(head).toBeGreaterThan(0)
    expect(trunk).toBe(0)
    const q = await make({ microBatch: 8, valueTrunkGrad: true })
    q.model.p.valuew!.set(p.model.p.valuew!)
    q.zeroGrad()
    await q.accumulate(items(q), valueOnly)
    expect(q.model.grads.subarray(0, q.model.p.wte!.length).some((x) => x !== 0)).toBe(true)
  })

  test("whole-model finite-difference check of a loss using logprob, entropy and value", async () => {
    const p = await make({ microBatch: 8, valueTrunkGrad: true }) // the full gradient, value loss through the trunk included
    // larger init so that gradients are not tiny
    for (let i = 0; i < p.model.params.length; i++) p.model.params[i] = p.model.params[i]! * 5
    p.model.p.valuew!.set(p.model.p.lnfw!.map((_, i) => 0.1 * Math.sin(i)))
    const its = items(p)
    p.zeroGrad()
    await p.accumulate(its, mixedLoss)
    const g = new Float32Array(p.model.grads)
    // fd on float32 params; a few coordinates per tensor
    const worst = await wholeModelFdError(p.model, g, () => lossValue(p, its), { h: 1e-2, perTensor: 6, floor: 5e-2 })
    console.log(`fd whole model: max rel error ${worst.toExponential(2)}`)
    expect(worst).toBeLessThan(5e-2)
  })

  test("a NLL LossFn gives the same gradients as the direct cross-entropy backward", async () => {
    const p = await make({ microBatch: 8 })
    const its = items(p)
    p.zeroGrad()
    await p.accumulate(its, nllLoss)
    const viaLoss = new Float32Array(p.model.grads)
    // direct: d(-mean logp)/d logp = -1/n on every scored token, straight into the kernels
    p.zeroGrad()
    await p.forward(its)
    let n = 0
    for (const it of its) n += it.tokens.length
    p.model.dlogprob.fill(-1 / n, 0, n)
    p.model.dentropy.fill(0, 0, n)
    p.model.dvalues.fill(0, 0, n)
    const s = p.model.lastShape
    expect(s.M).toBe(n)
    p.model.backward(s.B, s.Tb, s.M, s.Bp, s.Tp)
    let maxDiff = 0
    for (let i = 0; i < viaLoss.length; i++) maxDiff = Math.max(maxDiff, Math.abs(viaLoss[i]! - p.model.grads[i]!))
    console.log(`NLL LossFn vs direct CE: max |Δgrad| ${maxDiff}`)
    expect(maxDiff).toBeLessThan(1e-7)
  })

  test("chunked accumulate (microBatch 4 < 6 items) equals one chunk", async () => {
    const a = await make({ microBatch: 4 }),
      b = await make({ microBatch: 8 })
    await a.accumulate(items(a), mixedLoss)
    await b.accumulate(items(b), mixedLoss)
    let d = 0
    for (let i = 0; i < a.model.grads.length; i++) d = Math.max(d, Math.abs(a.model.grads[i]! - b.model.grads[i]!))
    expect(d).toBeLessThan(1e-5) // float32 += in another chunk order
  })

  const train = async (p: Awaited<ReturnType<typeof make>>, steps: number) => {
    for (let s = 0; s < steps; s++) {
      await p.accumulate(items(p), mixedLoss)
      p.step({ lr: 1e-2, maxGradNorm: 1 })
    }
  }

  test("same seed ⇒ bit-identical parameters; save → load → continue is bit-exact", async () => {
    const a = await make({ weightDecay: 0.1, lrSchedule: "cosine", warmupSteps: 2, totalSteps: 10 }),
      b = await make({ weightDecay: 0.1, lrSchedule: "cosine", warmupSteps: 2, totalSteps: 10 })
    await train(a, 3)
    await train(b, 3)
    expect(
      Buffer.from(a.model.params.buffer, a.model.params.byteOffset, a.model.params.byteLength).equals(Buffer.from(b.model.params.buffer, b.model.params.byteOffset, b.model.params.byteLength))
    ).toBe(true)
    const path = join(mkdtempSync(join(tmpdir(), "tinylm-")), "ck.safetensors")
    await a.save(path)
    const c = await make({ weightDecay: 0.1, lrSchedule: "cosine", warmupSteps: 2, totalSteps: 10 }, 99)
    await c.load(path)
    expect(c.t).toBe(3)
    await train(a, 3)
    await train(c, 3)
    expect(Array.from(c.model.params)).toEqual(Array.from(a.model.params))
    expect(Array.from(c.model.m)).toEqual(Array.from(a.model.m))
    // the file is real safetensors: 8-byte LE header length, JSON header with F32 tensors
    const bytes = new Uint8Array(await Bun.file(path).arrayBuffer())
    const hlen = Number(new DataView(bytes.buffer).getBigUint64(0, true))
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + hlen)))
    expect(header.wte.dtype).toBe("F32")
    expect(JSON.parse(header.__metadata__.config).d).toBe(16)
    expect(header["adam_v.fcw"].shape).toEqual([2, 64, 16])
  })

  test("loading a checkpoint of another config is a UsageError naming the field", async () => {
    const a = await make()
    const path = join(mkdtempSync(join(tmpdir(), "tinylm-")), "ck.safetensors")
    await a.save(path)
    const other = await make({ d: 32 })
    let err: any
    await other.load(path).catch((e) => (err = e))
    expect(err?._tag).toBe("UsageError")
    expect(err.field).toBe("checkpoint.config.d")
    expect(err.message).toContain("d = 16")
  })

  test("KV-cache sampling logprobs equal teacher-forced score of the sampled tokens", async () => {
    const p = await make({ microBatch: 3 })
    for (let i = 0; i < p.model.params.length; i++) p.model.params[i] = p.model.params[i]! * 10
    const prompts = ["a b c <think>", "the cat sat <think>", "h <think>", "go go go go go left <think>"]
    const cs = await p.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: 12 }, new Rng(5))
    const sc = await p.score(cs.map((c, i) => ({ prompt: prompts[i]!, continuation: c.tokens })))
    let maxDiff = 0
    for (let i = 0; i < cs.length; i++) {
      expect(cs[i]!.tokens.length).toBeGreaterThan(0)
      for (let k = 0; k < cs[i]!.tokens.length; k++) {
        maxDiff = Math.max(maxDiff, Math.abs(cs[i]!.rawLogprobs[k]! - sc[i]!.logprobs[k]!), Math.abs(cs[i]!.logprobs[k]! - sc[i]!.logprobs[k]!))
      }
    }
    console.log(`sample vs score: max |Δlogprob| ${maxDiff}`)
    expect(maxDiff).toBeLessThan(1e-5)
    // a prompt longer than ctx − maxTokens (25 + 12 > 32) is kept whole and generation stops at
    // the context's end, so scoring sees the prompt sampling saw (regression: Sokoban's ratios)
    const long = "go ".repeat(24) + "<think>"
    const [lc] = await p.sample([long], { temperature: 1, topP: 1, minP: 0, maxTokens: 12, stop: "" }, new Rng(9))
    expect(lc!.tokens.length).toBe(32 - 25)
    expect(lc!.finishReason).toBe("length")
    const [ls] = await p.score([{ prompt: long, continuation: lc!.tokens }])
    for (let k = 0; k < lc!.tokens.length; k++) expect(Math.abs(lc!.rawLogprobs[k]! - ls!.logprobs[k]!)).toBeLessThan(1e-5)
    // same rng ⇒ same samples; a snapshot samples the same
    const again = await (await p.snapshot()).sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: 12 }, new Rng(5))
    expect(again.map((c) => c.text)).toEqual(cs.map((c) => c.text))
  })

  test("temperature, min-p and top-p", () => {
    const V = 4
    const z = Float32Array.of(Math.log(0.5), Math.log(0.3), Math.log(0.15), Math.log(0.05))
    const s = new SamplerScratch(V),
      out = new Float64Array(2),
      rng = new Rng(1)
    const counts = (o: { temperature: number; topP: number; minP: number }) => {
      const c = [0, 0, 0, 0]
      for (let i = 0; i < 2000; i++) c[drawToken(z, 0, V, { ...o, maxTokens: 1 }, rng, s, out)]!++
      return c
    }
    // min-p 0.5: keep p ≥ 0.25 → tokens 0, 1 only
    const mp = counts({ temperature: 1, topP: 1, minP: 0.5 })
    expect(mp[2]! + mp[3]!).toBe(0)
    drawToken(z, 0, V, { temperature: 1, topP: 1, minP: 0.5, maxTokens: 1 }, new Rng(2), s, out)
    expect([Math.log(0.5 / 0.8), Math.log(0.3 / 0.8)].some((x) => Math.abs(x - out[0]!) < 1e-6)).toBe(true)
    // top-p 0.7: smallest prefix with mass ≥ 0.7 is {0, 1}
    const tp = counts({ temperature: 1, topP: 0.7, minP: 0 })
    expect(tp[2]! + tp[3]!).toBe(0)
    expect(tp[0]! / 2000).toBeCloseTo(0.5 / 0.8, 1)
    // greedy and low temperature concentrate on the argmax
    expect(counts({ temperature: 0, topP: 1, minP: 0 })[0]).toBe(2000)
    expect(counts({ temperature: 0.1, topP: 1, minP: 0 })[0]).toBeGreaterThan(1950)
    // T = 1 frequencies follow the model
    const t1 = counts({ temperature: 1, topP: 1, minP: 0 })
    expect(t1[3]! / 2000).toBeCloseTo(0.05, 1)
  })

  test("lr schedule: warmup then cosine to minLrRatio", () => {
    const s = { kind: "cosine" as const, warmupSteps: 10, totalSteps: 110, minLrRatio: 0.1 }
    expect(lrFactor(s, 5)).toBeCloseTo(0.5)
    expect(lrFactor(s, 10)).toBeCloseTo(1)
    expect(lrFactor(s, 60)).toBeCloseTo(0.55)
    expect(lrFactor(s, 500)).toBeCloseTo(0.1)
    expect(lrFactor({ kind: "constant" }, 7)).toBe(1)
  })

  test("SFT on FrozenLake teacher traces: loss falls (small budget)", async () => {
    const envOptions = decodeSync(frozenLakeSpec.options, {})
    if (!envOptions.ok) throw new Error(envOptions.message)
    const turns = await collectTeacherTurns(frozenLakeSpec, envOptions.value, { turns: 400, epsilon: 0, reasoningNoise: 0, seed: 0 })
    expect(turns.length).toBe(400)
    expect(turns[0]!.prompt.endsWith("<think>")).toBe(true)
    const p = await makeTinyLM(opts({ ctx: 64, d: 32, layers: 1, microBatch: 16 }), { vocabulary: frozenLakeSpec.vocabulary(envOptions.value), seed: 0 })
    const losses: number[] = []
    const r = await runSft(p, turns, { steps: 30, lr: 1e-2, batch: 16, targetAcc: 2, evalEvery: 30, maxGradNorm: 1, seed: 0 }, (x) => losses.push(x.loss))
    console.log(`sft: loss ${losses[0]!.toFixed(3)} → ${losses.at(-1)!.toFixed(3)}, held-out acc ${r.heldOutAcc.toFixed(3)}`)
    expect(losses.at(-1)!).toBeLessThan(losses[0]! * 0.6)
    expect(r.heldOutAcc).toBeGreaterThan(0.3)
  })
})
