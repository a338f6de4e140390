import { describe, expect, test } from "bun:test"
import { Schema } from "effect"
import { aggregationWeights, buildObjective, clippedTokenLoss, klTerm, type LossAgg, type ObjectiveItem } from "../../algorithms/common/objective.ts"
import { finalTokenRewards, gae, tokenRewards } from "../../algorithms/common/gae.ts"
import { grpo, GrpoOptions, grpoTrajectoryAdvantages } from "../../algorithms/grpo.ts"
import { dapo, DapoOptions, overlongPenalty } from "../../algorithms/dapo.ts"
import { ppo, PpoOptions } from "../../algorithms/ppo.ts"

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
      {
        advantages: Float32Array.from([1, -0.5, 0.3]),
        oldLogprobs: Float32Array.from([-1, -2, -0.5]),
        refLogprobs: Float32Array.from([-1.2, -1.8, -0.4]),
        returns: Float32Array.from([1, 0, 0.5]),
        oldValues: Float32Array.from([0.2, 0.1, 0.4])
      },
      {
        advantages: Float32Array.from([-1, 2]),
        oldLogprobs: Float32Array.from([-0.3, -3]),
        refLogprobs: Float32Array.from([-0.3, -2.5]),
        returns: Float32Array.from([0, 1]),
        oldValues: Float32Array.from([0.5, 0.5])
      }
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
              const p = fw(),
                m = fw()
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

/**
 * Three multi-turn trajectories as the trainer hands them to the loss (one item per turn, `traj`
 * the trajectory's index): traj 0 has turns of 2 and 3 tokens, traj 1 one turn of 1 token,
 * traj 2 turns of 2, 2 and 1 tokens. Old log-probs are 0 and the forward is evaluated at
 * log-prob 0 (ratio 1), where the per-token loss is −A.
 */
const turnItem = (traj: number | undefined, adv: number[]): ObjectiveItem => ({
  advantages: Float32Array.from(adv),
  oldLogprobs: new Float32Array(adv.length),
  ...(traj === undefined ? {} : { traj })
})
const multiTurn = (): ObjectiveItem[] => [turnItem(0, [1, 1]), turnItem(0, [1, 1, 1]), turnItem(1, [-2]), turnItem(2, [0.5, 0.5]), turnItem(2, [0.5, 0.5]), turnItem(2, [0.5])]
const noRegs = { clipLow: 0.2, clipHigh: 0.28, dualClip: 0, normLength: 10, entropyCoef: 0, klCoef: 0, klEstimator: "k3" as const, valueCoef: 0, valueClip: 0 }
const atRatioOne = (batch: ReadonlyArray<ObjectiveItem>) =>
  batch.map((b) => ({ logprobs: new Float32Array(b.advantages.length), entropy: new Float32Array(b.advantages.length), values: new Float32Array(b.advantages.length) }))

