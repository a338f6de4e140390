/**
 * Shared-prefix batching (plugins/tinylm/prefix.ts, kernels/attention.ts *Prefixed): rows that
 * continue the same prompt compute it once. Forward numbers must equal the unshared row's bit for
 * bit; gradients equal up to float32 summation order; the backward passes a finite-difference check.
 */
import { describe, expect, test } from "bun:test"
import type { LossFn, TrainItem } from "../../core/contracts/index.ts"
import { Rng } from "../../core/rng.ts"
import { decodeSync } from "../../core/schema/decode.ts"
import { attentionBackward, attentionBackwardPrefixed, attentionForward, attentionForwardPrefixed } from "../../plugins/tinylm/kernels/attention.ts"
import { type Kernels, plainKernels, wasmKernels } from "../../plugins/tinylm/kernels/dispatch.ts"
import { carveArena } from "../../plugins/tinylm/arena.ts"
import { attachMemory } from "../../plugins/tinylm/kernels/wasm/loader.ts"
import { makeTinyLM, TinyLMOptions } from "../../plugins/tinylm/spec.ts"
import { planChunks } from "../../plugins/tinylm/prefix.ts"
import { dot, fdMaxRelError, mixedLoss, randn, wholeModelFdError } from "./helpers.ts"

// Prefix block: 2 rows of Tp = 5 (lengths 5 and 3). Rows: 4 of Tb = 4 (ragged), continuing
// prefix 0, prefix 0, prefix 1, and none.
const C = 12,
  NH = 3,
  Tp = 5,
  Tb = 4,
  B = 4,
  Bp = 2
const lensArr = [4, 2, 3, 4]
const prefArr = [0, 5, 0, 5, Tp, 3, 0, 0] // [first prefix position, length] per row
const Tk = Tp + Tb

/** The same problem as plain rows: each row = its prefix's positions followed by its own. */
const concatenate = (pqkv: Float32Array, qkv: Float32Array) => {
  const T = Tk
  const cq = new Float32Array(B * T * 3 * C)
  const lens = new Int32Array(B)
  for (let b = 0; b < B; b++) {
    const [p0, P] = [prefArr[2 * b]!, prefArr[2 * b + 1]!]
    cq.set(pqkv.subarray(p0 * 3 * C, (p0 + P) * 3 * C), b * T * 3 * C)
    cq.set(qkv.subarray(b * Tb * 3 * C, (b * Tb + lensArr[b]!) * 3 * C), (b * T + P) * 3 * C)
    lens[b] = P + lensArr[b]!
  }
  return { cq, lens, T }
}

/** Views in one attached wasm memory (so that the wasm kernels run instead of falling back). */
const arenaOf = (sizes: Record<string, number>, ints: Record<string, number>) => {
  const a = carveArena([...Object.entries(sizes).map(([name, size]) => ({ name, size })), ...Object.entries(ints).map(([name, size]) => ({ name, size, kind: "i32" as const }))])
  attachMemory(a.memory)
  return a
}

const problem = (rng: Rng) => {
  const a = arenaOf(
    { pqkv: Bp * Tp * 3 * C, qkv: B * Tb * 3 * C, out: B * Tb * C, att: B * NH * Tb * Tk, dout: B * Tb * C, dqkv: B * Tb * 3 * C, dpqkv: Bp * Tp * 3 * C, scratch: 2 * Tk },
    { lens: B, pref: 2 * B }
  )
  a.f32.pqkv!.set(randn(Bp * Tp * 3 * C, rng))
  a.f32.qkv!.set(randn(B * Tb * 3 * C, rng))
  a.f32.dout!.set(randn(B * Tb * C, rng))
  a.i32.lens!.set(lensArr)
  a.i32.pref!.set(prefArr)
  return a
}

