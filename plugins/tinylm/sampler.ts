/**
 * Batched sampling with a KV cache: prefill all prompts of a chunk with one padded forward
 * (its K and V rows become the cache), then one token per step for all live rows at once
 * (matmuls batched over rows). Temperature, min-p (keep p ≥ minP·max p), top-p (smallest set
 * with mass ≥ topP); logprobs under the sampling distribution and under the untempered model.
 */
import type { SampleOptions } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/host.ts"
import { kernels } from "./kernels/dispatch.ts"
import type { GPT } from "./model.ts"
import { loadChunk, singleChunk } from "./prefix.ts"

export interface SampledRow {
  readonly tokens: Int32Array
  readonly logprobs: Float32Array
  readonly rawLogprobs: Float32Array
  readonly finishReason: "stop" | "length" | "eos"
}

/** Scratch for the next-token distribution (V entries). */
export class SamplerScratch {
  readonly p: Float64Array
  readonly idx: Int32Array
  constructor(V: number) {
    this.p = new Float64Array(V)
    this.idx = new Int32Array(V)
  }
}

/**
 * Draw one token from logits z[off..off+V). Returns the token; writes [sampling logprob, raw logprob] to out.
 */
export const drawToken = (z: Float32Array, off: number, V: number, o: SampleOptions, rng: Rng, s: SamplerScratch, out: Float64Array): number => {
  let max = -Infinity
  let arg = 0
  for (let i = 0; i < V; i++) {
    const x = z[off + i]!
    if (x > max) {
      max = x
      arg = i
    }
  }
  // the untempered exps go to p: at temperature 1 they are the tempered ones ((z − max) / 1 = z − max)
  const p = s.p
  let sumRaw = 0
  for (let i = 0; i < V; i++) sumRaw += p[i] = Math.exp(z[off + i]! - max)
  const lseRaw = max + Math.log(sumRaw)
  if (!(o.temperature > 1e-6)) {
    out[0] = 0
    out[1] = z[off + arg]! - lseRaw
    return arg
  }
  let sum = sumRaw
  if (o.temperature !== 1) {
    sum = 0
    for (let i = 0; i < V; i++) sum += p[i] = Math.exp((z[off + i]! - max) / o.temperature)
  }
  for (let i = 0; i < V; i++) p[i] = p[i]! / sum
  // min-p relative to the top token (p of argmax = max after normalisation)
  if (o.minP > 0) {
    const cut = o.minP * p[arg]!
    for (let i = 0; i < V; i++) if (p[i]! < cut) p[i] = 0
  }
  if (o.topP < 1) {
    const idx = s.idx
    for (let i = 0; i < V; i++) idx[i] = i
    idx.sort((a, b) => p[b]! - p[a]! || a - b)
    let cum = 0
    let k = 0
    for (; k < V; k++) {
      cum += p[idx[k]!]!
      if (cum >= o.topP) {
        k++
        break
      }
    }
    for (let j = k; j < V; j++) p[idx[j]!] = 0
  }
  let kept = 0
  for (let i = 0; i < V; i++) kept += p[i]!
  let u = rng.float() * kept
  let tok = arg
  for (let i = 0; i < V; i++) {
    if (p[i]! === 0) continue
    u -= p[i]!
    tok = i
    if (u < 0) break
  }
  out[0] = Math.log(p[tok]! / kept)
  out[1] = z[off + tok]! - lseRaw
  return tok
}

/**
 * Layer l's K and V of n positions into the KV cache: position i's from qkv at float src(i) (its
 * q, k, v row) to the caches at float dst(i). copyWithin on the whole arena: no view per copy.
 */
const copyKv = (model: GPT, l: number, n: number, dst: (i: number) => number, src: (i: number) => number): void => {
  const C = model.config.d,
    all = model.all
  const q0 = model.al.qkv![l]!.byteOffset >> 2,
    k0 = model.kcache[l]!.byteOffset >> 2,
    v0 = model.vcache[l]!.byteOffset >> 2
  for (let i = 0; i < n; i++) {
    const s = q0 + src(i) + C,
      d = dst(i)
    all.copyWithin(k0 + d, s, s + C)
    all.copyWithin(v0 + d, s + C, s + 2 * C)
  }
}

