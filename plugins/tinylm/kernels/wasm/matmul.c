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
 * Backward (accumulating +=), 3 x 12 broadcast tiles (bcast_acc below):
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
 * Forward in broadcast form: out (BT,OC) = inp . wt + bias with wt = weight^T (C,OC), transposed
 * here into the caller's scratch (C*OC floats) so each k step is 3 inp scalars times 3 contiguous
 * weight vectors: 9 accumulators (fits the 16 x86 vector registers JSC allocates from; the 4 x 4
 * dot form above spills). Measured ~1.3x faster than matmul_forward at the model's shapes.
 * Each output is (sum over k in order of x[k]*wt[k][o]) + bias[o], the same in every tile and in
 * the scalar tails (wasm has no fused multiply-add), so results do not depend on BT.
 */
#define ACC3(r, x) MADD(r##0, x, w0); MADD(r##1, x, w1); MADD(r##2, x, w2)

EXPORT(matmul_forward_t)
void matmul_forward_t(float *out, const float *inp, const float *weight, const float *bias, int hasBias, int BT, int C, int OC, float *wt, int wtReady) {
  /* wtReady: wt already holds this weight transposed (the sampler's decode steps after a prefill) */
  if (!wtReady) for (int o = 0; o < OC; o++) {
    const float *w = weight + o * C;
    for (int k = 0; k < C; k++) wt[k * OC + o] = w[k];
  }
  const int OC12 = OC - OC % (3 * VL), OC4 = OC & ~(VL - 1);
  int i = 0;
  for (; i + 3 <= BT; i += 3) {
    const float *x0 = inp + i * C, *x1 = x0 + C, *x2 = x1 + C;
    float *y0 = out + i * OC, *y1 = y0 + OC, *y2 = y1 + OC;
    int o = 0;
    for (; o < OC12; o += 3 * VL) {
      vf a0 = SPLAT(0.0f), a1 = a0, a2 = a0, b0 = a0, b1 = a0, b2 = a0, c0 = a0, c1 = a0, c2 = a0;
      for (int k = 0; k < C; k++) {
        const float *w = wt + k * OC + o;
        const vf w0 = LD(w), w1 = LD(w + VL), w2 = LD(w + 2 * VL);
        ACC3(a, SPLAT(x0[k]));
        ACC3(b, SPLAT(x1[k]));
        ACC3(c, SPLAT(x2[k]));
      }
      const vf z = SPLAT(0.0f);
      const vf q0 = hasBias ? LD(bias + o) : z, q1 = hasBias ? LD(bias + o + VL) : z, q2 = hasBias ? LD(bias + o + 2 * VL) : z;
      ST(y0 + o, VADD(a0, q0)); ST(y0 + o + VL, VADD(a1, q1)); ST(y0 + o + 2 * VL, VADD(a2, q2));
      ST(y1 + o, VADD(b0, q0)); ST(y1 + o + VL, VADD(b1, q1)); ST(y1 + o + 2 * VL, VADD(b2, q2));
      ST(y2 + o, VADD(c0, q0)); ST(y2 + o + VL, VADD(c1, q1)); ST(y2 + o + 2 * VL, VADD(c2, q2));
    }
    for (; o < OC4; o += VL) {
      vf a = SPLAT(0.0f), b = a, c = a;
      for (int k = 0; k < C; k++) {
        const vf w = LD(wt + k * OC + o);
        MADD(a, SPLAT(x0[k]), w); MADD(b, SPLAT(x1[k]), w); MADD(c, SPLAT(x2[k]), w);
      }
      const vf q = hasBias ? LD(bias + o) : SPLAT(0.0f);
      ST(y0 + o, VADD(a, q)); ST(y1 + o, VADD(b, q)); ST(y2 + o, VADD(c, q));
    }
    for (; o < OC; o++) {
      float a = 0.0f, b = 0.0f, c = 0.0f;
      for (int k = 0; k < C; k++) {
        const float w = wt[k * OC + o];
        a += x0[k] * w; b += x1[k] * w; c += x2[k] * w;
      }
      const float q = hasBias ? bias[o] : 0.0f;
      y0[o] = a + q; y1[o] = b + q; y2[o] = c + q;
    }
  }
  for (; i < BT; i++) {
    const float *x = inp + i * C;
    float *y = out + i * OC;
    int o = 0;
    for (; o < OC4; o += VL) {
      vf a = SPLAT(0.0f);
      for (int k = 0; k < C; k++) MADD(a, SPLAT(x[k]), LD(wt + k * OC + o));
      ST(y + o, VADD(a, hasBias ? LD(bias + o) : SPLAT(0.0f)));
    }
    for (; o < OC; o++) {
      float a = 0.0f;
      for (int k = 0; k < C; k++) a += x[k] * wt[k * OC + o];
      y[o] = a + (hasBias ? bias[o] : 0.0f);
    }
  }
}

/*
 * out[r*ldo + n] += sum over k of x[r*xr + k*xk] * w[k*ldw + n]  (r < R, n < N, k < K, k in order)
 * Broadcast form with 3 x 12 register tiles (9 accumulators, no spills); k steps where the 3 x values
 * are all zero (padding rows of dout) are skipped. Both backward products are this shape:
 *   dinp = dout . weight     (x = dout rows, w = weight)
 *   dweight = dout^T . inp   (x = dout columns, strided; w = inp rows), taken in row blocks.
 */
