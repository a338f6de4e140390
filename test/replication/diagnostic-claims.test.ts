import { describe, expect, test } from "bun:test"
import { c2MiPredictsSuccess, c3RetrievalFallsEntropyHolds, c7TaskGradientGrowsWithRv, factSeesCollapseEarlier } from "../../plugins/leaderboard/replication/diagnostic-claims.ts"
import { type Fake, jitter, NONE, numbersIn, PAPER_TOP_P, rising, views } from "./fixtures.ts"

const MI = "mi/first_turn/mi_est"
const RET = "mi/first_turn/retrieval_acc"
const ENT = "train/entropy"

/** A curve logged from step 10 on (MI diagnostics start after step 0), linear from a to b. */
const diag = (a: number, b: number): Array<number | null> => [null, a, a + (b - a) / 3, a + (2 * (b - a)) / 3, b]

describe("C2: MI proxies predict final success better than entropy (Fig. 8)", () => {
  /** 12 runs of one setting; run i's final success rises with i; `good` proxy orders like success, `bad` is shuffled. */
  const runs = (mi: "orders" | "shuffled", entropy: "orders" | "shuffled", count = 12): Fake[] => {
    const shuffled = [5, 11, 0, 8, 3, 9, 1, 6, 10, 2, 7, 4]
    return Array.from({ length: count }, (_, i) => {
      const early = (how: "orders" | "shuffled") => (how === "orders" ? i : shuffled[i]!)
      return {
        ...(i % 2 ? NONE : PAPER_TOP_P),
        seed: Math.floor(i / 2) + 1,
        success: rising(0.2 + 0.05 * i),
        curves: { [MI]: diag(0.5 + 0.1 * early(mi), 1), [RET]: diag(0.3 + 0.05 * early(mi), 1), [ENT]: diag(1 + 0.1 * early(entropy), 1) }
      }
    })
  }
  test("MI ranks the runs as their success, entropy does not: reproduced; ρ(MI-Est) = 1", () => {
    const r = c2MiPredictsSuccess(views(runs("orders", "shuffled")))
    expect(r.verdict.kind).toBe("reproduced")
    expect(numbersIn(r.numbers[0]!)[0]).toBe(1)
    expect(r.n).toBe("12 runs over 1 setting")
  })
  test("entropy ranks them, MI does not: not reproduced", () => {
    expect(c2MiPredictsSuccess(views(runs("shuffled", "orders"))).verdict.kind).toBe("not reproduced")
  })
  test("3 runs: inconclusive at n = 3; 2 runs per setting: not run", () => {
    expect(c2MiPredictsSuccess(views(runs("orders", "shuffled", 3))).verdict).toMatchObject({ kind: "inconclusive", n: 3 })
    expect(c2MiPredictsSuccess(views(runs("orders", "shuffled", 2))).verdict.kind).toBe("not run")
  })
})

