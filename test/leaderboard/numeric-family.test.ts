/**
 * A run's numeric family from its runtime notes (plugins/leaderboard/numeric-family.ts), in step
 * with the tinylm kernels' own table (dispatch.ts), and the reference join's note when a user's
 * runs and the published ones they are paired with come from different families.
 */
import { describe, expect, test } from "bun:test"
import type { RunInput } from "../../plugins/leaderboard/build.ts"
import { FAMILY_RERUN, numericFamilyOf, rerunHint } from "../../plugins/leaderboard/numeric-family.ts"
import { joinReference } from "../../plugins/leaderboard/reference.ts"
import { NUMERIC_FAMILIES, numericFamily } from "../../plugins/tinylm/kernels/dispatch.ts"
import { NATIVE_ISAS } from "../../plugins/tinylm/kernels/native/ffi.ts"

/** A minimal run as the join reads it: config, semantics, runtime notes. */
const run = (seed: number, filter: string, notes: Record<string, string>, runId = `r-${filter}-${seed}-${JSON.stringify(notes).length}`): RunInput =>
  ({
    run: {
      config: {
        runId,
        semantics: 3,
        config: { env: "envs/sokoban-v1", algo: "algorithms/ppo", seed, filter, filterOptions: {}, lr: 4e-4, policyOptions: { kernels: "auto" }, train: {} },
        runtime: { name: "bun", version: "1", notes }
      }
    },
    verified: null
  }) as unknown as RunInput

const AVX2_OLD = { kernels: "tinylm:native", kernelsIsa: "avx2" }
const AVX512_OLD = { kernels: "tinylm:native", kernelsIsa: "avx512" }
const AVX512_NOW = { kernels: "tinylm:native", kernelsIsa: "avx512", numericFamily: "fma8-v1" }
const WASM_NOW = { kernels: "tinylm:wasm", kernelsIsa: "simd128", numericFamily: "f32x4-v1" }

describe("numeric families of runs", () => {
  test("the family note wins; records without it map by backend and build (old avx512 records: avx512-v0)", () => {
    expect(numericFamilyOf(AVX512_NOW)).toBe("fma8-v1")
    expect(numericFamilyOf(AVX2_OLD)).toBe("fma8-v1")
    expect(numericFamilyOf(AVX512_OLD)).toBe("avx512-v0")
    expect(numericFamilyOf({ kernels: "tinylm:native", kernelsIsa: "sse2" })).toBe("f32x4-v1")
    expect(numericFamilyOf({ kernels: "tinylm:wasm", kernelsIsa: "simd128" })).toBe("f32x4-v1")
    expect(numericFamilyOf({ kernels: "tinylm:js", kernelsIsa: "f64" })).toBe("js-f64")
    expect(numericFamilyOf({ scorer: "cpu" })).toBeUndefined()
    expect(numericFamilyOf(undefined)).toBeUndefined()
  })

  test("in step with the tinylm kernels: every family has a way to re-run it; today's builds map as dispatch.ts does", () => {
    expect(Object.keys(FAMILY_RERUN).sort()).toEqual(Object.keys(NUMERIC_FAMILIES).sort())
    for (const isa of NATIVE_ISAS.filter((i) => i !== "avx512")) {
      // a record of today's build without the note (only avx512 changed family when the note came)
      expect(numericFamilyOf({ kernels: "tinylm:native", kernelsIsa: isa })).toBe(isa === "avx512v0" ? undefined : numericFamily("native", isa))
    }
    expect(rerunHint("fma8-v1")).toContain("RAGEN_NATIVE_ISA=avx2")
    expect(rerunHint("no-such-family")).toBe("")
  })
})

describe("the reference join names a family difference", () => {
  const published = [run(1, "filters/none", AVX2_OLD, "pub-none-1"), run(2, "filters/none", AVX2_OLD, "pub-none-2")]

  test("the same family (an AVX-512 run today beside AVX2 records): no note", () => {
    const yours = [run(1, "filters/none", AVX512_NOW), run(1, "filters/top-p", AVX512_NOW)]
    const j = joinReference(yours, published, "quick")
    expect(j.notes[0]).toBe("reference quick: 1 of 2 run(s) joined beside yours, 1 you also have (yours kept)")
    expect(j.notes.join("\n")).not.toContain("numeric family")
  })

  test("another family (wasm beside AVX2 records, or the AVX-512 build before the families): paired as independent draws, with the way to re-run", () => {
    const yours = [run(1, "filters/none", WASM_NOW), run(1, "filters/top-p", WASM_NOW)]
    const j = joinReference(yours, published, "quick")
    expect(j.notes[1]).toBe(
      "reference quick: published run(s) 2 of numeric family fma8-v1, yours f32x4-v1: paired by seed, they are independent draws, not bit-for-bit twins; re-run with RAGEN_KERNELS=native RAGEN_NATIVE_ISA=avx2 (an x86-64 CPU with AVX2 and FMA; avx512 gives the same bits) to reproduce them bit for bit"
    )
    const old = joinReference([run(1, "filters/none", AVX512_NOW)], [run(1, "filters/none", AVX512_OLD, "old-1")], "standard-v1")
    expect(old.notes[1]).toContain("published run(s) 1 of numeric family avx512-v0, yours fma8-v1")
    expect(old.notes[1]).toContain("RAGEN_NATIVE_ISA=avx512v0")
  })
})
