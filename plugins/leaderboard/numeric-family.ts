/**
 * Which numeric family made a run (docs/kernels.md "Numeric families"), from its runtime notes:
 * the `numericFamily` note where the run has one (tinylm notes it since the families exist), else
 * derived from the older notes `kernels` and `kernelsIsa`. Runs of one family and seed give the
 * same bits on any machine that runs the family; runs of different families are independent
 * draws. The table mirrors plugins/tinylm/kernels/dispatch.ts (NUMERIC_FAMILIES; a test keeps
 * them in step), with one difference: a record with `kernelsIsa: avx512` and no family note was
 * made by the AVX-512 build before the families (avx512-v0), not by today's avx512 (fma8-v1).
 */

type Notes = Readonly<Record<string, string>> | undefined

/** The family of a record made before the `numericFamily` note, by its backend and build. */
const LEGACY: Readonly<Record<string, string>> = {
  "native avx512": "avx512-v0",
  "native avx2": "fma8-v1",
  "native sse2": "f32x4-v1",
  "wasm simd128": "f32x4-v1",
  "js f64": "js-f64"
}

/** The run's numeric family, or undefined when its notes name no tinylm kernels (another policy). */
export const numericFamilyOf = (notes: Notes): string | undefined => {
  if (notes?.numericFamily !== undefined) return notes.numericFamily
  const kernels = notes?.kernels?.replace(/^tinylm:/, "")
  if (kernels === undefined) return undefined
  return LEGACY[`${kernels} ${notes?.kernelsIsa ?? ""}`]
}

/** The environment that runs a family (a command prefix), and where it runs. */
export const FAMILY_RERUN: Readonly<Record<string, { readonly env: string; readonly where: string }>> = {
  "fma8-v1": { env: "RAGEN_KERNELS=native RAGEN_NATIVE_ISA=avx2", where: "an x86-64 CPU with AVX2 and FMA; avx512 gives the same bits" },
  "f32x4-v1": { env: "RAGEN_KERNELS=wasm", where: "any machine; native sse2 gives the same bits" },
  "js-f64": { env: "RAGEN_KERNELS=js", where: "the same JS engine" },
  "avx512-v0": { env: "RAGEN_KERNELS=native RAGEN_NATIVE_ISA=avx512v0", where: "an x86-64 CPU with AVX-512F" }
}

/** "re-run with … to reproduce them bit for bit", or "" for a family with no known way to run it. */
export const rerunHint = (family: string): string => {
  const r = FAMILY_RERUN[family]
  return r ? `re-run with ${r.env} (${r.where}) to reproduce them bit for bit` : ""
}