// Six runs: the exact sign-flip test's smallest p, 2/2^6, is below α = 0.05 (five could never get there).
describe("C3: without filtering, retrieval falls while entropy holds or rises (Fig. 5)", () => {
  const runs = (retrieval: [number, number], entropy: [number, number], seeds = [1, 2, 3, 4, 5, 6], filter = NONE): Fake[] =>
    seeds.map((seed) => ({
      ...filter,
      seed,
      success: rising(0.5),
      curves: {
        [RET]: diag(retrieval[0] + jitter(seed, 1, 0.02), retrieval[1] + jitter(seed, 2, 0.02)),
        [MI]: diag(1.5, 1.2),
        [ENT]: diag(entropy[0] + jitter(seed, 3, 0.02), entropy[1] + jitter(seed, 4, 0.02))
      }
    }))
  test("retrieval 1.0 → 0.7 while entropy 1.0 → 1.3: reproduced, Δ retrieval ≈ −0.3", () => {
    const r = c3RetrievalFallsEntropyHolds(views(runs([1, 0.7], [1, 1.3])))
    expect(r.verdict.kind).toBe("reproduced")
    expect(numbersIn(r.numbers[0]!)[0]!).toBeCloseTo(-0.3, 1)
    // Entropy flat (its interval across 0) still counts as "holds".
    expect(c3RetrievalFallsEntropyHolds(views(runs([1, 0.7], [1, 1]))).verdict.kind).toBe("reproduced")
  })
  test("retrieval rises: not reproduced; retrieval falls with entropy falling too: not reproduced", () => {
    expect(c3RetrievalFallsEntropyHolds(views(runs([0.7, 1], [1, 1.3]))).verdict.kind).toBe("not reproduced")
    expect(c3RetrievalFallsEntropyHolds(views(runs([1, 0.7], [1.3, 0.8]))).verdict.kind).toBe("not reproduced")
  })
  test("only settings where no filter learns or collapses are tested; the others are shown and left out; runs at lr ≥ 1e-3 are shown apart", () => {
    // Seven seeds per tested setting: Holm over 2 needs 2/2^7 ≤ 0.05/2.
    const SEVEN = [1, 2, 3, 4, 5, 6, 7]
    const learns = runs([1, 0.7], [1, 1.3], SEVEN)
    // Success falls from step 0 on every seed (its area below step 0, p = 2/2^6): no filter does not learn; retrieval rises there.
    const idle = runs([0.7, 1], [1, 1.3], [1, 2, 3, 4, 5, 6]).map((f) => ({ ...f, env: "envs/countdown-v1", success: [0.6, 0.55, 0.5, 0.45, 0.4] }))
    // At lr 1e-3, success rises then ends 40 points below its peak: a collapse (statistics/collapse.ts); tested.
    const collapses = runs([1, 0.6], [1, 1.1], SEVEN).map((f) => ({ ...f, env: "envs/frozenlake-v1", lr: 1e-3, success: [0.5, 0.8, 0.6, 0.4, 0.3] }))
    const r = c3RetrievalFallsEntropyHolds(views([...learns, ...idle, ...collapses]))
    expect(r.verdict.kind).toBe("reproduced")
    expect(r.n).toBe("14 runs")
    expect(r.numbers.find((l) => l.startsWith("at lr ≥ 0.001 (7 runs): Δ Retrieval-Acc −0.39"))).toBeDefined()
    expect(r.numbers).toContain("6 runs in 1 setting where no filter neither learns nor collapses left out")
    const text = r.details.join("\n")
    expect(text).toContain("does not learn (0 of 6 runs collapse): left out")
    expect(text).toContain("collapses (7 of 7 runs collapse)")
    // Without the setting that does not learn being left out, retrieval rising there would contradict the claim.
    expect(c3RetrievalFallsEntropyHolds(views(idle)).verdict.kind).toBe("not run")
  })
  test("two runs: inconclusive at n = 2; only top-p runs: not run", () => {
    expect(c3RetrievalFallsEntropyHolds(views(runs([1, 0.7], [1, 1.3], [1, 2]))).verdict).toMatchObject({ kind: "inconclusive", n: 2 })
    expect(c3RetrievalFallsEntropyHolds(views(runs([1, 0.7], [1, 1.3], [1, 2, 3], PAPER_TOP_P))).verdict.kind).toBe("not run")
  })
})

describe("C7: the task gradient grows with the RV bucket, the regularizer's stays flat (Fig. 3)", () => {
  const runs = (task: (k: number) => number, seeds = [1, 2, 3, 4, 5, 6], every = 10): Fake[] =>
    seeds.map((seed) => {
      const curves: Record<string, Array<number | null>> = {}
      for (let k = 1; k <= 6; k++) {
        curves[`grad/task_q${k}`] = diag(task(k) + jitter(seed, k, 0.01), task(k))
        // Flat with noise: the regularizer's norm does not follow the bucket.
        curves[`grad/entropy_q${k}`] = diag(0.05 + jitter(seed, k + 20, 0.01), 0.05 + jitter(seed, k + 30, 0.01))
      }
      return { ...NONE, seed, train: { gradDecompEvery: every }, success: rising(0.5), curves }
    })
  test("task norm rising with the bucket, entropy flat: reproduced, ρ(task) = 1", () => {
    const r = c7TaskGradientGrowsWithRv(views(runs((k) => 0.1 * k)))
    expect(r.verdict.kind).toBe("reproduced")
    expect(numbersIn(r.numbers[0]!)[0]).toBe(1)
  })
  test("task norm falling with the bucket: not reproduced", () => {
    expect(c7TaskGradientGrowsWithRv(views(runs((k) => 1 - 0.1 * k))).verdict.kind).toBe("not reproduced")
  })
  test("two runs: inconclusive at n = 2; gradient decomposition off: not run", () => {
    expect(c7TaskGradientGrowsWithRv(views(runs((k) => 0.1 * k, [1, 2]))).verdict).toMatchObject({ kind: "inconclusive", n: 2 })
    expect(c7TaskGradientGrowsWithRv(views(runs((k) => 0.1 * k, [1, 2, 3], 0))).verdict.kind).toBe("not run")
  })
})

