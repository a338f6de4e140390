/*
 * WASM SIMD (f32x4) matmul kernels in llm.c layout, operating in place on the model's imported
 * WebAssembly.Memory (all pointers are byte offsets into it). Spec: ../matmul.ts (plain JS).
 *
 * Forward: out (BT,OC) = inp (BT,C) . weight (OC,C)^T + bias. matmul_forward_t (the model's path,
 * needs a transposed-weight scratch) and matmul_forward, the dot form used without one: register
 * tiles of 4 rows x 4 outputs (16 f32x4 accumulators over k).
 * Every output is computed the same way whatever tile it falls in (4 lanes over k, fixed-order
 * horizontal sum, scalar k tail, + bias), so results do not depend on BT: sampling one row gives
 * the same numbers as scoring many.
 *
 * Backward (accumulating +=, or dinp written when fresh), TR x TV broadcast tiles (bcast_acc below):
 *   dinp (BT,C)    += dout . weight
 *   dweight (OC,C) += dout^T . inp
 *   dbias (OC)     += sum over rows of dout
 * Offset 0 is a valid view in the arena, so bias presence is a flag, not a null pointer.
 * Built with clang --target=wasm32 -msimd128 -O3 (see build.ts). No libc, no shadow stack use:
 * everything lives in wasm locals (test/tinylm/wasm-kernels.test.ts checks that nothing but the
 * outputs is written).
 */
#include "simd.h"

/* one output: dot(x[0..C), w[0..C)) with the same order as the tiled path */
static inline float dot1(const float *x, const float *w, int C4, int C) {
  vf acc = SPLAT(0.0f);
  for (int k = 0; k < C4; k += VL) MADD(acc, LD(x + k), LD(w + k));
  float s = hsum(acc);
  for (int k = C4; k < C; k++) s += x[k] * w[k];
  return s;
}

EXPORT(matmul_forward)
void matmul_forward(float *out, const float *inp, const float *weight, const float *bias,
                    int hasBias, int BT, int C, int OC) {
  const int C4 = C & ~(VL - 1), OC4 = OC & ~3;
  int i = 0;
  for (; i + 4 <= BT; i += 4) {
    const float *x0 = inp + i * C, *x1 = x0 + C, *x2 = x1 + C, *x3 = x2 + C;
    float *y0 = out + i * OC, *y1 = y0 + OC, *y2 = y1 + OC, *y3 = y2 + OC;
    int o = 0;
    for (; o < OC4; o += 4) {
      const float *wa = weight + o * C, *wb = wa + C, *wc = wb + C, *wd = wc + C;
      vf s00 = SPLAT(0.0f), s01 = s00, s02 = s00, s03 = s00;
      vf s10 = s00, s11 = s00, s12 = s00, s13 = s00;
      vf s20 = s00, s21 = s00, s22 = s00, s23 = s00;
      vf s30 = s00, s31 = s00, s32 = s00, s33 = s00;
      for (int k = 0; k < C4; k += VL) {
        const vf a = LD(wa + k), b = LD(wb + k), c = LD(wc + k), d = LD(wd + k);
        vf x = LD(x0 + k);
        MADD(s00, x, a); MADD(s01, x, b); MADD(s02, x, c); MADD(s03, x, d);
        x = LD(x1 + k);
        MADD(s10, x, a); MADD(s11, x, b); MADD(s12, x, c); MADD(s13, x, d);
        x = LD(x2 + k);
        MADD(s20, x, a); MADD(s21, x, b); MADD(s22, x, c); MADD(s23, x, d);
        x = LD(x3 + k);
        MADD(s30, x, a); MADD(s31, x, b); MADD(s32, x, c); MADD(s33, x, d);
      }
      float r00 = hsum(s00), r01 = hsum(s01), r02 = hsum(s02), r03 = hsum(s03);
      float r10 = hsum(s10), r11 = hsum(s11), r12 = hsum(s12), r13 = hsum(s13);
      float r20 = hsum(s20), r21 = hsum(s21), r22 = hsum(s22), r23 = hsum(s23);
      float r30 = hsum(s30), r31 = hsum(s31), r32 = hsum(s32), r33 = hsum(s33);
      for (int k = C4; k < C; k++) {
        const float a = wa[k], b = wb[k], c = wc[k], d = wd[k];
        r00 += x0[k] * a; r01 += x0[k] * b; r02 += x0[k] * c; r03 += x0[k] * d;
        r10 += x1[k] * a; r11 += x1[k] * b; r12 += x1[k] * c; r13 += x1[k] * d;
        r20 += x2[k] * a; r21 += x2[k] * b; r22 += x2[k] * c; r23 += x2[k] * d;
        r30 += x3[k] * a; r31 += x3[k] * b; r32 += x3[k] * c; r33 += x3[k] * d;
      }
      const float ba = hasBias ? bias[o] : 0.0f, bb = hasBias ? bias[o + 1] : 0.0f;
      const float bc = hasBias ? bias[o + 2] : 0.0f, bd = hasBias ? bias[o + 3] : 0.0f;
      y0[o] = r00 + ba; y0[o + 1] = r01 + bb; y0[o + 2] = r02 + bc; y0[o + 3] = r03 + bd;
      y1[o] = r10 + ba; y1[o + 1] = r11 + bb; y1[o + 2] = r12 + bc; y1[o + 3] = r13 + bd;
      y2[o] = r20 + ba; y2[o + 1] = r21 + bb; y2[o + 2] = r22 + bc; y2[o + 3] = r23 + bd;
      y3[o] = r30 + ba; y3[o + 1] = r31 + bb; y3[o + 2] = r32 + bc; y3[o + 3] = r33 + bd;
    }
    for (; o < OC; o++) {
      const float *w = weight + o * C;
      const float b = hasBias ? bias[o] : 0.0f;
      y0[o] = dot1(x0, w, C4, C) + b;
      y1[o] = dot1(x1, w, C4, C) + b;
      y2[o] = dot1(x2, w, C4, C) + b;
      y3[o] = dot1(x3, w, C4, C) + b;
    }
  }
  for (; i < BT; i++) {
    const float *x = inp + i * C;
    float *y = out + i * OC;
    for (int o = 0; o < OC; o++) y[o] = dot1(x, weight + o * C, C4, C) + (hasBias ? bias[o] : 0.0f);
  }
}