describe("loss aggregation: a sequence is one trajectory (all its turns)", () => {
  test("weights per token, analytic: 3 trajectories of 5, 1 and 5 tokens over 6 turns", () => {
    const b = multiTurn()
    const per = (mode: LossAgg) => [...aggregationWeights(b, mode, 10)]
    // seq-mean-token-mean: 1/(trajectories × tokens of its trajectory)
    expect(per("seq-mean-token-mean")).toEqual([1 / 15, 1 / 15, 1 / 3, 1 / 15, 1 / 15, 1 / 15])
    expect(per("seq-mean-token-sum")).toEqual([1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3, 1 / 3])
    expect(per("seq-mean-token-sum-norm")).toEqual(Array(6).fill(1 / 30))
    expect(per("token-mean")).toEqual(Array(6).fill(1 / 11))
    expect(per("seq-sum")).toEqual(Array(6).fill(1))
    // Each trajectory's tokens weigh 1/3 in all under seq-mean-token-mean, whatever its turn count.
    const w = aggregationWeights(b, "seq-mean-token-mean", 10)
    const byTraj = [0, 0, 0]
    b.forEach((it, i) => (byTraj[it.traj!] = byTraj[it.traj!]! + w[i]! * it.advantages.length))
    for (const x of byTraj) expect(x).toBeCloseTo(1 / 3, 12)
  })
  test("a trajectory copied by the minibatch padding counts once per copy (the reference's copied rows)", () => {
    const b = multiTurn()
    const padded = [...b, b[2]!] // traj 1 again: 4 sequences
    expect([...aggregationWeights(padded, "seq-mean-token-mean", 10)]).toEqual([1 / 20, 1 / 20, 1 / 4, 1 / 20, 1 / 20, 1 / 20, 1 / 4])
    expect([...aggregationWeights(padded, "seq-mean-token-sum", 10)]).toEqual(Array(7).fill(1 / 4))
    // A copied two-turn trajectory: both of its turns again, one more sequence of 5 tokens.
    const twice = [...b, b[0]!, b[1]!]
    expect(aggregationWeights(twice, "seq-mean-token-mean", 10)[0]!).toBeCloseTo(1 / 20, 15)
    expect(aggregationWeights(twice, "seq-mean-token-mean", 10)[2]!).toBeCloseTo(1 / 4, 15)
  })
  test("items without a trajectory index are sequences of their own (one per turn)", () => {
    const b = multiTurn().map((it) => turnItem(undefined, [...it.advantages]))
    expect([...aggregationWeights(b, "seq-mean-token-mean", 10)]).toEqual([2, 3, 1, 2, 2, 1].map((L) => 1 / (6 * L)))
  })
  test("the loss is the mean over trajectories of each trajectory's token mean (sum for seq-mean-token-sum), and its gradient matches finite differences", () => {
    const b = multiTurn()
    const meanOf = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length
    // Per trajectory at ratio 1: token losses −A. traj 0: −1 ×5, traj 1: 2 ×1, traj 2: −0.5 ×5.
    const expected: Record<string, number> = {
      "seq-mean-token-mean": meanOf([-1, 2, -0.5]),
      "seq-mean-token-sum": meanOf([-5, 2, -2.5]),
      "token-mean": (-5 + 2 - 2.5) / 11
    }
    for (const [mode, value] of Object.entries(expected)) {
      const L = buildObjective(b, { ...noRegs, lossAgg: mode as LossAgg })
      const out = L(atRatioOne(b))
      expect(out.loss).toBeCloseTo(value, 6)
      const h = 1e-4
      for (let i = 0; i < b.length; i++) {
        for (let t = 0; t < b[i]!.advantages.length; t++) {
          const p = atRatioOne(b),
            m = atRatioOne(b)
          p[i]!.logprobs[t] = h
          m[i]!.logprobs[t] = -h
          const fd = (L(p).loss - L(m).loss) / (2 * h)
          expect(Math.abs(fd - out.grads[i]!.dLogprobs[t]!)).toBeLessThan(1e-5)
        }
      }
    }
  })
  test("defaults: GRPO seq-mean-token-mean, Dr.GRPO seq-mean-token-sum, PPO and DAPO token-mean (the reference's Table 4 script)", () => {
    const b = multiTurn()
    const regs = { entropyCoef: 0, klCoef: 0 }
    const lossWith = (mode: LossAgg) => buildObjective(b, { ...noRegs, lossAgg: mode })(atRatioOne(b)).loss
    const decode = <S extends Schema.Top>(s: S, v: unknown) => Schema.decodeUnknownSync(s as any)(v) as any
    expect(grpo.loss(b, { ...decode(GrpoOptions, {}), ...regs })(atRatioOne(b)).loss).toBeCloseTo(lossWith("seq-mean-token-mean"), 12)
    expect(grpo.loss(b, { ...decode(GrpoOptions, { variant: "dr-grpo" }), ...regs })(atRatioOne(b)).loss).toBeCloseTo(lossWith("seq-mean-token-sum"), 12)
    expect(ppo.loss(b, { ...decode(PpoOptions, {}), ...regs })(atRatioOne(b)).loss).toBeCloseTo(lossWith("token-mean"), 12)
    expect(dapo.loss(b, { ...decode(DapoOptions, {}), ...regs })(atRatioOne(b)).loss).toBeCloseTo(lossWith("token-mean"), 12)
    // The trainer's lossAgg overrides the algorithm's (the s10 preset pins token-mean this way).
    expect(grpo.loss(b, { ...decode(GrpoOptions, {}), ...regs, lossAgg: "token-mean" })(atRatioOne(b)).loss).toBeCloseTo(lossWith("token-mean"), 12)
    expect(lossWith("seq-mean-token-mean")).not.toBeCloseTo(lossWith("token-mean"), 3)
  })
})

