import { describe, expect, test } from "bun:test"
import { normalQuantile, seedsForPower } from "../../plugins/leaderboard/statistics/power.ts"

describe("seeds needed for a 5-point paired difference at 80% power", () => {
  test("normal quantiles match tabulated values", () => {
    // Standard normal table values (e.g. Abramowitz & Stegun 26.2): z_.975, z_.80, z_.99, z_.5, z_.001.
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 8)
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 8)
    expect(normalQuantile(0.99)).toBeCloseTo(2.3263478740408408, 8)
    expect(normalQuantile(0.5)).toBe(0)
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 7)
    expect(() => normalQuantile(1)).toThrow("must be in (0, 1)")
  })

  test("n = ceil(((z_.975 + z_.80)·sd/δ)²) by hand", () => {
    // z = 1.959964 + 0.841621 = 2.801585.
    // sd 0.10: (2.801585·0.10/0.05)² = 5.603170² = 31.3955 → 32.
    expect(seedsForPower(0.1)).toBe(32)
    // sd 0.05: 2.801585² = 7.8489 → 8.
    expect(seedsForPower(0.05)).toBe(8)
    // sd 0.20: (2.801585·4)² = 11.20634² = 125.582 → 126.
    expect(seedsForPower(0.2)).toBe(126)
    // δ 0.10 with sd 0.10: 7.8489 → 8.
    expect(seedsForPower(0.1, { delta: 0.1 })).toBe(8)
    // 90% power: z_.90 = 1.281552; (3.241516·2)² = 42.03 → 43.
    expect(seedsForPower(0.1, { power: 0.9 })).toBe(43)
  })

  test("degenerate: unknown sd → null; zero or tiny sd → the minimum of 2 pairs; NaN and negative rejected", () => {
    expect(seedsForPower(null)).toBeNull()
    expect(seedsForPower(0)).toBe(2)
    expect(seedsForPower(0.001)).toBe(2)
    expect(() => seedsForPower(Number.NaN)).toThrow("not a finite number")
    expect(() => seedsForPower(-0.1)).toThrow("sd must be >= 0")
    expect(() => seedsForPower(0.1, { delta: 0 })).toThrow("delta must be")
  })
})
