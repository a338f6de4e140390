/*
 * WASM SIMD (f32x4) matmul kernels in llm.c layout, operating in place on the model's imported
 * WebAssembly.Memory (all pointers are byte offsets into it). Spec: ../matmul.ts (plain JS).
 *
 * Forward: out (BT,OC) = inp (BT,C) . weight (OC,C)^T + bias. Register tiles of 4 rows x 4 outputs
 * (16 f32x4 accumulators over k), so each loaded inp/weight vector feeds 4 multiply-adds.
 * Every output is computed the same way whatever tile it falls in (4 lanes over k, fixed-order
 * horizontal sum, scalar k tail, + bias), so results do not depend on BT: sampling one row gives
 * the same numbers as scoring many.
 *
 * Backward (accumulating +=), 4 x 16 register tiles (see each function):
 *   dinp (BT,C)    += dout . weight
 *   dweight (OC,C) += dout^T . inp
 *   dbias (OC)     += sum over rows of dout
 * Offset 0 is a valid view in the arena, so bias presence is a flag, not a null pointer.
 * Built with clang --target=wasm32 -msimd128 -O3 (see build.ts). No libc, no shadow stack use:
 * everything lives in wasm locals (build.ts checks the module touches no stack pointer).
 */
#include "simd.h"

/* one output: dot(x[0..C), w[0..C)) with the same order as the tiled path */
static inline float dot1(const float *x, const float *w, int C4, int C) {
  v128_t acc = wasm_f32x4_splat(0.0f);
  for (int k = 0; k < C4; k += 4) MADD(acc, LD(x + k), LD(w + k));
  float s = hsum(acc);
  for (int k = C4; k < C; k++) s += x[k] * w[k];
  return s;
}

