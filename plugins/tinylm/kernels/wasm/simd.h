/*
 * The portable SIMD layer under the C kernels: one source, two targets.
 *   - WASM (build.ts, --target=wasm32 -msimd128): vf is v128_t, VL = 4, and every macro expands to
 *     the wasm_f32x4 intrinsic the kernels were first written with, so the module's bytes (and
 *     numbers) do not depend on this layer.
 *   - native x86-64 (../native/build.ts): vf is a clang vector of VL floats (4 SSE2, 8 AVX2,
 *     16 AVX-512, set by -DVL with the matching -m flags); MADD and every a*b+c expression are
 *     contracted to fused multiply-adds where the target has them (-ffp-contract=on).
 * Kernels use only: vf, VL, LD/ST (unaligned), SPLAT, VADD/VSUB/VMUL/VDIV/VMIN/VMAX, MADD, LANE0,
 * hsum/hmax (fixed reduction order), vexp/sexp, EXPORT(name); and for work that is elementwise
 * across outputs (no sum along a vector), the wide vector vw of WL lanes with LDW/STW/SPLATW.
 * No libc either way.
 *
 * One numeric family per FMA width (docs/kernels.md "Numeric families"): VL is the width of every
 * sum along a vector (dot products, row sums, softmax and log-sum-exp sums) and fixes its order:
 * VL partial sums, folded by hsum's tree. The x86-64 FMA builds (AVX2 and AVX-512) both take VL = 8,
 * so they add every sum in the same order and compute the same bits; AVX-512 uses its 16 lanes
 * (WL = 16) only where lanes are independent outputs (the matmul tiles), which cannot change a
 * result. WL = VL everywhere else (wasm, SSE2, AVX2: vw is vf).
 */
#ifndef TINYLM_SIMD_H
#define TINYLM_SIMD_H

#ifdef __wasm__
#include <wasm_simd128.h>

typedef v128_t vf;
#define VL 4
#define LD(p) wasm_v128_load(p)
#define ST(p, v) wasm_v128_store(p, v)
#define SPLAT(x) wasm_f32x4_splat(x)
#define VADD(a, b) wasm_f32x4_add(a, b)
#define VSUB(a, b) wasm_f32x4_sub(a, b)
#define VMUL(a, b) wasm_f32x4_mul(a, b)
#define VDIV(a, b) wasm_f32x4_div(a, b)
#define VMIN(a, b) wasm_f32x4_min(a, b)
#define VMAX(a, b) wasm_f32x4_max(a, b)
#define LANE0(v) wasm_f32x4_extract_lane(v, 0)
/* round to nearest (even) and 2^n for integral n in range (vexp) */
#define VROUND(x) wasm_f32x4_nearest(x)
#define VEXP2I(n) wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23)
/* a kernel the module exports under its own name */
#define EXPORT(name) __attribute__((export_name(#name)))
/* see the native definition; wasm's rounding already lands on ±1 there */
#define VSAT1(t, x, c) (t)

/* the wide vector is the vector */
typedef v128_t vw;
#define WL 4
#define LDW(p) LD(p)
#define STW(p, v) ST(p, v)
#define SPLATW(x) SPLAT(x)

