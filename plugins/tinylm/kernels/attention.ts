/**
 * Causal multi-head self-attention (llm.c attention_forward/backward) with per-row lengths:
 * row b has lens[b] valid positions; queries t ≥ lens[b] are skipped (output 0) and keys
 * t2 ≥ lens[b] are masked, so right-padded batches need no other mask.
 * B rows, T positions (padded length), C channels, NH heads, hs = C/NH.
 * qkv (B,T,3C): q in [0,C), k in [C,2C), v in [2C,3C); head h uses [h·hs, (h+1)·hs).
 */

/** The prefix table of a batch without prefixes. */
export const NO_PREFIX = new Int32Array(0)

// out (B,T,C); att (B,NH,T,T) post-softmax weights (row t uses t2 ≤ t): the prefixed kernel below
// with no prefix
export function attentionForward(out: Float32Array, att: Float32Array, qkv: Float32Array, lens: Int32Array, B: number, T: number, C: number, NH: number): void {
  attentionForwardPrefixed(out, att, qkv, lens, B, T, C, NH, qkv, NO_PREFIX, T)
}

// dqkv (B,T,3C) +=; scratch (T) holds one row of d(att)
export function attentionBackward(
  dqkv: Float32Array,
  scratch: Float32Array,
  dout: Float32Array,
  qkv: Float32Array,
  att: Float32Array,
  lens: Int32Array,
  B: number,
  T: number,
  C: number,
  NH: number
): void {
  attentionBackwardPrefixed(dqkv, dqkv, scratch, dout, qkv, att, lens, B, T, C, NH, qkv, NO_PREFIX, T)
}

/**
 * One decode query against a KV-cache slot (the sampler): q = qkv[qOff..qOff+C) (the q part of a
 * qkv row), keys/values at kc/vc[kvOff + t2·C] for t2 ≤ t; out[outOff..outOff+C); att (≥ t+1)
 * is scratch. Same arithmetic order as attentionForward, so sampled log-probs equal the scores.
 */
export function attentionDecode(
  out: Float32Array,
  outOff: number,
  att: Float32Array,
  q: Float32Array,
  qOff: number,
  kc: Float32Array,
  vc: Float32Array,
  kvOff: number,
  t: number,
  C: number,
  NH: number
): void {
  const hs = C / NH
  const scale = 1 / Math.sqrt(hs)
  for (let h = 0; h < NH; h++) {
    const qo = qOff + h * hs
    let max = -Infinity
    for (let t2 = 0; t2 <= t; t2++) {
      const k = kvOff + t2 * C + h * hs
      let s = 0
      for (let i = 0; i < hs; i++) s += q[qo + i]! * kc[k + i]!
      s *= scale
      att[t2] = s
      if (s > max) max = s
    }
    let sum = 0
    for (let t2 = 0; t2 <= t; t2++) {
      const e = Math.exp(att[t2]! - max)
      att[t2] = e
      sum += e
    }
    const inv = 1 / sum
    for (let t2 = 0; t2 <= t; t2++) att[t2] = att[t2]! * inv
    const oh = outOff + h * hs
    for (let i = 0; i < hs; i++) out[oh + i] = 0
    for (let t2 = 0; t2 <= t; t2++) {
      const v = kvOff + t2 * C + h * hs
      const w = att[t2]!
      for (let i = 0; i < hs; i++) out[oh + i] = out[oh + i]! + w * vc[v + i]!
    }
  }
}

/**
 * The sampler's decode step for N rows at once: row j's q, k, v at qkv[j·3C ..]; rows[2j], rows[2j+1]
 * = its cache slot and position. Its k and v go into kc / vc (maxB, T, C) at that slot and position,
 * then it attends over positions 0..pos of its slot (attentionDecode); out (N, C). att (≥ 4T floats:
 * the fast kernels run four rows at a time) is scratch.
 */
export function attentionDecodeRows(out: Float32Array, att: Float32Array, qkv: Float32Array, kc: Float32Array, vc: Float32Array, rows: Int32Array, N: number, T: number, C: number, NH: number): void {
  for (let j = 0; j < N; j++) {
    const at = (rows[2 * j]! * T + rows[2 * j + 1]!) * C
    kc.set(qkv.subarray(j * 3 * C + C, j * 3 * C + 2 * C), at)
    vc.set(qkv.subarray(j * 3 * C + 2 * C, j * 3 * C + 3 * C), at)
  }
  for (let j = 0; j < N; j++) attentionDecode(out, j * C, att, qkv, j * 3 * C, kc, vc, rows[2 * j]! * T * C, rows[2 * j + 1]!, C, NH)
}

/**
 * Attention of rows that continue a shared prefix (the prompt, computed once for every row that
 * shares it: policy.ts groups rows by prompt). Row b's keys are the pref[2b+1] positions of its
 * prefix, which start at position pref[2b] of pqkv (the prefix rows' qkv, same layout as qkv),
 * followed by its own positions 0..t; its position t sits at absolute position pref[2b+1] + t.
 * An empty pref (NO_PREFIX): no row has one (plain causal attention, attentionForward).
 * att (B,NH,T,Tk) holds, for query t, the weights of those pref[2b+1] + t + 1 keys in that order
 * (Tk ≥ the longest prefix + T). Same arithmetic, in the same order, as attentionForward on the
 * concatenated row, so every output equals the unshared computation bit for bit.
 */