__attribute__((export_name("matmul_forward")))
void matmul_forward(float *out, const float *inp, const float *weight, const float *bias,
                    int hasBias, int BT, int C, int OC) {
  const int C4 = C & ~3, OC4 = OC & ~3;
  int i = 0;
  for (; i + 4 <= BT; i += 4) {
    const float *x0 = inp + i * C, *x1 = x0 + C, *x2 = x1 + C, *x3 = x2 + C;
    float *y0 = out + i * OC, *y1 = y0 + OC, *y2 = y1 + OC, *y3 = y2 + OC;
    int o = 0;
    for (; o < OC4; o += 4) {
      const float *wa = weight + o * C, *wb = wa + C, *wc = wb + C, *wd = wc + C;
      v128_t s00 = wasm_f32x4_splat(0.0f), s01 = s00, s02 = s00, s03 = s00;
      v128_t s10 = s00, s11 = s00, s12 = s00, s13 = s00;
      v128_t s20 = s00, s21 = s00, s22 = s00, s23 = s00;
      v128_t s30 = s00, s31 = s00, s32 = s00, s33 = s00;
      for (int k = 0; k < C4; k += 4) {
        const v128_t a = LD(wa + k), b = LD(wb + k), c = LD(wc + k), d = LD(wd + k);
        v128_t x = LD(x0 + k);
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

/*
 * dinp (BT,C) += dout . weight. Register tile: 4 rows x 16 columns (16 accumulators); each step
 * over o loads 4 weight vectors and 4 dout scalars for 16 multiply-adds. Every element sums over
 * o in the same order whatever tile it falls in. Blocks of 4 all-zero dout rows (padding) skip.
 */
static void backward_dinp(float *dinp, const float *dout, const float *weight, int BT, int C, int OC) {
  const int C4 = C & ~3, C16 = C & ~15;
  int i = 0;
  for (; i + 4 <= BT; i += 4) {
    float *d0 = dinp + i * C, *d1 = d0 + C, *d2 = d1 + C, *d3 = d2 + C;
    const float *g0 = dout + i * OC, *g1 = g0 + OC, *g2 = g1 + OC, *g3 = g2 + OC;
    int any = 0;
    for (int o = 0; o < OC && !any; o++) any = g0[o] != 0.0f || g1[o] != 0.0f || g2[o] != 0.0f || g3[o] != 0.0f;
    if (!any) continue;
    int k = 0;
    for (; k < C16; k += 16) {
      v128_t a0 = LD(d0 + k), a1 = LD(d0 + k + 4), a2 = LD(d0 + k + 8), a3 = LD(d0 + k + 12);
      v128_t b0 = LD(d1 + k), b1 = LD(d1 + k + 4), b2 = LD(d1 + k + 8), b3 = LD(d1 + k + 12);
      v128_t c0 = LD(d2 + k), c1 = LD(d2 + k + 4), c2 = LD(d2 + k + 8), c3 = LD(d2 + k + 12);
      v128_t e0 = LD(d3 + k), e1 = LD(d3 + k + 4), e2 = LD(d3 + k + 8), e3 = LD(d3 + k + 12);
      for (int o = 0; o < OC; o++) {
        const float *w = weight + o * C + k;
        const v128_t w0 = LD(w), w1 = LD(w + 4), w2 = LD(w + 8), w3 = LD(w + 12);
        v128_t g = SPLAT(g0[o]);
        MADD(a0, g, w0); MADD(a1, g, w1); MADD(a2, g, w2); MADD(a3, g, w3);
        g = SPLAT(g1[o]);
        MADD(b0, g, w0); MADD(b1, g, w1); MADD(b2, g, w2); MADD(b3, g, w3);
        g = SPLAT(g2[o]);
        MADD(c0, g, w0); MADD(c1, g, w1); MADD(c2, g, w2); MADD(c3, g, w3);
        g = SPLAT(g3[o]);
        MADD(e0, g, w0); MADD(e1, g, w1); MADD(e2, g, w2); MADD(e3, g, w3);
      }
      ST(d0 + k, a0); ST(d0 + k + 4, a1); ST(d0 + k + 8, a2); ST(d0 + k + 12, a3);
      ST(d1 + k, b0); ST(d1 + k + 4, b1); ST(d1 + k + 8, b2); ST(d1 + k + 12, b3);
      ST(d2 + k, c0); ST(d2 + k + 4, c1); ST(d2 + k + 8, c2); ST(d2 + k + 12, c3);
      ST(d3 + k, e0); ST(d3 + k + 4, e1); ST(d3 + k + 8, e2); ST(d3 + k + 12, e3);
    }
    for (; k < C4; k += 4) {
      v128_t a0 = LD(d0 + k), a1 = LD(d1 + k), a2 = LD(d2 + k), a3 = LD(d3 + k);
      for (int o = 0; o < OC; o++) {
        const v128_t w = LD(weight + o * C + k);
        MADD(a0, SPLAT(g0[o]), w);
        MADD(a1, SPLAT(g1[o]), w);
        MADD(a2, SPLAT(g2[o]), w);
        MADD(a3, SPLAT(g3[o]), w);
      }
      ST(d0 + k, a0); ST(d1 + k, a1); ST(d2 + k, a2); ST(d3 + k, a3);
    }
    for (; k < C; k++) {
      float a0 = d0[k], a1 = d1[k], a2 = d2[k], a3 = d3[k];
      for (int o = 0; o < OC; o++) {
        const float w = weight[o * C + k];
        a0 += g0[o] * w; a1 += g1[o] * w; a2 += g2[o] * w; a3 += g3[o] * w;
      }
      d0[k] = a0; d1[k] = a1; d2[k] = a2; d3[k] = a3;
    }
  }
  for (; i < BT; i++) {
    float *d = dinp + i * C;
    const float *g = dout + i * OC;
    int k = 0;
    for (; k < C4; k += 4) {
      v128_t a = LD(d + k);
      for (int o = 0; o < OC; o++) MADD(a, SPLAT(g[o]), LD(weight + o * C + k));
      ST(d + k, a);
    }
    for (; k < C; k++) {
      float a = d[k];
      for (int o = 0; o < OC; o++) a += g[o] * weight[o * C + k];
      d[k] = a;
    }
  }
}

/* rows per pass of backward_dweight: a block of inp and dout stays in cache across all tiles */
#define ROWS 64

/*
 * dweight (OC,C) += dout^T . inp. Register tile: 4 output channels x 16 columns; each row loads 4
 * inp vectors and 4 dout scalars for 16 multiply-adds; rows whose 4 dout values are all zero
 * (padding) skip. Rows are taken in blocks of ROWS, in order, so every element sums over rows in
 * the same sequence whatever the tiling.
 */
static void backward_dweight(float *dweight, const float *dout, const float *inp, int BT, int C, int OC) {
  const int C4 = C & ~3, C16 = C & ~15, OC4 = OC & ~3;
  for (int r0 = 0; r0 < BT; r0 += ROWS) {
    const int r1 = r0 + ROWS < BT ? r0 + ROWS : BT;
    int o = 0;
    for (; o < OC4; o += 4) {
      float *wa = dweight + o * C, *wb = wa + C, *wc = wb + C, *wd = wc + C;
      int k = 0;
      for (; k < C16; k += 16) {
        v128_t a0 = LD(wa + k), a1 = LD(wa + k + 4), a2 = LD(wa + k + 8), a3 = LD(wa + k + 12);
        v128_t b0 = LD(wb + k), b1 = LD(wb + k + 4), b2 = LD(wb + k + 8), b3 = LD(wb + k + 12);
        v128_t c0 = LD(wc + k), c1 = LD(wc + k + 4), c2 = LD(wc + k + 8), c3 = LD(wc + k + 12);
        v128_t e0 = LD(wd + k), e1 = LD(wd + k + 4), e2 = LD(wd + k + 8), e3 = LD(wd + k + 12);
        for (int i = r0; i < r1; i++) {
          const float *g = dout + i * OC + o;
          if (g[0] == 0.0f && g[1] == 0.0f && g[2] == 0.0f && g[3] == 0.0f) continue;
          const float *x = inp + i * C + k;
          const v128_t x0 = LD(x), x1 = LD(x + 4), x2 = LD(x + 8), x3 = LD(x + 12);
          v128_t s = SPLAT(g[0]);
          MADD(a0, s, x0); MADD(a1, s, x1); MADD(a2, s, x2); MADD(a3, s, x3);
          s = SPLAT(g[1]);
          MADD(b0, s, x0); MADD(b1, s, x1); MADD(b2, s, x2); MADD(b3, s, x3);
          s = SPLAT(g[2]);
          MADD(c0, s, x0); MADD(c1, s, x1); MADD(c2, s, x2); MADD(c3, s, x3);
          s = SPLAT(g[3]);
          MADD(e0, s, x0); MADD(e1, s, x1); MADD(e2, s, x2); MADD(e3, s, x3);
        }
        ST(wa + k, a0); ST(wa + k + 4, a1); ST(wa + k + 8, a2); ST(wa + k + 12, a3);
        ST(wb + k, b0); ST(wb + k + 4, b1); ST(wb + k + 8, b2); ST(wb + k + 12, b3);
        ST(wc + k, c0); ST(wc + k + 4, c1); ST(wc + k + 8, c2); ST(wc + k + 12, c3);
        ST(wd + k, e0); ST(wd + k + 4, e1); ST(wd + k + 8, e2); ST(wd + k + 12, e3);
      }
      for (; k < C4; k += 4) {
        v128_t a = LD(wa + k), b = LD(wb + k), c = LD(wc + k), d = LD(wd + k);
        for (int i = r0; i < r1; i++) {
          const float *g = dout + i * OC + o;
          const v128_t x = LD(inp + i * C + k);
          MADD(a, SPLAT(g[0]), x); MADD(b, SPLAT(g[1]), x); MADD(c, SPLAT(g[2]), x); MADD(d, SPLAT(g[3]), x);
        }
        ST(wa + k, a); ST(wb + k, b); ST(wc + k, c); ST(wd + k, d);
      }
      for (; k < C; k++) {
        float a = wa[k], b = wb[k], c = wc[k], d = wd[k];
        for (int i = r0; i < r1; i++) {
          const float *g = dout + i * OC + o;
          const float x = inp[i * C + k];
          a += g[0] * x; b += g[1] * x; c += g[2] * x; d += g[3] * x;
        }
        wa[k] = a; wb[k] = b; wc[k] = c; wd[k] = d;
      }
    }
    for (; o < OC; o++) {
      float *w = dweight + o * C;
      int k = 0;
      for (; k < C4; k += 4) {
        v128_t a = LD(w + k);
        for (int i = r0; i < r1; i++) MADD(a, SPLAT(dout[i * OC + o]), LD(inp + i * C + k));
        ST(w + k, a);
      }
      for (; k < C; k++) {
        float a = w[k];
        for (int i = r0; i < r1; i++) a += dout[i * OC + o] * inp[i * C + k];
        w[k] = a;
      }
    }
  }
}

__attribute__((export_name("matmul_backward")))
void matmul_backward(float *dinp, float *dweight, float *dbias, int hasBias, const float *dout,
                     const float *inp, const float *weight, int BT, int C, int OC) {
  backward_dinp(dinp, dout, weight, BT, C, OC);
  backward_dweight(dweight, dout, inp, BT, C, OC);
  if (hasBias) {
    const int OC4 = OC & ~3;
    for (int i = 0; i < BT; i++) {
      const float *g = dout + i * OC;
      int o = 0;
      for (; o < OC4; o += 4) ST(dbias + o, wasm_f32x4_add(LD(dbias + o), LD(g + o)));
      for (; o < OC; o++) dbias[o] += g[o];
    }
  }
}
