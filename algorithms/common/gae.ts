/**
 * Generalized advantage estimation (Schulman et al. 2016) at token level, as verl's
 * compute_gae_advantage_return: the trajectory's turns are concatenated and the value after the
 * final token is 0 (the episode ended). Rewards sit on tokens either as the reference does by
 * default (the return on the final token: finalTokenRewards) or each turn's reward on that turn's
 * last token (tokenRewards).
 */

/**
 * rewards, values: (T,) per token. Returns advantages (T,) and returns = advantages + values.
 *   δ_t = r_t + γ V_{t+1} − V_t,  A_t = δ_t + γ λ A_{t+1}
 */
export const gae = (rewards: Float32Array, values: Float32Array, gamma: number, lambda: number): { advantages: Float32Array; returns: Float32Array } => {
  const T = rewards.length
  const advantages = new Float32Array(T)
  const returns = new Float32Array(T)
  let next = 0
  let nextValue = 0
  for (let t = T - 1; t >= 0; t--) {
    const delta = rewards[t]! + gamma * nextValue - values[t]!
    next = delta + gamma * lambda * next
    advantages[t] = next
    returns[t] = next + values[t]!
    nextValue = values[t]!
  }
  return { advantages, returns }
}

/** Per-token rewards of a trajectory: each turn's reward on that turn's last token. */
export const tokenRewards = (turnRewards: ReadonlyArray<number>, turnLengths: ReadonlyArray<number>): Float32Array => {
  let T = 0
  for (const l of turnLengths) T += l
  const out = new Float32Array(T)
  let off = 0
  let carry = 0
  for (let k = 0; k < turnLengths.length; k++) {
    const l = turnLengths[k]!
    // A turn with no tokens (empty completion) passes its reward on to the next token.
    carry += turnRewards[k] ?? 0
    if (l > 0) {
      out[off + l - 1] = carry
      carry = 0
    }
    off += l
  }
  if (carry !== 0 && T > 0) out[T - 1] = out[T - 1]! + carry
  return out
}

/** Per-token rewards with the whole return R on the trajectory's final token (the reference's default). */
export const finalTokenRewards = (ret: number, turnLengths: ReadonlyArray<number>): Float32Array => {
  let T = 0
  for (const l of turnLengths) T += l
  const out = new Float32Array(T)
  if (T > 0) out[T - 1] = ret
  return out
}
