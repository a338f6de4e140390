/*
 * Shared helpers of the WASM SIMD kernels: f32x4 load/store/multiply-add and a vector exp.
 * No libc: everything here is wasm instructions.
 */
#ifndef TINYLM_SIMD_H
#define TINYLM_SIMD_H
#include <wasm_simd128.h>

#define LD(p) wasm_v128_load(p)
#define ST(p, v) wasm_v128_store(p, v)
#define SPLAT(x) wasm_f32x4_splat(x)
#define MADD(acc, a, b) acc = wasm_f32x4_add(acc, wasm_f32x4_mul(a, b))

/* fixed order (l0 + l1) + (l2 + l3) */
static inline float hsum(v128_t v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

/*
 * exp(x), 4 lanes. Cephes expf (S. Moshier, cephes/single/expf.c): x = n ln2 + r with ln2 split in
 * two (C1 + C2) for an exact reduction, degree-5 polynomial for e^r on |r| ≤ ln2/2, times 2^n built
 * in the exponent bits. Input clamped to [-87.3, 88.3] so 2^n stays a normal float (exp of very
 * negative x gives ~1e-38, not 0: the callers only use it after subtracting a max). Rel. error ~2e-7.
 */
static inline v128_t vexp(v128_t x) {
  x = wasm_f32x4_min(wasm_f32x4_max(x, SPLAT(-87.3f)), SPLAT(88.3f));
  const v128_t n = wasm_f32x4_nearest(wasm_f32x4_mul(x, SPLAT(1.44269504088896341f)));
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, SPLAT(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, SPLAT(-2.12194440e-4f)));
  v128_t p = SPLAT(1.9875691500e-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), SPLAT(1.3981999507e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), SPLAT(8.3334519073e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), SPLAT(4.1665795894e-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), SPLAT(1.6666665459e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), SPLAT(5.0000001201e-1f));
  p = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(p, r), r), r), SPLAT(1.0f));
  const v128_t e = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
  return wasm_f32x4_mul(p, e);
}

/* one lane of vexp, bit-identical to the vector lanes (for loop tails) */
static inline float sexp(float x) { return wasm_f32x4_extract_lane(vexp(SPLAT(x)), 0); }

#endif