/** One decode step for N live rows: token toks[j] at position pos[j] in cache slot slot[j]; logits land in model.logits (N,Vp). */
const decodeStep = (model: GPT, N: number, toks: Int32Array, pos: Int32Array, slot: Int32Array): void => {
  const { d: C, layers: L, heads: NH, ctx: T } = model.config
  const a = model.a,
    al = model.al,
    pl = model.pl,
    p = model.p
  const mm = kernels.matmulForward,
    wt = model.wt // transposed by the prefill forward of this chunk

  const x = a.encoded!
  const wte = p.wte!,
    wpe = p.wpe!
  for (let j = 0; j < N; j++) {
    const o = j * C,
      w = toks[j]! * C,
      q = pos[j]! * C
    for (let i = 0; i < C; i++) x[o + i] = wte[w + i]! + wpe[q + i]!
  }
  const att = a.scratch!,
    rows = model.decodeRows
  for (let j = 0; j < N; j++) {
    rows[2 * j] = slot[j]!
    rows[2 * j + 1] = pos[j]!
  }
  let res = x
  for (let l = 0; l < L; l++) {
    const qkv = al.qkv![l]!,
      atty = al.atty![l]!
    kernels.layernormForward(al.ln1![l]!, al.ln1Mean![l]!, al.ln1Rstd![l]!, res, pl.ln1w[l]!, pl.ln1b[l]!, N, C)
    mm(qkv, al.ln1![l]!, pl.qkvw[l]!, pl.qkvb[l]!, N, C, 3 * C, wt.qkvw[l]!, true)
    // the rows' k and v into the cache, then the same arithmetic as attentionForward (scores match teacher forcing)
    kernels.attentionDecodeRows(atty, att, qkv, model.kcache[l]!, model.vcache[l]!, rows, N, T, C, NH)
    mm(al.attproj![l]!, atty, pl.attprojw[l]!, pl.attprojb[l]!, N, C, C, wt.attprojw[l]!, true)
    kernels.residualForward(al.res2![l]!, res, al.attproj![l]!, N * C)
    kernels.layernormForward(al.ln2![l]!, al.ln2Mean![l]!, al.ln2Rstd![l]!, al.res2![l]!, pl.ln2w[l]!, pl.ln2b[l]!, N, C)
    mm(al.fch![l]!, al.ln2![l]!, pl.fcw[l]!, pl.fcb[l]!, N, C, 4 * C, wt.fcw[l]!, true)
    kernels.geluForward(al.fchGelu![l]!, al.fch![l]!, N * 4 * C)
    mm(al.fcproj![l]!, al.fchGelu![l]!, pl.fcprojw[l]!, pl.fcprojb[l]!, N, 4 * C, C, wt.fcprojw[l]!, true)
    kernels.residualForward(al.res3![l]!, al.res2![l]!, al.fcproj![l]!, N * C)
    res = al.res3![l]!
  }
  kernels.layernormForward(a.lnf!, a.lnfMean!, a.lnfRstd!, res, p.lnfw!, p.lnfb!, N, C)
  mm(model.logits, a.lnf!, wte, null, N, C, model.Vp, wt.wte, true)
}

/**
 * Sample completions for ≤ maxB prompts (token ids, each at most ctx − 1 long).
 * `stopToken` ends a row after it is produced (finish "stop"); `eos` ends it without being kept.
 */
export const sampleChunk = (model: GPT, prompts: ReadonlyArray<Int32Array>, o: SampleOptions, rng: Rng, stopToken: number, eos: number, scratch: SamplerScratch, sharePrefix = true): SampledRow[] => {
  const { ctx: T, d: C, layers: L, vocab: V } = model.config
  const B = prompts.length
  // Prefill: prompts that share all but their last token (the G copies of a state) share that
  // prefix's forward (prefix.ts); the last token's row gives the first logits.
  const rows = prompts.map((tokens) => ({ tokens, split: sharePrefix ? tokens.length - 1 : 0 }))
  const chunk = singleChunk(rows)
  const [Bp, Tp, , Tb] = loadChunk(model, rows, chunk, 0)
  const prefixLen = (b: number) => (Bp > 0 ? rows[b]!.split : 0)
  for (let b = 0; b < B; b++) {
    model.gather[b] = b * Tb + prompts[b]!.length - 1 - prefixLen(b)
    model.targets[b] = 0
  }
  model.forward(B, Tb, B, Bp, Tp)
  // the prefill's K and V rows become the cache (slot b, positions 0..len−1): the prefix's
  // positions from its prefix row, the rest from the row's own block
  const Np = Bp * Tp
  for (let b = 0; b < B; b++) {
    const P = prefixLen(b),
      pi = chunk.prefixOf[b]!
    const src = (t: number) => (t < P ? pi * Tp + t : Np + b * Tb + t - P) * 3 * C
    for (let l = 0; l < L; l++) copyKv(model, l, prompts[b]!.length, (t) => (b * T + t) * C, src)
  }
  const toks: number[][] = prompts.map(() => [])
  const lps: number[][] = prompts.map(() => [])
  const raws: number[][] = prompts.map(() => [])
  const finish: Array<SampledRow["finishReason"]> = prompts.map(() => "length")
  const liveTok = new Int32Array(B),
    livePos = new Int32Array(B),
    liveSlot = new Int32Array(B)
  const two = new Float64Array(2)
  // rows of model.logits that belong to each live row (prefill: row b)
  let live: number[] = prompts.map((_, b) => b)
  const maxNew = o.maxTokens
  const drawn = new Float64Array(B)
  const plain = o.temperature === 1 && o.topP >= 1 && o.minP <= 0
  while (live.length > 0) {
    const next: number[] = []
    let n = 0
    for (let j = 0; j < live.length; j++) {
      model.targets[j] = drawToken(model.logits, j * model.Vp, V, o, rng, scratch, two)
      drawn[j] = two[0]!
    }
    // the untempered log-probs through the scoring path's head kernel, so that they equal
    // teacher-forced scores bit for bit (the logits already do)
    kernels.headForward(model.probs, model.logprob, model.entropy, model.logits, model.targets, live.length, V, model.Vp)
    for (let j = 0; j < live.length; j++) {
      const b = live[j]!
      const tok = model.targets[j]!
      if (tok === eos) {
        finish[b] = "eos"
        continue
      }
      toks[b]!.push(tok)
      // untempered and untruncated, the sampling distribution is the model's: one number for both
      lps[b]!.push(plain ? model.logprob[j]! : drawn[j]!)
      raws[b]!.push(model.logprob[j]!)
      if (tok === stopToken) {
        finish[b] = "stop"
        continue
      }
      const len = prompts[b]!.length + toks[b]!.length
      if (toks[b]!.length >= maxNew || len >= T) continue
      next.push(b)
      liveTok[n] = tok
      livePos[n] = len - 1
      liveSlot[n] = b
      n++
    }
    live = next
    if (n > 0) decodeStep(model, n, liveTok, livePos, liveSlot)
  }
  return prompts.map((_, b) => ({
    tokens: Int32Array.from(toks[b]!),
    logprobs: Float32Array.from(lps[b]!),
    rawLogprobs: Float32Array.from(raws[b]!),
    finishReason: finish[b]!
  }))
}
