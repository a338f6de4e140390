/**
 * A scripted TrainablePolicy for trainer tests: per prompt, a softmax over K fixed candidate
 * completions (a table of logits keyed by the prompt text) plus a scalar value per prompt.
 * Candidate k's tokens are [k, F, F, …] (its `length`); only the first token carries the choice,
 * the filler tokens have log-prob 0 and entropy 0. Adam with global-norm clipping; save/load
 * keep parameters, moments and the step count, so resume can be tested exactly.
 */
import { readFileSync, writeFileSync } from "node:fs"
import type { Completion, LossFn, LossOutput, Policy, ScoreRequest, ScoreResult, TokenForward, TrainablePolicy, TrainItem } from "../../core/contracts/index.ts"
import type { Rng } from "../../core/rng.ts"

const FILLER = 1000

export interface FakeCandidate {
  readonly text: string
  /** Token count (≥ 1). */
  readonly length?: number
}

interface Row {
  logits: Float64Array
  value: number
  gLogits: Float64Array
  gValue: number
  m: Float64Array
  v: Float64Array
  mv: number
  vv: number
}

const softmax = (z: Float64Array, T: number): Float64Array => {
  const p = new Float64Array(z.length)
  if (T === 0) {
    let best = 0
    for (let j = 1; j < z.length; j++) if (z[j]! > z[best]!) best = j
    p[best] = 1
    return p
  }
  let m = -Infinity
  for (const x of z) m = Math.max(m, x / T)
  let s = 0
  for (let j = 0; j < z.length; j++) s += p[j] = Math.exp(z[j]! / T - m)
  for (let j = 0; j < z.length; j++) p[j] = p[j]! / s
  return p
}

export class FakePolicy implements TrainablePolicy {
  readonly id = "fake"
  readonly K: number
  private rows = new Map<string, Row>()
  private t = 0
  private frozen = false
  constructor(
    readonly candidates: ReadonlyArray<FakeCandidate>,
    readonly initLogits?: ReadonlyArray<number>,
    readonly configName = "fake-k"
  ) {
    this.K = candidates.length
  }

  get parameterCount(): number {
    return this.rows.size * (this.K + 1)
  }

  private row(prompt: string): Row {
    let r = this.rows.get(prompt)
    if (!r) {
      const K = this.K
      r = {
        logits: Float64Array.from({ length: K }, (_, j) => this.initLogits?.[j] ?? 0),
        value: 0,
        gLogits: new Float64Array(K),
        gValue: 0,
        m: new Float64Array(K),
        v: new Float64Array(K),
        mv: 0,
        vv: 0
      }
      if (!this.frozen) this.rows.set(prompt, r)
    }
    return r
  }

  probs(prompt: string, T = 1): Float64Array {
    return softmax(this.row(prompt).logits, T)
  }

  private tokensOf(k: number): Int32Array {
    const L = this.candidates[k]!.length ?? 1
    const t = new Int32Array(L).fill(FILLER)
    t[0] = k
    return t
  }

  async sample(prompts: ReadonlyArray<string>, o: { temperature: number; maxTokens: number }, rng: Rng): Promise<Completion[]> {
    return prompts.map((prompt) => {
      const p = this.probs(prompt, o.temperature)
      const raw = this.probs(prompt, 1)
      let u = rng.float()
      let k = 0
      while (k < this.K - 1 && u >= p[k]!) u -= p[k++]!
      const tokens = this.tokensOf(k).slice(0, o.maxTokens)
      const logprobs = new Float32Array(tokens.length)
      const rawLogprobs = new Float32Array(tokens.length)
      logprobs[0] = Math.log(p[k]!)
      rawLogprobs[0] = Math.log(raw[k]!)
      return { text: this.candidates[k]!.text, tokens, logprobs, rawLogprobs, finishReason: tokens.length < (this.candidates[k]!.length ?? 1) ? "length" : "stop" }
    })
  }

  private forwardOne(prompt: string, tokens: Int32Array): TokenForward & { p: Float64Array; H: number } {
    const p = this.probs(prompt, 1)
    let H = 0
    for (const q of p) if (q > 0) H -= q * Math.log(q)
    const T = tokens.length
    const logprobs = new Float32Array(T)
    const entropy = new Float32Array(T)
    const values = new Float32Array(T).fill(this.row(prompt).value)
    if (T > 0) {
      logprobs[0] = Math.log(p[tokens[0]!]!)
      entropy[0] = H
    }
    return { logprobs, entropy, values, p, H }
  }