describe("a group of one trajectory (a trajectory-level filter kept one)", () => {
  test("gets mean 0 and std 1 as the reference: the advantage is R (over 1 + ε)", () => {
    const t = [traj(0, 1), traj(1, 0.9), traj(2, -0.1), traj(3, 0), traj(3, 1)]
    const a = grpoTrajectoryAdvantages(t, "grpo", 1e-6)
    expect(a[0]!).toBeCloseTo(1 / (1 + 1e-6), 12)
    expect(a[1]!).toBeCloseTo(0.9 / (1 + 1e-6), 12)
    expect(a[2]!).toBeCloseTo(-0.1 / (1 + 1e-6), 12)
    // A group of two is normalised as before: ±(0.5)/(std 0.7071 + ε).
    expect(a[4]!).toBeCloseTo(0.5 / (Math.SQRT1_2 + 1e-6), 9)
    const d = grpoTrajectoryAdvantages(t, "dr-grpo", 1e-6)
    expect([d[0]!, d[1]!, d[2]!].map((x) => +x.toFixed(9))).toEqual([1, 0.9, -0.1])
    // DAPO's advantages follow the same rule (on its shaped returns; no overlong turn here).
    const o = Schema.decodeUnknownSync(DapoOptions)({ maxLength: 100 })
    expect(dapo.advantages(t, o)[0]!.advantages[0]!).toBeCloseTo(1 / (1 + 1e-6), 6)
  })
})

describe("PPO reward placement", () => {
  // A trajectory of three turns (2, 1 and 2 tokens): a format penalty in turn 1, success in turn 3.
  const t = { group: 0, ret: 0.9, turnRewards: [-0.1, 0, 1], turnLengths: [2, 1, 2], oldLogprobs: new Float32Array(5) }
  const round = (a: Float32Array) => [...a].map((x) => +x.toFixed(6))
  test("final-token (the reference's default): the return on the trajectory's last token", () => {
    expect(round(finalTokenRewards(0.9, [2, 1, 2]))).toEqual([0, 0, 0, 0, 0.9])
    const o = Schema.decodeUnknownSync(PpoOptions)({ whiten: false })
    expect(o.rewardPlacement).toBe("final-token")
    // γ = λ = 1, V = 0: every token's advantage is R.
    expect(round(ppo.advantages([t], o)[0]!.advantages)).toEqual([0.9, 0.9, 0.9, 0.9, 0.9])
    // γ = 0.5, V = 0: A_t = 0.5^(T−1−t) R.
    const g = Schema.decodeUnknownSync(PpoOptions)({ whiten: false, gamma: 0.5 })
    expect(round(ppo.advantages([t], g)[0]!.advantages)).toEqual([0.05625, 0.1125, 0.225, 0.45, 0.9])
  })
  test("per-turn: each turn's reward on that turn's last token", () => {
    const o = Schema.decodeUnknownSync(PpoOptions)({ whiten: false, rewardPlacement: "per-turn" })
    // rewards [0, −0.1, 0, 0, 1]; γ = λ = 1, V = 0: suffix sums.
    expect(round(ppo.advantages([t], o)[0]!.advantages)).toEqual([0.9, 0.9, 1, 1, 1])
    const g = Schema.decodeUnknownSync(PpoOptions)({ whiten: false, gamma: 0.5, rewardPlacement: "per-turn" })
    // A_4 = 1, A_3 = 0.5, A_2 = 0.25, A_1 = −0.1 + 0.125 = 0.025, A_0 = 0.0125
    expect(round(ppo.advantages([t], g)[0]!.advantages)).toEqual([0.0125, 0.025, 0.25, 0.5, 1])
  })
  test("an unknown placement is rejected by the options schema", () => {
    expect(() => Schema.decodeUnknownSync(PpoOptions)({ rewardPlacement: "per-token" })).toThrow()
  })
})