describe("prefixed attention kernels", () => {
  for (const [name, k] of [
    ["js", plainKernels],
    ["wasm", wasmKernels]
  ] as Array<[string, Kernels]>) {
    test(`${name}: forward equals attention over the concatenated rows bit for bit; gradients match`, () => {
      const a = problem(new Rng(1))
      const f = a.f32,
        i = a.i32
      k.attentionForwardPrefixed(f.out!, f.att!, f.qkv!, i.lens!, B, Tb, C, NH, f.pqkv!, i.pref!, Tk)
      k.attentionBackwardPrefixed(f.dqkv!, f.dpqkv!, f.scratch!, f.dout!, f.qkv!, f.att!, i.lens!, B, Tb, C, NH, f.pqkv!, i.pref!, Tk)
      // reference: plain rows (prefix copied in front), with the same kernel set
      const { cq, lens, T } = concatenate(f.pqkv!, f.qkv!)
      const r = arenaOf({ cq: cq.length, out: B * T * C, att: B * NH * T * T, dout: B * T * C, dq: cq.length, scratch: 2 * T }, { lens: B })
      r.f32.cq!.set(cq)
      r.i32.lens!.set(lens)
      for (let b = 0; b < B; b++) {
        const P = prefArr[2 * b + 1]!
        r.f32.dout!.set(f.dout!.subarray(b * Tb * C, (b * Tb + lensArr[b]!) * C), (b * T + P) * C)
      }
      k.attentionForward(r.f32.out!, r.f32.att!, r.f32.cq!, r.i32.lens!, B, T, C, NH)
      k.attentionBackward(r.f32.dq!, r.f32.scratch!, r.f32.dout!, r.f32.cq!, r.f32.att!, r.i32.lens!, B, T, C, NH)
      let fwd = 0,
        own = 0,
        pre = 0
      const dpq = new Float32Array(Bp * Tp * 3 * C) // the concatenated rows' prefix gradients, summed
      for (let b = 0; b < B; b++) {
        const [p0, P] = [prefArr[2 * b]!, prefArr[2 * b + 1]!]
        for (let t = 0; t < lensArr[b]!; t++) {
          for (let c = 0; c < C; c++) fwd = Math.max(fwd, Math.abs(f.out![(b * Tb + t) * C + c]! - r.f32.out![(b * T + P + t) * C + c]!))
          for (let c = 0; c < 3 * C; c++) own = Math.max(own, Math.abs(f.dqkv![(b * Tb + t) * 3 * C + c]! - r.f32.dq![(b * T + P + t) * 3 * C + c]!))
        }
        for (let t = 0; t < P; t++) for (let c = 0; c < 3 * C; c++) dpq[(p0 + t) * 3 * C + c] = dpq[(p0 + t) * 3 * C + c]! + r.f32.dq![(b * T + t) * 3 * C + c]!
      }
      for (let j = 0; j < dpq.length; j++) pre = Math.max(pre, Math.abs(f.dpqkv![j]! - dpq[j]!) / (1 + Math.abs(dpq[j]!)))
      console.log(`prefixed attention (${name}): forward max |Δ| ${fwd}, own grads ${own}, prefix grads (rel) ${pre.toExponential(2)}`)
      expect(fwd).toBe(0)
      expect(own).toBe(0)
      expect(pre).toBeLessThan(1e-6)
      expect(Math.max(...f.dpqkv!.map(Math.abs))).toBeGreaterThan(0)
    })
  }

  test("finite-difference check of the prefixed backward (qkv and the prefix's qkv)", () => {
    const rng = new Rng(2)
    const pqkv = randn(Bp * Tp * 3 * C, rng),
      qkv = randn(B * Tb * 3 * C, rng),
      w = randn(B * Tb * C, rng)
    const lens = Int32Array.from(lensArr),
      pref = Int32Array.from(prefArr)
    const out = new Float32Array(B * Tb * C),
      att = new Float32Array(B * NH * Tb * Tk)
    const loss = () => {
      attentionForwardPrefixed(out, att, qkv, lens, B, Tb, C, NH, pqkv, pref, Tk)
      return dot(out, w)
    }
    loss()
    const dqkv = new Float32Array(qkv.length),
      dpqkv = new Float32Array(pqkv.length)
    attentionBackwardPrefixed(dqkv, dpqkv, new Float32Array(Tk), w, qkv, att, lens, B, Tb, C, NH, pqkv, pref, Tk)
    const e1 = fdMaxRelError(qkv, dqkv, loss, 1e-2, 200)
    const e2 = fdMaxRelError(pqkv, dpqkv, loss, 1e-2, 200)
    console.log(`fd prefixed attention: d qkv ${e1.toExponential(2)}, d prefix qkv ${e2.toExponential(2)}`)
    expect(e1).toBeLessThan(2e-2)
    expect(e2).toBeLessThan(2e-2)
  })

  test("a prefix table of zeros gives the plain kernels' numbers (they run the prefixed ones with NO_PREFIX)", () => {
    const rng = new Rng(3)
    const T = 4,
      qkv = randn(B * T * 3 * C, rng),
      dout = randn(B * T * C, rng),
      lens = Int32Array.from(lensArr)
    const a1 = new Float32Array(B * T * C),
      a2 = new Float32Array(B * T * C)
    const att1 = new Float32Array(B * NH * T * T),
      att2 = new Float32Array(B * NH * T * T)
    attentionForward(a1, att1, qkv, lens, B, T, C, NH)
    attentionForwardPrefixed(a2, att2, qkv, lens, B, T, C, NH, qkv, new Int32Array(2 * B), T)
    expect(a2).toEqual(a1)
    const d1 = new Float32Array(qkv.length),
      d2 = new Float32Array(qkv.length)
    attentionBackward(d1, new Float32Array(T), dout, qkv, att1, lens, B, T, C, NH)
    attentionBackwardPrefixed(d2, new Float32Array(qkv.length), new Float32Array(T), dout, qkv, att2, lens, B, T, C, NH, qkv, new Int32Array(2 * B), T)
    expect(d2).toEqual(d1)
  })
})