/* rows per pass of the dweight product: a block of inp and dout stays in cache */
#define ROWS 64

/*
 * The register tile of the broadcast-form kernels below: TR rows x TV wide vectors of WL outputs,
 * set per build (build.ts; native/build.ts): 3 x 3 in wasm and SSE2 (9 accumulators fit the 16 x86
 * vector registers JSC allocates from), 6 x 2 in AVX2 (16 registers), 4 x 4 in AVX-512 (32, of 16
 * lanes). The tile and the width only change which outputs are computed together, never how one
 * is computed: each output is one fused multiply-add chain over k in order (a plain multiply and
 * add where the build has no FMA), in the vector lanes and the scalar tails alike.
 */
#ifndef TR
#define TR 3
#endif
#ifndef TV
#define TV 3
#endif
#define TW (TV * WL)

/*
 * y[r][o + j] = sum over k in order of x[r][k] * wt[k][o + j], + bias, for r < R, j < NV*WL.
 * Always inlined with constant R and NV, so the accumulator arrays live in registers.
 */
static inline __attribute__((always_inline)) void fwd_block(float *y, const float *x, const float *wt, const float *bias, int hasBias,
                                                            int C, int OC, int o, const int R, const int NV) {
  vw acc[TR][TV];
  for (int r = 0; r < R; r++) for (int v = 0; v < NV; v++) acc[r][v] = SPLATW(0.0f);
  for (int k = 0; k < C; k++) {
    const float *w = wt + k * OC + o;
    vw wv[TV];
    for (int v = 0; v < NV; v++) wv[v] = LDW(w + v * WL);
    for (int r = 0; r < R; r++) {
      const vw xs = SPLATW(x[r * C + k]);
      for (int v = 0; v < NV; v++) MADD(acc[r][v], xs, wv[v]);
    }
  }
  for (int v = 0; v < NV; v++) {
    const vw q = hasBias ? LDW(bias + o + v * WL) : SPLATW(0.0f);
    for (int r = 0; r < R; r++) STW(y + r * OC + o + v * WL, VADD(acc[r][v], q));
  }
}