  async score(requests: ReadonlyArray<ScoreRequest>): Promise<ScoreResult[]> {
    return requests.map((r) => {
      let tokens: Int32Array
      if (typeof r.continuation === "string") {
        const c = r.continuation
        const k = this.candidates.findIndex((x) => x.text.startsWith(c))
        tokens = k >= 0 ? this.tokensOf(k) : new Int32Array([0])
      } else tokens = r.continuation
      const f = this.forwardOne(r.prompt, tokens)
      return { tokens, logprobs: f.logprobs, entropy: f.entropy }
    })
  }

  async accumulate(items: ReadonlyArray<TrainItem>, loss: LossFn): Promise<LossOutput> {
    const fw = items.map((it) => this.forwardOne(it.prompt, it.tokens))
    const out = loss(fw)
    items.forEach((it, i) => {
      const g = out.grads[i]!
      const f = fw[i]!
      const r = this.row(it.prompt)
      if (it.tokens.length > 0) {
        const k = it.tokens[0]!
        const dLp = g.dLogprobs[0]!
        const dH = g.dEntropy[0]!
        for (let j = 0; j < this.K; j++) {
          const pj = f.p[j]!
          const dlog = (j === k ? 1 : 0) - pj
          const dent = pj > 0 ? -pj * (Math.log(pj) + f.H) : 0
          r.gLogits[j] = r.gLogits[j]! + dLp * dlog + dH * dent
        }
      }
      for (let t = 0; t < g.dValues.length; t++) r.gValue += g.dValues[t]!
    })
    return out
  }

  gradNorm(): number {
    let s = 0
    for (const r of this.rows.values()) {
      for (const g of r.gLogits) s += g * g
      s += r.gValue * r.gValue
    }
    return Math.sqrt(s)
  }

  zeroGrad(): void {
    for (const r of this.rows.values()) {
      r.gLogits.fill(0)
      r.gValue = 0
    }
  }

  step(o: { lr: number; maxGradNorm: number }): number {
    const norm = this.gradNorm()
    const scale = o.maxGradNorm > 0 && norm > o.maxGradNorm ? o.maxGradNorm / (norm + 1e-6) : 1
    this.t++
    const b1 = 0.9,
      b2 = 0.999,
      eps = 1e-8
    const c1 = 1 - b1 ** this.t,
      c2 = 1 - b2 ** this.t
    // Rows are visited in insertion order, which is deterministic for a deterministic run.
    for (const r of this.rows.values()) {
      for (let j = 0; j < this.K; j++) {
        const g = r.gLogits[j]! * scale
        r.m[j] = b1 * r.m[j]! + (1 - b1) * g
        r.v[j] = b2 * r.v[j]! + (1 - b2) * g * g
        r.logits[j] = r.logits[j]! - (o.lr * (r.m[j]! / c1)) / (Math.sqrt(r.v[j]! / c2) + eps)
      }
      const g = r.gValue * scale
      r.mv = b1 * r.mv + (1 - b1) * g
      r.vv = b2 * r.vv + (1 - b2) * g * g
      r.value -= (o.lr * (r.mv / c1)) / (Math.sqrt(r.vv / c2) + eps)
    }
    this.zeroGrad()
    return norm
  }

  private dump(): string {
    const rows: Record<string, unknown> = {}
    for (const [k, r] of this.rows) rows[k] = { l: [...r.logits], v: r.value, m: [...r.m], vv2: [...r.v], mv: r.mv, vv: r.vv }
    return JSON.stringify({ config: this.configName, K: this.K, t: this.t, rows })
  }

  private restore(text: string): void {
    const d = JSON.parse(text)
    if (d.config !== this.configName || d.K !== this.K) {
      throw new Error(`checkpoint is for model config ${d.config} (K=${d.K}), this policy is ${this.configName} (K=${this.K})`)
    }
    this.t = d.t
    this.rows = new Map()
    for (const [k, x] of Object.entries(d.rows as Record<string, any>)) {
      this.rows.set(k, {
        logits: Float64Array.from(x.l),
        value: x.v,
        gLogits: new Float64Array(this.K),
        gValue: 0,
        m: Float64Array.from(x.m),
        v: Float64Array.from(x.vv2),
        mv: x.mv,
        vv: x.vv
      })
    }
  }

  async snapshot(): Promise<Policy> {
    const copy = new FakePolicy(this.candidates, this.initLogits, this.configName)
    copy.restore(this.dump())
    copy.frozen = true
    return copy
  }

  async save(path: string): Promise<void> {
    writeFileSync(path, this.dump())
  }

  async load(path: string): Promise<void> {
    this.restore(readFileSync(path, "utf8"))
  }
}