describe("F1: fact accuracy sees the collapse earlier than Retrieval-Acc", () => {
  const FACT = "val/fact_accuracy@0.5"
  /** Fact accuracy falls (by 30%) at step factAt, retrieval at retAt (null: never). */
  /** Success rises from 0.5 to 0.8 and ends 40 points below: a collapse (statistics/collapse.ts). */
  const COLLAPSE = [0.5, 0.8, 0.6, 0.4, 0.3]
  const runs = (factAt: number | null, retAt: number | null, seeds = [1, 2, 3, 4, 5, 6], success = COLLAPSE): Fake[] =>
    seeds.map((seed) => {
      const curve = (at: number | null, base: number) => [0, 10, 20, 30, 40].map((s) => (s === 0 ? null : at !== null && s >= at ? base * 0.7 : base))
      return { ...NONE, seed, success, curves: { [FACT]: [0.99, ...curve(factAt, 0.99).slice(1)], [RET]: curve(retAt, 1) } }
    })
  test("fact accuracy falls at step 20, retrieval at 40: reproduced, difference 20 steps", () => {
    const r = factSeesCollapseEarlier(views(runs(20, 40)))
    expect(r.verdict.kind).toBe("reproduced")
    expect(r.numbers[0]).toStartWith("success collapses:")
    expect(numbersIn(r.numbers[0]!)[0]).toBe(20)
    // Retrieval never falls: censored one evaluation after the last (50), still "fact first".
    expect(factSeesCollapseEarlier(views(runs(20, null))).verdict.kind).toBe("reproduced")
  })
  test("split by success: the verdict reads the runs whose success collapses; runs whose success holds are shown beside, never decide it", () => {
    // Success holds (rises to the end) in six runs where fact accuracy is 20 steps first; in six that collapse, retrieval is first.
    const holds = runs(20, 40, [1, 2, 3, 4, 5, 6], rising(0.5))
    const collapse = runs(40, 20, [7, 8, 9, 10, 11, 12])
    const r = factSeesCollapseEarlier(views([...holds, ...collapse]))
    expect(r.verdict.kind).toBe("not reproduced")
    expect(r.n).toStartWith("6 runs whose success collapses (6 after a rise, 0 blow-ups, 0 from the start), 6 where it holds")
    expect(numbersIn(r.numbers[0]!)[0]).toBe(-20)
    expect(r.numbers[1]).toStartWith("success holds: +20.0")
    // A fall from step 0 (never above it) and a blow-up count as collapses of success too, told apart in the count.
    const falls = runs(20, 40, [1, 2, 3], [0.8, 0.75, 0.6, 0.5, 0.4])
    const blowUp = runs(20, 40, [4, 5, 6], [0.8, 0.3, 0.3, 0.2, 0.2])
    expect(factSeesCollapseEarlier(views([...falls, ...blowUp])).n).toStartWith("6 runs whose success collapses (0 after a rise, 3 blow-ups, 3 from the start)")
    // Only runs that hold: nothing to see, inconclusive with the reason.
    const none = factSeesCollapseEarlier(views(holds))
    expect(none.verdict).toMatchObject({ kind: "inconclusive", n: 0 })
    expect(none.verdict.why).toContain("no run's success collapses")
  })
  test("retrieval falls first: not reproduced", () => {
    expect(factSeesCollapseEarlier(views(runs(40, 20))).verdict.kind).toBe("not reproduced")
  })
  test("two runs: inconclusive at n = 2; neither falls: inconclusive with no runs; no no-filter runs: not run", () => {
    expect(factSeesCollapseEarlier(views(runs(20, 40, [1, 2]))).verdict).toMatchObject({ kind: "inconclusive", n: 2 })
    expect(factSeesCollapseEarlier(views(runs(null, null))).verdict).toMatchObject({ kind: "inconclusive", n: 0 })
    expect(factSeesCollapseEarlier(views(runs(20, 40).map((f) => ({ ...f, ...PAPER_TOP_P })))).verdict.kind).toBe("not run")
  })
})