const VOCAB = ["a b c d e f g h", "go left right up down", "the cat sat on mat"]
const make = (o: Record<string, unknown> = {}) => {
  const r = decodeSync(TinyLMOptions, { ctx: 32, d: 16, layers: 2, heads: 2, microBatch: 8, ...o })
  if (!r.ok) throw new Error(r.message)
  return makeTinyLM(r.value, { vocabulary: VOCAB, seed: 1 })
}
type P = Awaited<ReturnType<typeof make>>
// three prompts shared by several continuations (as a group's trajectories share their prompt)
const shared = (p: P): TrainItem[] => {
  const prompts = ["a b c d e <think>", "the cat sat on the mat <think>", "up <think>"]
  const conts = ["go left </think> <answer> up </answer>", "d e </think>", "right 3 </answer>", "cat </think> <answer> left", "b", "h g f e d c b a"]
  return conts.flatMap((c, i) => [
    { prompt: prompts[i % 3]!, tokens: p.tokenizer.encode(c) },
    { prompt: prompts[(i + 1) % 3]!, tokens: p.tokenizer.encode(c) }
  ])
}
// −Σ logp: additive over items, so the batch gradient is the sum of the items' gradients
const sumLoss: LossFn = (fw) => ({
  loss: -fw.reduce((s, f) => s + f.logprobs.reduce((a, x) => a + x, 0), 0),
  grads: fw.map((f) => ({ dLogprobs: new Float32Array(f.logprobs.length).fill(-1), dEntropy: new Float32Array(f.logprobs.length), dValues: new Float32Array(f.logprobs.length) })),
  stats: {}
})