/* fixed order (l0 + l1) + (l2 + l3) */
static inline float hsum(vf v) {
  return (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
         (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
}

static inline float hmax(vf v) {
  float max = wasm_f32x4_extract_lane(v, 0);
  for (int k = 1; k < 4; k++) {
    const float x = k == 1 ? wasm_f32x4_extract_lane(v, 1) : k == 2 ? wasm_f32x4_extract_lane(v, 2) : wasm_f32x4_extract_lane(v, 3);
    if (x > max) max = x;
  }
  return max;
}

/* four sums at once, each in hsum's order: lane k of the result is hsum of the k-th argument */
typedef v128_t vf4;
#define ST4(p, v) wasm_v128_store(p, v)
#define LANE4(v, l) ((l) == 0 ? wasm_f32x4_extract_lane(v, 0) : (l) == 1 ? wasm_f32x4_extract_lane(v, 1) : wasm_f32x4_extract_lane(v, 2))
static inline vf4 hsum4x(vf a, vf b, vf c, vf d) {
  const vf p = wasm_f32x4_add(wasm_i32x4_shuffle(a, b, 0, 2, 4, 6), wasm_i32x4_shuffle(a, b, 1, 3, 5, 7));
  const vf q = wasm_f32x4_add(wasm_i32x4_shuffle(c, d, 0, 2, 4, 6), wasm_i32x4_shuffle(c, d, 1, 3, 5, 7));
  return wasm_f32x4_add(wasm_i32x4_shuffle(p, q, 0, 2, 4, 6), wasm_i32x4_shuffle(p, q, 1, 3, 5, 7));
}
/* lane-wise a > m ? a : m (a NaN keeps m), as the scalar running max `if (a > max) max = a` */
#define VMAXGT(a, m) wasm_f32x4_pmax(m, a)

#else /* native: clang vector extensions */

#ifndef VL
#define VL 4
#endif
typedef float vf __attribute__((vector_size(VL * 4)));
/* the same vector at 4-byte alignment: loads and stores of arena views need not be aligned */
typedef float vfu __attribute__((vector_size(VL * 4), aligned(4)));
typedef int vi __attribute__((vector_size(VL * 4)));
typedef float vf4 __attribute__((vector_size(16)));
#define LD(p) (*(const vfu *)(p))
#define ST(p, v) (*(vfu *)(p) = (v))
/* x − (+0) is x for every x (−0 included), and folds away: a splat */
#define SPLAT(x) ((float)(x) - (vf){})
#define VADD(a, b) ((a) + (b))
#define VSUB(a, b) ((a) - (b))
#define VMUL(a, b) ((a) * (b))
#define VDIV(a, b) ((a) / (b))
#define VMIN(a, b) __builtin_elementwise_min(a, b)
#define VMAX(a, b) __builtin_elementwise_max(a, b)
#define LANE0(v) ((v)[0])
/* the wide vector (WL lanes, a multiple of VL): lanes are independent outputs, never summed */
#ifndef WL
#define WL VL
#endif
typedef float vw __attribute__((vector_size(WL * 4)));
typedef float vwu __attribute__((vector_size(WL * 4), aligned(4)));
#define LDW(p) (*(const vwu *)(p))
#define STW(p, v) (*(vwu *)(p) = (v))
#define SPLATW(x) ((float)(x) - (vw){})
/* |x| < 2^22: adding and taking away 1.5·2^23 rounds to the nearest integer (ties to even) */
#define VROUND(x) (((x) + 12582912.0f) - 12582912.0f)
#define VEXP2I(n) ((vf)((__builtin_convertvector(n, vi) + 127) << 23))
/* kernels are internal to each ISA's unit; ../native/kernels.c wraps them for the FFI */
#define EXPORT(name) static
/*
 * t, but exactly ±1 (the sign of x) where |x| ≥ c: tanh's rational form evaluated with fused
 * multiply-adds stops a few ulps short of 1 at the clamp, and GELU's derivative multiplies
 * 1 − tanh² by x³ there (wasm's unfused rounding lands on ±1); on the wide vector (GELU's)
 */
typedef int vwi __attribute__((vector_size(WL * 4)));
static inline vw vsat1(vw t, vw x, float c) {
  const vwi big = __builtin_elementwise_abs(x) >= c;
  const vwi one = ((vwi)x & (int)0x80000000) | (vwi)SPLATW(1.0f);
  return (vw)(((vwi)t & ~big) | (one & big));
}
#define VSAT1(t, x, c) vsat1(t, x, c)

/* 4 lanes in the fixed order (l0 + l1) + (l2 + l3), as the wasm build */
static inline float hsum4(vf4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

/* wider vectors fold in halves first (lane i + lane i + VL/2), then as 4 lanes: a fixed order */
static inline float hsum(vf v) {
#if VL == 16
  typedef float vf8 __attribute__((vector_size(32)));
  const vf8 h = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) + __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  return hsum4(__builtin_shufflevector(h, h, 0, 1, 2, 3) + __builtin_shufflevector(h, h, 4, 5, 6, 7));
#elif VL == 8
  return hsum4(__builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7));
#else
  return hsum4(v);
#endif
}

static inline float hmax(vf v) {
  float max = v[0];
  for (int k = 1; k < VL; k++) if (v[k] > max) max = v[k];
  return max;
}

/* the 4 lanes that hsum4 adds last, folded as hsum does */
static inline vf4 fold4(vf v) {
#if VL == 16
  typedef float vf8 __attribute__((vector_size(32)));
  const vf8 h = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) + __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  return __builtin_shufflevector(h, h, 0, 1, 2, 3) + __builtin_shufflevector(h, h, 4, 5, 6, 7);
#elif VL == 8
  return __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
#else
  return v;
#endif
}