static inline void bcast_acc(float *out, int ldo, const float *x, int xr, int xk, const float *w, int ldw, int R, int K, int N) {
  const int N12 = N - N % (3 * VL), N4 = N & ~(VL - 1);
  int r = 0;
  for (; r + 3 <= R; r += 3) {
    const float *xa = x + r * xr, *xb = xa + xr, *xc = xb + xr;
    float *ya = out + r * ldo, *yb = ya + ldo, *yc = yb + ldo;
    int n = 0;
    for (; n < N12; n += 3 * VL) {
      vf a0 = LD(ya + n), a1 = LD(ya + n + VL), a2 = LD(ya + n + 2 * VL);
      vf b0 = LD(yb + n), b1 = LD(yb + n + VL), b2 = LD(yb + n + 2 * VL);
      vf c0 = LD(yc + n), c1 = LD(yc + n + VL), c2 = LD(yc + n + 2 * VL);
      for (int k = 0; k < K; k++) {
        const float sa = xa[k * xk], sb = xb[k * xk], sc = xc[k * xk];
        if (sa == 0.0f && sb == 0.0f && sc == 0.0f) continue;
        const float *wk = w + k * ldw + n;
        const vf w0 = LD(wk), w1 = LD(wk + VL), w2 = LD(wk + 2 * VL);
        ACC3(a, SPLAT(sa));
        ACC3(b, SPLAT(sb));
        ACC3(c, SPLAT(sc));
      }
      ST(ya + n, a0); ST(ya + n + VL, a1); ST(ya + n + 2 * VL, a2);
      ST(yb + n, b0); ST(yb + n + VL, b1); ST(yb + n + 2 * VL, b2);
      ST(yc + n, c0); ST(yc + n + VL, c1); ST(yc + n + 2 * VL, c2);
    }
    for (; n < N4; n += VL) {
      vf a = LD(ya + n), b = LD(yb + n), c = LD(yc + n);
      for (int k = 0; k < K; k++) {
        const vf wv = LD(w + k * ldw + n);
        MADD(a, SPLAT(xa[k * xk]), wv); MADD(b, SPLAT(xb[k * xk]), wv); MADD(c, SPLAT(xc[k * xk]), wv);
      }
      ST(ya + n, a); ST(yb + n, b); ST(yc + n, c);
    }
    for (; n < N; n++) {
      float a = ya[n], b = yb[n], c = yc[n];
      for (int k = 0; k < K; k++) {
        const float wv = w[k * ldw + n];
        a += xa[k * xk] * wv; b += xb[k * xk] * wv; c += xc[k * xk] * wv;
      }
      ya[n] = a; yb[n] = b; yc[n] = c;
    }
  }
  for (; r < R; r++) {
    const float *xa = x + r * xr;
    float *ya = out + r * ldo;
    int n = 0;
    for (; n < N4; n += VL) {
      vf a = LD(ya + n);
      for (int k = 0; k < K; k++) MADD(a, SPLAT(xa[k * xk]), LD(w + k * ldw + n));
      ST(ya + n, a);
    }
    for (; n < N; n++) {
      float a = ya[n];
      for (int k = 0; k < K; k++) a += xa[k * xk] * w[k * ldw + n];
      ya[n] = a;
    }
  }
}

/*
 * One thread's share of the backward (kernels/wasm/pool.ts splits a call in two): dinp rows [r0,r1)
 * and dweight rows [o0,o1). Every dweight entry still sums over all BT rows in the same order, and
 * a split at a multiple of 3 keeps the 3-row tiles of the whole call, so the result is bit-identical
 * to the single-thread call whatever the split.
 */
static void backward_part(float *dinp, float *dweight, const float *dout, const float *inp, const float *weight,
                          int BT, int C, int OC, int r0, int r1, int o0, int o1) {
  if (r1 > r0) bcast_acc(dinp + r0 * C, C, dout + r0 * OC, OC, 1, weight, C, r1 - r0, OC, C);
  if (o1 > o0) for (int b0 = 0; b0 < BT; b0 += ROWS) {
    const int n = b0 + ROWS < BT ? ROWS : BT - b0;
    bcast_acc(dweight + o0 * C, C, dout + b0 * OC + o0, 1, OC, inp + b0 * C, C, o1 - o0, n, C);
  }
}

static void bias_backward(float *dbias, const float *dout, int BT, int OC) {
  const int OC4 = OC & ~(VL - 1);
  for (int i = 0; i < BT; i++) {
    const float *g = dout + i * OC;
    int o = 0;
    for (; o < OC4; o += VL) ST(dbias + o, VADD(LD(dbias + o), LD(g + o)));
    for (; o < OC; o++) dbias[o] += g[o];
  }
}

/*
 * dinp (BT,C) += dout . weight; dweight (OC,C) += dout^T . inp (rows in blocks of ROWS, in order);
 * dbias += column sums. The share [r0,r1) x [o0,o1) of it (kernels/wasm/pool.ts runs two shares at
 * once; the whole call is the share [0,BT) x [0,OC)).
 */
EXPORT(matmul_backward_part)
void matmul_backward_part(float *dinp, float *dweight, float *dbias, int hasBias, const float *dout,
                          const float *inp, const float *weight, int BT, int C, int OC, int r0, int r1, int o0, int o1) {
  backward_part(dinp, dweight, dout, inp, weight, BT, C, OC, r0, r1, o0, o1);
  if (hasBias) bias_backward(dbias, dout, BT, OC);
}