export function attentionForwardPrefixed(
  out: Float32Array,
  att: Float32Array,
  qkv: Float32Array,
  lens: Int32Array,
  B: number,
  T: number,
  C: number,
  NH: number,
  pqkv: Float32Array,
  pref: Int32Array,
  Tk: number
): void {
  const C3 = 3 * C
  const hs = C / NH
  const scale = 1 / Math.sqrt(hs)
  for (let b = 0; b < B; b++) {
    const len = Math.min(lens[b]!, T)
    const p0 = pref.length === 0 ? 0 : pref[2 * b]!,
      P = pref.length === 0 ? 0 : pref[2 * b + 1]!
    // key j: a prefix position (j < P) or one of the row's own (j − P)
    const key = (j: number) => (j < P ? (p0 + j) * C3 : (b * T + j - P) * C3)
    const src = (j: number) => (j < P ? pqkv : qkv)
    for (let t = 0; t < T; t++) {
      const o = (b * T + t) * C
      if (t >= len) {
        for (let i = 0; i < C; i++) out[o + i] = 0
        continue
      }
      const n = P + t + 1
      for (let h = 0; h < NH; h++) {
        const q = (b * T + t) * C3 + h * hs
        const a = ((b * NH + h) * T + t) * Tk
        let max = -Infinity
        for (let j = 0; j < n; j++) {
          const kv = src(j),
            k = key(j) + C + h * hs
          let s = 0
          for (let i = 0; i < hs; i++) s += qkv[q + i]! * kv[k + i]!
          s *= scale
          att[a + j] = s
          if (s > max) max = s
        }
        let sum = 0
        for (let j = 0; j < n; j++) {
          const e = Math.exp(att[a + j]! - max)
          att[a + j] = e
          sum += e
        }
        const inv = 1 / sum
        for (let j = 0; j < n; j++) att[a + j] = att[a + j]! * inv
        const oh = o + h * hs
        for (let i = 0; i < hs; i++) out[oh + i] = 0
        for (let j = 0; j < n; j++) {
          const kv = src(j),
            v = key(j) + 2 * C + h * hs
          const w = att[a + j]!
          for (let i = 0; i < hs; i++) out[oh + i] = out[oh + i]! + w * kv[v + i]!
        }
      }
    }
  }
}

/**
 * Backward of attentionForwardPrefixed: dqkv (B,T,3C) += for the rows' own positions, and
 * dpqkv (the prefix rows' dqkv) += the k and v gradients of the prefix positions, summed over the
 * rows in row order. scratch holds ≥ the longest prefix + T floats (one row of d(att)).
 */
export function attentionBackwardPrefixed(
  dqkv: Float32Array,
  dpqkv: Float32Array,
  scratch: Float32Array,
  dout: Float32Array,
  qkv: Float32Array,
  att: Float32Array,
  lens: Int32Array,
  B: number,
  T: number,
  C: number,
  NH: number,
  pqkv: Float32Array,
  pref: Int32Array,
  Tk: number
): void {
  const C3 = 3 * C
  const hs = C / NH
  const scale = 1 / Math.sqrt(hs)
  for (let b = 0; b < B; b++) {
    const len = Math.min(lens[b]!, T)
    const p0 = pref.length === 0 ? 0 : pref[2 * b]!,
      P = pref.length === 0 ? 0 : pref[2 * b + 1]!
    const key = (j: number) => (j < P ? (p0 + j) * C3 : (b * T + j - P) * C3)
    for (let t = 0; t < len; t++) {
      const n = P + t + 1
      for (let h = 0; h < NH; h++) {
        const q = (b * T + t) * C3 + h * hs
        const a = ((b * NH + h) * T + t) * Tk
        const d = (b * T + t) * C + h * hs
        let dot = 0
        for (let j = 0; j < n; j++) {
          const kv = j < P ? pqkv : qkv,
            dkv = j < P ? dpqkv : dqkv
          const v = key(j) + 2 * C + h * hs
          const w = att[a + j]!
          let s = 0
          for (let i = 0; i < hs; i++) {
            s += dout[d + i]! * kv[v + i]!
            dkv[v + i] = dkv[v + i]! + w * dout[d + i]!
          }
          scratch[j] = s
          dot += s * w
        }
        for (let j = 0; j < n; j++) {
          const dpre = att[a + j]! * (scratch[j]! - dot) * scale
          if (dpre === 0) continue
          const kv = j < P ? pqkv : qkv,
            dkv = j < P ? dpqkv : dqkv
          const k = key(j) + C + h * hs
          for (let i = 0; i < hs; i++) {
            dqkv[q + i] = dqkv[q + i]! + dpre * kv[k + i]!
            dkv[k + i] = dkv[k + i]! + dpre * qkv[q + i]!
          }
        }
      }
    }
  }
}