/* four sums at once, each in hsum's order: lane k of the result is hsum of the k-th argument */
typedef float vf4u __attribute__((vector_size(16), aligned(4)));
#define ST4(p, v) (*(vf4u *)(p) = (v))
#define LANE4(v, l) ((v)[l])
static inline vf4 hsum4x(vf a, vf b, vf c, vf d) {
  const vf4 A = fold4(a), B = fold4(b), C = fold4(c), D = fold4(d);
  const vf4 p = __builtin_shufflevector(A, B, 0, 2, 4, 6) + __builtin_shufflevector(A, B, 1, 3, 5, 7);
  const vf4 q = __builtin_shufflevector(C, D, 0, 2, 4, 6) + __builtin_shufflevector(C, D, 1, 3, 5, 7);
  return __builtin_shufflevector(p, q, 0, 2, 4, 6) + __builtin_shufflevector(p, q, 1, 3, 5, 7);
}
/* lane-wise max ignoring NaN in a, as the scalar running max `if (a > max) max = a` (a tie of ±0 may pick either: both give the same exp) */
#define VMAXGT(a, m) __builtin_elementwise_max(a, m)
#endif

#define MADD(acc, a, b) acc = VADD(acc, VMUL(a, b))

/*
 * exp(x), VL lanes. Cephes expf (S. Moshier, cephes/single/expf.c): x = n ln2 + r with ln2 split in
 * two (C1 + C2) for an exact reduction, degree-5 polynomial for e^r on |r| ≤ ln2/2, times 2^n built
 * in the exponent bits. Input clamped to [-87.3, 88.3] so 2^n stays a normal float (exp of very
 * negative x gives ~1e-38, not 0: the callers only use it after subtracting a max). Rel. error ~2e-7.
 */
#define VEXP_STEPS(V, SPL, EXP2I)                              \
  x = VMIN(VMAX(x, SPL(-87.3f)), SPL(88.3f));                   \
  const V n = VROUND(VMUL(x, SPL(1.44269504088896341f)));       \
  V r = VSUB(x, VMUL(n, SPL(0.693359375f)));                    \
  r = VSUB(r, VMUL(n, SPL(-2.12194440e-4f)));                   \
  V p = SPL(1.9875691500e-4f);                                  \
  p = VADD(VMUL(p, r), SPL(1.3981999507e-3f));                  \
  p = VADD(VMUL(p, r), SPL(8.3334519073e-3f));                  \
  p = VADD(VMUL(p, r), SPL(4.1665795894e-2f));                  \
  p = VADD(VMUL(p, r), SPL(1.6666665459e-1f));                  \
  p = VADD(VMUL(p, r), SPL(5.0000001201e-1f));                  \
  p = VADD(VADD(VMUL(VMUL(p, r), r), r), SPL(1.0f));            \
  return VMUL(p, EXP2I(n))
static inline vf vexp(vf x) { VEXP_STEPS(vf, SPLAT, VEXP2I); }

#if !defined(__wasm__) && WL == 2 * VL
/*
 * AVX-512 under the 8-lane family: elementwise work on 16 lanes with the 8-lane arithmetic of every
 * lane (vexp's steps, lane for lane), and the two halves of a wide vector, to add into 8-lane sums
 * in order.
 */
#define WIDE_HALVES 1
#define VEXP2IW(n) ((vw)((__builtin_convertvector(n, vwi) + 127) << 23))
static inline vw vexpw(vw x) { VEXP_STEPS(vw, SPLATW, VEXP2IW); }
#define LO(w) __builtin_shufflevector(w, w, 0, 1, 2, 3, 4, 5, 6, 7)
#define HI(w) __builtin_shufflevector(w, w, 8, 9, 10, 11, 12, 13, 14, 15)
#endif

/* one lane of vexp, bit-identical to the vector lanes (for loop tails) */
static inline float sexp(float x) { return LANE0(vexp(SPLAT(x))); }

#endif
