/**
 * Output head on M gathered positions: softmax over the V real vocabulary entries of the logits
 * (Vp − V padding columns ignored), the log-prob of each target and the entropy of the
 * distribution. Backward takes the loss gradients w.r.t. log-prob and entropy:
 *   d logp_y / dz_i = 1[i=y] − p_i          (softmax cross-entropy)
 *   d H / dz_i      = −p_i (log p_i + H)    (H = −Σ p log p)
 */

// probs (M,Vp), logprob (M), entropy (M); logits (M,Vp), targets (M)
export function headForward(probs: Float32Array, logprob: Float32Array, entropy: Float32Array, logits: Float32Array, targets: Int32Array, M: number, V: number, Vp: number): void {
  for (let m = 0; m < M; m++) {
    const z = m * Vp
    let max = -Infinity
    for (let i = 0; i < V; i++) if (logits[z + i]! > max) max = logits[z + i]!
    // one exp per entry: e_i = exp(z_i − max), p_i = e_i / Σe; H = lse − Σ p_i z_i
    let sum = 0
    for (let i = 0; i < V; i++) sum += probs[z + i] = Math.exp(logits[z + i]! - max)
    const lse = max + Math.log(sum)
    const inv = 1 / sum
    let pz = 0
    for (let i = 0; i < V; i++) {
      const p = probs[z + i]! * inv
      probs[z + i] = p
      pz += p * logits[z + i]!
    }
    for (let i = V; i < Vp; i++) probs[z + i] = 0
    logprob[m] = logits[z + targets[m]!]! - lse
    entropy[m] = Math.max(0, lse - pz) // ≥ 0 despite rounding on peaked rows
  }
}

// dlogits (M,Vp) +=; log p_i = z_i − lse with lse = z_y − logprob (no log per entry)
export function headBackward(
  dlogits: Float32Array,
  probs: Float32Array,
  logits: Float32Array,
  logprob: Float32Array,
  entropy: Float32Array,
  targets: Int32Array,
  dlogprob: Float32Array,
  dentropy: Float32Array,
  M: number,
  V: number,
  Vp: number
): void {
  for (let m = 0; m < M; m++) {
    const z = m * Vp
    const dl = dlogprob[m]!
    const de = dentropy[m]!
    if (dl === 0 && de === 0) continue
    const h = entropy[m]!
    const lse = logits[z + targets[m]!]! - logprob[m]!
    for (let i = 0; i < V; i++) {
      const p = probs[z + i]!
      dlogits[z + i] = dlogits[z + i]! + (-dl * p - de * p * (logits[z + i]! - lse + h))
    }
    dlogits[z + targets[m]!] = dlogits[z + targets[m]!]! + dl
  }
}