/* R rows: tiles of TW outputs, then single vectors, then single outputs (the same sums) */
static inline __attribute__((always_inline)) void fwd_rows(float *y, const float *x, const float *wt, const float *bias, int hasBias,
                                                           int C, int OC, const int R) {
  const int OCT = OC - OC % TW, OC4 = OC & ~(WL - 1);
  int o = 0;
  for (; o < OCT; o += TW) fwd_block(y, x, wt, bias, hasBias, C, OC, o, R, TV);
  for (; o < OC4; o += WL) fwd_block(y, x, wt, bias, hasBias, C, OC, o, R, 1);
  for (; o < OC; o++) {
    for (int r = 0; r < R; r++) {
      float a = 0.0f;
      for (int k = 0; k < C; k++) a += x[r * C + k] * wt[k * OC + o];
      y[r * OC + o] = a + (hasBias ? bias[o] : 0.0f);
    }
  }
}

/*
 * Forward in broadcast form: out (BT,OC) = inp . wt + bias with wt = weight^T (C,OC), transposed
 * here into the caller's scratch (C*OC floats) so each k step is TR inp scalars times TV contiguous
 * weight vectors. Measured ~1.3x faster than matmul_forward at the model's shapes (wasm).
 * Each output is (sum over k in order of x[k]*wt[k][o]) + bias[o], the same in every tile and in
 * the scalar tails, so results do not depend on BT.
 */
EXPORT(matmul_forward_t)
void matmul_forward_t(float *out, const float *inp, const float *weight, const float *bias, int hasBias, int BT, int C, int OC, float *wt, int wtReady) {
  /* wtReady: wt already holds this weight transposed (the sampler's decode steps after a prefill) */
  if (!wtReady) for (int o = 0; o < OC; o++) {
    const float *w = weight + o * C;
    for (int k = 0; k < C; k++) wt[k * OC + o] = w[k];
  }
  int i = 0;
  for (; i + TR <= BT; i += TR) fwd_rows(out + i * OC, inp + i * C, wt, bias, hasBias, C, OC, TR);
  for (; i < BT; i++) fwd_rows(out + i * OC, inp + i * C, wt, bias, hasBias, C, OC, 1);
}

/*
 * The x values of acc_block's k step: in vector registers (held for the zero test and the broadcasts)
 * in SSE2, which has no broadcast from memory. Elsewhere the zero test reads their bits into integer
 * registers and the broadcasts read them again from memory, so that they hold no vector register:
 * with them, AVX2's 6 × 2 tile (12 accumulators of its 16 registers) spilled four accumulators to the
 * stack in the k loop, and the backward ran 1.9× slower.
 */
#if defined(__x86_64__) && !defined(__AVX2__)
#define HOLD_XS 1
#else
#define HOLD_XS 0
typedef unsigned int bits32 __attribute__((may_alias));
#endif

/*
 * out[r][n + j] += sum over k in order of x[r*xr + k*xk] * w[k*ldw + n + j] (r < R, j < NV*WL);
 * with fresh, out is written instead (the sums start from +0, as they would from a zeroed out).
 * With skipZero, k steps where the R x values are all zero (±0; padding rows of dout) are skipped.
 */
static inline __attribute__((always_inline)) void acc_block(float *out, int ldo, const float *x, int xr, int xk, const float *w, int ldw,
                                                            int K, int n, int fresh, const int R, const int NV, const int skipZero) {
  vw acc[TR][TV];
  for (int r = 0; r < R; r++) for (int v = 0; v < NV; v++) acc[r][v] = fresh ? SPLATW(0.0f) : LDW(out + r * ldo + n + v * WL);
  for (int k = 0; k < K; k++) {
    int any = 0;
#if HOLD_XS
    float xs[TR];
    for (int r = 0; r < R; r++) {
      xs[r] = x[r * xr + k * xk];
      any |= xs[r] != 0.0f;
    }
#define XS(r) xs[r]
#else
    if (skipZero) for (int r = 0; r < R; r++) any |= (*(const bits32 *)(x + r * xr + k * xk) & 0x7fffffffu) != 0;
#define XS(r) x[(r) * xr + k * xk]
#endif
    if (skipZero && !any) continue;
    const float *wk = w + k * ldw + n;
    vw wv[TV];
    for (int v = 0; v < NV; v++) wv[v] = LDW(wk + v * WL);
    for (int r = 0; r < R; r++) {
      const vw s = SPLATW(XS(r));
      for (int v = 0; v < NV; v++) MADD(acc[r][v], s, wv[v]);
    }
#undef XS
  }
  for (int r = 0; r < R; r++) for (int v = 0; v < NV; v++) STW(out + r * ldo + n + v * WL, acc[r][v]);
}