describe("shared prompts in the tinylm policy", () => {
  test("chunks group rows by prompt: 12 items over 3 prompts hold 3 prefix rows", async () => {
    const p = await make({ microBatch: 16 })
    const rows = shared(p).map((it) => {
      const pr = p.encodePrompt(it.prompt)
      const tokens = new Int32Array(pr.length + it.tokens.length)
      tokens.set(pr)
      tokens.set(it.tokens, pr.length)
      return { tokens, split: pr.length - 1 }
    })
    const chunks = planChunks(rows, p.model)
    expect(chunks.length).toBe(1)
    expect(chunks[0]!.prefixRows.length).toBe(3)
    expect(chunks[0]!.rows.length).toBe(12)
    // a small arena splits them, and every row still lands in exactly one chunk
    const small = await make({ microBatch: 2 })
    const parts = planChunks(rows, small.model)
    expect(parts.length).toBeGreaterThan(1)
    expect(parts.flatMap((c) => c.rows).sort((a, b) => a - b)).toEqual(rows.map((_, i) => i))
  })

  test("scores with shared prompts equal each item scored alone, bit for bit", async () => {
    const p = await make()
    const its = shared(p)
    const together = await p.score(its.map((it) => ({ prompt: it.prompt, continuation: it.tokens })))
    for (let i = 0; i < its.length; i++) {
      const [alone] = await p.score([{ prompt: its[i]!.prompt, continuation: its[i]!.tokens }])
      expect(together[i]!.logprobs).toEqual(alone!.logprobs)
      expect(together[i]!.entropy).toEqual(alone!.entropy)
    }
  })

  test("the batch gradient equals the sum of per-item gradients (float32 order aside)", async () => {
    const p = await make()
    const its = shared(p)
    p.zeroGrad()
    await p.accumulate(its, sumLoss)
    const batch = new Float32Array(p.model.grads)
    p.zeroGrad()
    for (const it of its) await p.accumulate([it], sumLoss)
    let worst = 0,
      scale = 0
    for (let i = 0; i < batch.length; i++) {
      worst = Math.max(worst, Math.abs(batch[i]! - p.model.grads[i]!))
      scale = Math.max(scale, Math.abs(batch[i]!))
    }
    console.log(`shared-prompt batch vs per-item gradients: max |Δ| ${worst.toExponential(2)} (max |g| ${scale.toFixed(3)})`)
    expect(scale).toBeGreaterThan(0.1)
    expect(worst / scale).toBeLessThan(1e-5)
  })

  test("whole-model finite-difference check through shared prompts", async () => {
    const p = await make({ valueTrunkGrad: true })
    for (let i = 0; i < p.model.params.length; i++) p.model.params[i] = p.model.params[i]! * 5
    p.model.p.valuew!.set(p.model.p.lnfw!.map((_, i) => 0.1 * Math.sin(i)))
    const its = shared(p)
    expect(p.model.lastShape.Bp).toBe(0) // nothing ran yet
    p.zeroGrad()
    await p.accumulate(its, mixedLoss)
    expect(p.model.lastShape.Bp).toBe(3)
    const g = new Float32Array(p.model.grads)
    const lossValue = async () => mixedLoss(await p.forward(its)).loss
    const worst = await wholeModelFdError(p.model, g, lossValue, { h: 1e-2, perTensor: 6, floor: 5e-2 })
    console.log(`fd whole model, shared prompts: max rel error ${worst.toExponential(2)}`)
    expect(worst).toBeLessThan(5e-2)
  })

  test("sharePrefix: false scores every row alone and gives the same numbers", async () => {
    const a = await make(),
      b = await make({ sharePrefix: false })
    const reqs = shared(a).map((it) => ({ prompt: it.prompt, continuation: it.tokens }))
    const sa = await a.score(reqs)
    expect(a.model.lastShape.Bp).toBe(3)
    const sb = await b.score(reqs)
    expect(b.model.lastShape.Bp).toBe(0)
    for (let i = 0; i < reqs.length; i++) expect(sb[i]!.logprobs).toEqual(sa[i]!.logprobs)
  })

  test("sampling repeated prompts: log-probs equal the teacher-forced scores", async () => {
    const p = await make()
    const prompts = ["a b c <think>", "a b c <think>", "go left <think>", "a b c <think>", "h <think>", "go left <think>"]
    const cs = await p.sample(prompts, { temperature: 1, topP: 1, minP: 0, maxTokens: 8, stop: "" }, new Rng(4))
    const sc = await p.score(cs.map((c, i) => ({ prompt: prompts[i]!, continuation: c.tokens })))
    for (let i = 0; i < cs.length; i++) expect(Array.from(sc[i]!.logprobs)).toEqual(Array.from(cs[i]!.rawLogprobs))
  })
})
