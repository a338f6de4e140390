import { describe, expect, test } from "bun:test"
import { buildObjective, clippedTokenLoss, klTerm } from "../../algorithms/common/objective.ts"
import { gae, tokenRewards } from "../../algorithms/common/gae.ts"
import { grpoTrajectoryAdvantages } from "../../algorithms/grpo.ts"
import { overlongPenalty } from "../../algorithms/dapo.ts"

const traj = (group: number, ret: number) => ({ group, ret, turnRewards: [ret], turnLengths: [2], oldLogprobs: new Float32Array(2) })

describe("advantages", () => {
  test("GAE, hand-worked: r = [0, 0, 1], V = [0.5, 0.6, 0.7]", () => {
    // γ = λ = 1: A_t = Σ r − V_t = [0.5, 0.4, 0.3]
    const a = gae(Float32Array.from([0, 0, 1]), Float32Array.from([0.5, 0.6, 0.7]), 1, 1)
    expect([...a.advantages].map((x) => +x.toFixed(5))).toEqual([0.5, 0.4, 0.3])
    expect([...a.returns].map((x) => +x.toFixed(5))).toEqual([1, 1, 1])
    // γ = 0.9, λ = 0.5: δ = [0.04, -0.6+0.63=0.03, 0.3]; A2 = 0.3, A1 = 0.03 + 0.45·0.3 = 0.165, A0 = 0.04 + 0.45·0.165 = 0.11425
    const b = gae(Float32Array.from([0, 0, 1]), Float32Array.from([0.5, 0.6, 0.7]), 0.9, 0.5)
    expect(b.advantages[2]!).toBeCloseTo(0.3, 5)
    expect(b.advantages[1]!).toBeCloseTo(0.165, 5)
    expect(b.advantages[0]!).toBeCloseTo(0.11425, 5)
  })
  test("turn rewards sit on each turn's last token", () => {
    expect([...tokenRewards([0.5, -0.1, 1], [2, 0, 3])]).toEqual([0, 0.5, 0, 0, 0.9 as number].map((x) => Math.fround(x)))
  })
  test("GRPO: (R − mean)/(unbiased std + 1e-6); Dr.GRPO no std", () => {
    const t = [traj(0, 1), traj(0, 0), traj(0, 0), traj(0, 1), traj(1, 2), traj(1, 2)]
    const a = grpoTrajectoryAdvantages(t, "grpo", 1e-6)
    const sd = Math.sqrt(1 / 3) // values 1,0,0,1: mean 0.5, Σ(x−m)² = 1, /(n−1) = 1/3
    expect(a[0]!).toBeCloseTo(0.5 / (sd + 1e-6), 6)
    expect(a[1]!).toBeCloseTo(-0.5 / (sd + 1e-6), 6)
    expect(a[4]!).toBe(0)
    expect(grpoTrajectoryAdvantages(t, "dr-grpo", 1e-6)[0]!).toBeCloseTo(0.5, 9)
  })
  test("DAPO overlong penalty (Eq. 13)", () => {
    expect(overlongPenalty(40, 64, 16)).toBe(0)
    expect(overlongPenalty(56, 64, 16)).toBeCloseTo(-0.5, 9)
    expect(overlongPenalty(65, 64, 16)).toBe(-1)
  })
})

describe("clipped objective", () => {
  test("clip-low/high and dual clip select the right branch", () => {
    // A > 0, ratio 1.5 > 1.28: clipped, zero gradient.
    const c1 = clippedTokenLoss(Math.log(1.5), 0, 1, 0.2, 0.28, 3)
    expect(c1.clipped).toBe(true)
    expect(c1.loss).toBeCloseTo(-1.28, 9)
    expect(c1.dLogprob).toBe(0)
    // A < 0, ratio 5: unclipped loss 5 > dual bound 3 ⇒ loss 3, zero gradient.
    const c2 = clippedTokenLoss(Math.log(5), 0, -1, 0.2, 0.28, 3)
    expect(c2.dualClipped).toBe(true)
    expect(c2.loss).toBeCloseTo(3, 9)
    // Inside the range: −A·r and its derivative −A·r.
    const c3 = clippedTokenLoss(Math.log(1.1), 0, 2, 0.2, 0.28, 3)
    expect(c3.loss).toBeCloseTo(-2.2, 9)
    expect(c3.dLogprob).toBeCloseTo(-2.2, 9)
  })
  test("gradients of the full objective match finite differences", () => {
    const batch = [
      { advantages: Float32Array.from([1, -0.5, 0.3]), oldLogprobs: Float32Array.from([-1, -2, -0.5]), refLogprobs: Float32Array.from([-1.2, -1.8, -0.4]), returns: Float32Array.from([1, 0, 0.5]), oldValues: Float32Array.from([0.2, 0.1, 0.4]) },
      { advantages: Float32Array.from([-1, 2]), oldLogprobs: Float32Array.from([-0.3, -3]), refLogprobs: Float32Array.from([-0.3, -2.5]), returns: Float32Array.from([0, 1]), oldValues: Float32Array.from([0.5, 0.5]) }
    ]
    for (const klEstimator of ["k1", "k3"] as const) {
      for (const lossAgg of ["token-mean", "seq-mean-token-mean", "seq-mean-token-sum-norm"] as const) {
        const L = buildObjective(batch, { clipLow: 0.2, clipHigh: 0.28, dualClip: 3, lossAgg, normLength: 4, entropyCoef: 0.01, klCoef: 0.1, klEstimator, valueCoef: 0.5, valueClip: 0.5 })
        // Points away from the clip boundaries, so the loss is differentiable there.
        const fw = () => [
          { logprobs: Float32Array.from([-0.95, -2.1, -0.45]), entropy: Float32Array.from([1, 0.5, 0.2]), values: Float32Array.from([0.3, 0.2, 0.3]) },
          { logprobs: Float32Array.from([-0.35, -2.9]), entropy: Float32Array.from([0.7, 0.9]), values: Float32Array.from([0.4, 0.7]) }
        ]
        const base = L(fw())
        const h = 1e-3
        for (const key of ["logprobs", "entropy", "values"] as const) {
          const gk = key === "logprobs" ? "dLogprobs" : key === "entropy" ? "dEntropy" : "dValues"
          for (let i = 0; i < 2; i++) {
            for (let t = 0; t < batch[i]!.advantages.length; t++) {
              const p = fw(), m = fw()
              p[i]![key][t]! += h
              m[i]![key][t]! -= h
              const fd = (L(p).loss - L(m).loss) / (2 * h)
              expect(Math.abs(fd - base.grads[i]![gk][t]!)).toBeLessThan(2e-4)
            }
          }
        }
      }
    }
  })
  test("k3 is non-negative and zero at equality", () => {
    expect(klTerm(-1, -1, "k3").kl).toBe(0)
    expect(klTerm(-1, -2, "k3").kl).toBeGreaterThan(0)
  })
})