static inline __attribute__((always_inline)) void acc_rows(float *out, int ldo, const float *x, int xr, int xk, const float *w, int ldw,
                                                           int K, int N, int fresh, const int R) {
  const int NT = N - N % TW, N4 = N & ~(WL - 1);
  int n = 0;
  /* zero skipping in full tiles only (the narrower paths add the zeros: the same values) */
  for (; n < NT; n += TW) acc_block(out, ldo, x, xr, xk, w, ldw, K, n, fresh, R, TV, R == TR);
  for (; n < N4; n += WL) acc_block(out, ldo, x, xr, xk, w, ldw, K, n, fresh, R, 1, 0);
  for (; n < N; n++) {
    for (int r = 0; r < R; r++) {
      float a = fresh ? 0.0f : out[r * ldo + n];
      for (int k = 0; k < K; k++) a += x[r * xr + k * xk] * w[k * ldw + n];
      out[r * ldo + n] = a;
    }
  }
}

/*
 * out[r*ldo + n] += sum over k of x[r*xr + k*xk] * w[k*ldw + n]  (r < R, n < N, k < K, k in order);
 * with fresh, = instead of += (out's old values are not read). Broadcast form with TR x TW register tiles. Both backward products are this shape:
 *   dinp = dout . weight     (x = dout rows, w = weight)
 *   dweight = dout^T . inp   (x = dout columns, strided; w = inp rows), taken in row blocks.
 */
static inline void bcast_acc(float *out, int ldo, const float *x, int xr, int xk, const float *w, int ldw, int R, int K, int N, int fresh) {
  int r = 0;
  for (; r + TR <= R; r += TR) acc_rows(out + r * ldo, ldo, x + r * xr, xr, xk, w, ldw, K, N, fresh, TR);
  for (; r < R; r++) acc_rows(out + r * ldo, ldo, x + r * xr, xr, xk, w, ldw, K, N, fresh, 1);
}

/*
 * One thread's share of the backward (kernels/wasm/pool.ts splits a call in two): dinp rows [r0,r1)
 * and dweight rows [o0,o1). Every dweight entry still sums over all BT rows in the same order, and
 * a split at a multiple of TR keeps the row tiles of the whole call, so the result is bit-identical
 * to the single-thread call whatever the split.
 */
static void backward_part(float *dinp, float *dweight, const float *dout, const float *inp, const float *weight,
                          int BT, int C, int OC, int r0, int r1, int o0, int o1, int fresh) {
  if (r1 > r0) bcast_acc(dinp + r0 * C, C, dout + r0 * OC, OC, 1, weight, C, r1 - r0, OC, C, fresh);
  if (o1 > o0) for (int b0 = 0; b0 < BT; b0 += ROWS) {
    const int n = b0 + ROWS < BT ? ROWS : BT - b0;
    bcast_acc(dweight + o0 * C, C, dout + b0 * OC + o0, 1, OC, inp + b0 * C, C, o1 - o0, n, C, 0);
  }
}

static void bias_backward(float *dbias, const float *dout, int BT, int OC) {
  const int OC4 = OC & ~(WL - 1);
  for (int i = 0; i < BT; i++) {
    const float *g = dout + i * OC;
    int o = 0;
    for (; o < OC4; o += WL) STW(dbias + o, VADD(LDW(dbias + o), LDW(g + o)));
    for (; o < OC; o++) dbias[o] += g[o];
  }
}

/*
 * dinp (BT,C) += dout . weight; dweight (OC,C) += dout^T . inp (rows in blocks of ROWS, in order);
 * dbias += column sums. The share [r0,r1) x [o0,o1) of it (kernels/wasm/pool.ts runs two shares at
 * once; the whole call is the share [0,BT) x [0,OC)). flags: 1 = there is a bias; 2 = dinp is
 * fresh: written (= dout . weight) rather than added to, the same bits as adding to zeros, with no
 * zeroing pass and no read of dinp (the model's backward zeroed it before every call).
 */
EXPORT(matmul_backward_part)
void matmul_backward_part(float *dinp, float *dweight, float *dbias, int flags, const float *dout,
                          const float *inp, const float *weight, int BT, int C, int OC, int r0, int r1, int o0, int o1) {
  backward_part(dinp, dweight, dout, inp, weight, BT, C, OC, r0, r1, o0, o1, flags & 2);
  if (flags & 1) bias_backward(dbias, dout, BT, OC);
}
