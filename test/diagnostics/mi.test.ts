import { describe, expect, test } from "bun:test"
import { classifyRegime, type MiEma, type MiInput, miMetrics, miProxies } from "../../core/diagnostics/mi.ts"

/** R×N input from a row function; sum = tokenMean × len (len tokens per row). */
const matrix = (R: number, N: number, f: (r: number, j: number) => number, column: (r: number) => number, len = 10, signature?: string[]): MiInput => {
  const tokenMean = new Float64Array(R * N)
  const sum = new Float64Array(R * N)
  for (let r = 0; r < R; r++) {
    for (let j = 0; j < N; j++) {
      tokenMean[r * N + j] = f(r, j)
      sum[r * N + j] = f(r, j) * len
    }
  }
  return { tokenMean, sum, rows: R, cols: N, column: Int32Array.from({ length: R }, (_, r) => column(r)), ...(signature ? { signature } : {}) }
}

describe("MI proxies", () => {
  test("perfectly collapsed L: Retrieval-Acc is exactly chance, MI-Est is 0", () => {
    const p = miProxies(
      matrix(
        16,
        8,
        () => -2.5,
        (r) => r % 8
      )
    )
    expect(p.retrievalAcc).toBeCloseTo(1 / 8, 14)
    expect(p.chance).toBe(1 / 8)
    expect(p.recallAt2).toBeCloseTo(2 / 8, 14)
    expect(p.recallAt4).toBeCloseTo(4 / 8, 14)
    expect(p.recallAt8).toBeCloseTo(1, 14)
    expect(p.miEst).toBeCloseTo(0, 12)
    expect(p.miSeqEst).toBeCloseTo(0, 12)
    expect(p.hZGivenX).toBeCloseTo(2.5, 12)
    expect(p.hZ).toBeCloseTo(2.5, 12)
    expect(p.regime).toBe("template-collapse")
  })

  test("perfectly separable L (off-diagonal −1e4): MI-Est reaches log N, retrieval 1", () => {
    const N = 8
    const p = miProxies(
      matrix(
        24,
        N,
        (r, j) => (j === r % N ? -0.01 : -1e4),
        (r) => r % N
      )
    )
    expect(p.retrievalAcc).toBe(1)
    expect(p.recallAt2).toBe(1)
    expect(p.miEst).toBeCloseTo(Math.log(N), 9)
    expect(p.miSeqEst).toBeCloseTo(Math.log(N), 9)
    expect(p.miUpperBound).toBeCloseTo(Math.log(N), 14)
    expect(p.hZGivenX).toBeCloseTo(0.01, 12)
    expect(p.hZ).toBeCloseTo(0.01 + Math.log(N), 9)
    expect(p.regime).toBe("compressed")
    for (const v of Object.values(p)) if (typeof v === "number") expect(Number.isFinite(v)).toBe(true)
  })

  test("hand-computed 2×2 matrix", () => {
    // rows: [−1, −3] own 0, [−2, −2.5] own 1
    const tm = Float64Array.from([-1, -3, -2, -2.5])
    const sum = Float64Array.from([-4, -12, -10, -12])
    const p = miProxies({ tokenMean: tm, sum, rows: 2, cols: 2, column: Int32Array.from([0, 1]) })
    const lme = (a: number, b: number) => Math.log((Math.exp(a) + Math.exp(b)) / 2)
    const m0 = lme(-1, -3),
      m1 = lme(-2, -2.5)
    expect(p.miEst).toBeCloseTo((-1 - m0 + (-2.5 - m1)) / 2, 12)
    expect(p.miSeqEst).toBeCloseTo((-4 - lme(-4, -12) + (-12 - lme(-10, -12))) / 2, 12)
    expect(p.retrievalAcc).toBe(0.5) // row 1 prefers column 0
    expect(p.recallAt2).toBe(1)
    expect(p.hZGivenX).toBeCloseTo((1 + 2.5) / 2, 12)
    expect(p.hZ).toBeCloseTo(-(m0 + m1) / 2, 12)
    const mean = (m0 + m1) / 2
    const sigma = Math.sqrt(((m0 - mean) ** 2 + (m1 - mean) ** 2) / 2)
    expect(p.marginalStd).toBeCloseTo(sigma, 12)
    expect(p.miZScore).toBeCloseTo(p.miEst / (sigma + 1e-3), 10)
  })

  test("identical prompts (same signature) count as correct retrieval", () => {
    // columns 0 and 1 are the same prompt; row 0 (own 0) scores column 1 highest
    const tm = Float64Array.from([-2, -1, -5, -5, -5, -1])
    const input = { tokenMean: tm, sum: tm, rows: 2, cols: 3, column: Int32Array.from([0, 2]) }
    expect(miProxies(input).retrievalAcc).toBe(0.5)
    expect(miProxies({ ...input, signature: ["a", "a", "b"] }).retrievalAcc).toBe(1)
  })

  test("duplicate signatures: chance is mean c/N as the reference's; a collapsed L scores exactly chance", () => {
    // N = 4 columns, columns 0 and 1 the same prompt: rows of prompt "a" have c = 2, the others c = 1.
    const sig = ["a", "a", "b", "c"]
    const p = miProxies(
      matrix(
        4,
        4,
        () => -2,
        (r) => r,
        10,
        sig
      )
    )
    expect(p.chance).toBeCloseTo((2 / 4 + 2 / 4 + 1 / 4 + 1 / 4) / 4, 14)
    expect(p.retrievalAcc).toBeCloseTo(p.chance, 14)
    // chance@2 = 1 − C(4 − c, 2)/C(4, 2): c = 2 → 5/6, c = 1 → 1/2; the reference's min(1, 2c/N) would say 1 and 1/2.
    expect(p.chanceAt2).toBeCloseTo((5 / 6 + 5 / 6 + 1 / 2 + 1 / 2) / 4, 14)
    expect(p.recallAt2).toBeCloseTo(p.chanceAt2, 14)
    expect(p.chanceAt4).toBe(1)
  })

  test("ties: ours breaks them uniformly, the reference's argmax gives them to the lowest column", () => {
    // Row 0 (own 1) ties columns 0 and 1; row 1 (own 0) ties columns 0 and 1; row 2 (own 2) is clear.
    const tm = Float64Array.from([-1, -1, -5, -1, -1, -5, -5, -5, -1])
    const p = miProxies({ tokenMean: tm, sum: tm, rows: 3, cols: 3, column: Int32Array.from([1, 0, 2]) })
    expect(p.retrievalAcc).toBeCloseTo((0.5 + 0.5 + 1) / 3, 14)
    expect(p.retrievalAccArgmax).toBeCloseTo((0 + 1 + 1) / 3, 14)
    // Two own columns tied with one other: P(top 1 is own) = 1 − C(1,1)/C(3,1) = 2/3.
    const two = Float64Array.from([-1, -1, -1])
    const q = miProxies({ tokenMean: two, sum: two, rows: 1, cols: 3, column: Int32Array.from([0]), signature: ["a", "a", "b"] })
    expect(q.retrievalAcc).toBeCloseTo(2 / 3, 14)
    expect(q.retrievalAccArgmax).toBe(1)
  })

  test("ties with other prompts get fractional credit (uniform tie-break)", () => {
    const tm = Float64Array.from([-1, -1, -1, -3])
    const p = miProxies({ tokenMean: tm, sum: tm, rows: 1, cols: 4, column: Int32Array.from([0]) })
    expect(p.retrievalAcc).toBeCloseTo(1 / 3, 14)
    expect(p.recallAt2).toBeCloseTo(2 / 3, 14)
    expect(p.recallAt4).toBe(1)
  })

  test("numerically stable with log-probs of −1e4 everywhere", () => {
    const p = miProxies(
      matrix(
        8,
        4,
        (r, j) => -1e4 - (j === r % 4 ? 0 : 1),
        (r) => r % 4,
        1000
      )
    )
    for (const v of Object.values(p)) if (typeof v === "number") expect(Number.isFinite(v)).toBe(true)
    expect(p.retrievalAcc).toBe(1)
    // Own −1e4, others −1e4 − 1: MI-Est = log 4 − log(1 + 3e⁻¹) exactly, unaffected by the offset.
    expect(p.miEst).toBeCloseTo(Math.log(4) - Math.log(1 + 3 * Math.exp(-1)), 9)
  })

  test("the EMA of σ carries across calls (decay 0.9)", () => {
    const a = matrix(
      4,
      2,
      (r, j) => (j === r % 2 ? -1 : -2 - r),
      (r) => r % 2
    )
    const b = matrix(
      4,
      2,
      (r, j) => (j === r % 2 ? -1 : -3 - 3 * r),
      (r) => r % 2
    )
    const ema: MiEma = {}
    const pa = miProxies(a, ema)
    expect(ema.sigma).toBeCloseTo(pa.marginalStd, 14)
    expect(pa.miZScoreEma).toBeCloseTo(pa.miZScore, 14)
    const pb = miProxies(b, ema)
    const expected = 0.9 * pa.marginalStd + 0.1 * pb.marginalStd
    expect(ema.sigma).toBeCloseTo(expected, 14)
    expect(pb.miZScoreEma).toBeCloseTo(pb.miEst / (expected + 1e-3), 12)
    expect(pb.miZScoreEma).not.toBeCloseTo(pb.miZScore, 3)
  })

  test("bad shapes throw RangeError naming the field", () => {
    const good = matrix(
      2,
      2,
      () => -1,
      (r) => r
    )
    expect(() => miProxies({ ...good, column: Int32Array.from([0, 2]) })).toThrow(/column\[1\]/)
    expect(() => miProxies({ ...good, rows: 3 })).toThrow(RangeError)
    expect(() => miProxies({ ...good, signature: ["a"] })).toThrow(/signature/)
  })

  test("miMetrics names every proxy under the prefix", () => {
    const m = miMetrics(
      "mi/first_turn",
      miProxies(
        matrix(
          4,
          2,
          () => -1,
          (r) => r % 2
        )
      )
    )
    expect(m["mi/first_turn/retrieval_acc"]).toBeCloseTo(0.5, 14)
    expect(m["mi/first_turn/mi_est"]).toBeCloseTo(0, 12)
    expect(m["mi/first_turn/regime"]).toBe(1)
    expect(Object.keys(m).every((k) => k.startsWith("mi/first_turn/"))).toBe(true)
    expect(Object.keys(m).length).toBe(17)
    expect(m["mi/first_turn/retrieval_acc_argmax"]).toBe(0.5)
  })

  test("regime: docs/design.md §10's collapse (H(Z|X) 0.18, MI-Seq-Est 2.07 at N = 8, fact accuracy 0.16) is template collapse", () => {
    expect(classifyRegime(0.18, 2.07, 8)).toBe("diverse")
    expect(classifyRegime(0.18, 2.07, 8, undefined, { factAccuracy: 0.16 })).toBe("template-collapse")
    expect(classifyRegime(0.18, 2.07, 8, undefined, { factAccuracy: 0.99 })).toBe("diverse")
    expect(classifyRegime(0.015, 2.07, 8, undefined, { factAccuracy: 0.16 })).toBe("low-entropy-collapse")
    expect(classifyRegime(0.015, 2.07, 8, undefined, { factAccuracy: 0.99 })).toBe("compressed")
    expect(classifyRegime(0.18, 2.07, 8, { hZGivenX: 0.1, miFraction: 0.5, factAccuracy: 0.1 }, { factAccuracy: 0.16 })).toBe("diverse")
    // Through miProxies: a separable matrix with high H(Z|X) and the batch's fact accuracy.
    const sep = matrix(
      16,
      8,
      (r, j) => (j === r % 8 ? -0.18 : -1e4),
      (r) => r % 8
    )
    expect(miProxies(sep).regime).toBe("diverse")
    expect(miProxies(sep, undefined, 0.9, undefined, { factAccuracy: 0.16 }).regime).toBe("template-collapse")
  })
})
