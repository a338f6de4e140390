/*
 * GELU (tanh approximation, GPT-2; Hendrycks & Gimpel 2016) and LayerNorm forward/backward, 4 lanes at a time.
 * Spec: ../gelu.ts, ../layernorm.ts. tanh is a rational approximation (vtanh below) that saturates to ±1.
 * Loop tails run the same vector code on one lane, so an element's result does not depend on
 * where it sits in the array (sampling one row equals scoring many), nor on the vector width:
 * GELU runs on the wide vector (simd.h vw: 16 lanes in AVX-512, the same bits as AVX2's 8).
 */
#include "simd.h"

#define GELU_S 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_A 0.044715f

/*
 * tanh(u) as the rational approximation u·P(u²)/Q(u²) on u clamped to ±7.90531110763549805 (where
 * float tanh is ±1), with the coefficients of Eigen's ptanh_float (also in ONNX Runtime's MLAS
 * tanh and XLA): one division and 11 multiply-adds, cheaper in wasm than e^{2u} through vexp.
 */
static inline vw vtanh(vw u) {
  u = VMIN(VMAX(u, SPLATW(-7.90531110763549805f)), SPLATW(7.90531110763549805f));
  const vw u2 = VMUL(u, u);
  vw p = SPLATW(-2.76076847742355e-16f);
  p = VADD(VMUL(p, u2), SPLATW(2.00018790482477e-13f));
  p = VADD(VMUL(p, u2), SPLATW(-8.60467152213735e-11f));
  p = VADD(VMUL(p, u2), SPLATW(5.12229709037114e-08f));
  p = VADD(VMUL(p, u2), SPLATW(1.48572235717979e-05f));
  p = VADD(VMUL(p, u2), SPLATW(6.37261928875436e-04f));
  p = VADD(VMUL(p, u2), SPLATW(4.89352455891786e-03f));
  p = VMUL(p, u);
  vw q = SPLATW(1.19825839466702e-06f);
  q = VADD(VMUL(q, u2), SPLATW(1.18534705686654e-04f));
  q = VADD(VMUL(q, u2), SPLATW(2.26843463243900e-03f));
  q = VADD(VMUL(q, u2), SPLATW(4.89352518554385e-03f));
  return VSAT1(VDIV(p, q), u, 7.90531110763549805f);
}

static inline vw vgelu(vw x) {
  const vw x3 = VMUL(VMUL(x, x), x);
  const vw u = VMUL(SPLATW(GELU_S), VADD(x, VMUL(SPLATW(GELU_A), x3)));
  return VMUL(VMUL(SPLATW(0.5f), x), VADD(SPLATW(1.0f), vtanh(u)));
}

/* gelu'(x) */
static inline vw vdgelu(vw x) {
  const vw xx = VMUL(x, x);
  const vw u = VMUL(SPLATW(GELU_S), VADD(x, VMUL(SPLATW(GELU_A), VMUL(xx, x))));
  const vw th = vtanh(u);
  const vw sech2 = VSUB(SPLATW(1.0f), VMUL(th, th));
  const vw left = VMUL(SPLATW(0.5f), VADD(SPLATW(1.0f), th));
  const vw du = VMUL(SPLATW(GELU_S), VADD(SPLATW(1.0f), VMUL(SPLATW(3.0f * GELU_A), xx)));
  return VADD(left, VMUL(VMUL(VMUL(SPLATW(0.5f), x), sech2), du));
}

/*
 * The AdamW update of n parameters (spec: ../../adamw.ts adamwUpdate): float64 arithmetic in the
 * spec's order, each moment stored rounded to float32 but used unrounded, and no fused multiply-add
 * (the spec's JavaScript has none): the spec's bits in every build. Correctly rounded division and
 * square root, so vectorizing the loop cannot change a bit.
 */
EXPORT(adamw_update)
void adamw_update(float *p, const float *g, float *m, float *v, int n, double lr, double b1, double b2, double eps, double wd, double bc1,
                  double bc2, double gs) {
#pragma clang fp contract(off)
  for (int i = 0; i < n; i++) {
    const double gi = (double)g[i] * gs;
    const double mi = b1 * (double)m[i] + (1 - b1) * gi;
    const double vi = b2 * (double)v[i] + (1 - b2) * gi * gi;
    m[i] = (float)mi;
    v[i] = (float)vi;
    const double pi = (double)p[i];
    p[i] = (float)(pi - lr * (mi / bc1 / (__builtin_sqrt(vi / bc2) + eps) + wd * pi));
  }
}

/* out = a + b (the residual stream; out may be a or b): one rounding per element, as ../residual.ts */
EXPORT(residual_forward)
void residual_forward(float *out, const float *a, const float *b, int N) {
  int i = 0;
  for (; i + WL <= N; i += WL) STW(out + i, VADD(LDW(a + i), LDW(b + i)));
  for (; i < N; i++) out[i] = a[i] + b[i];
}

EXPORT(gelu_forward)
void gelu_forward(float *out, const float *inp, int N) {
  int i = 0;
  for (; i + WL <= N; i += WL) STW(out + i, vgelu(LDW(inp + i)));
  for (; i < N; i++) out[i] = LANE0(vgelu(SPLATW(inp[i])));
}

/*
 * dinp += gelu'(inp) · dout; with fresh, dinp = +0 + gelu'(inp) · dout (the same bits as adding to a
 * zeroed dinp, with no zeroing pass and no read of dinp: the model's backward zeroed it before).
 */
EXPORT(gelu_backward)
void gelu_backward(float *dinp, const float *inp, const float *dout, int N, int fresh) {
  int i = 0;
  if (fresh) {
    for (; i + WL <= N; i += WL) STW(dinp + i, VADD(SPLATW(0.0f), VMUL(vdgelu(LDW(inp + i)), LDW(dout + i))));
    for (; i < N; i++) dinp[i] = 0.0f + LANE0(vdgelu(SPLATW(inp[i]))) * dout[i];
    return;
  }
  for (; i + WL <= N; i += WL) STW(dinp + i, VADD(LDW(dinp + i), VMUL(vdgelu(LDW(inp + i)), LDW(dout + i))));
  for (; i < N; i++) dinp[i] += LANE0(vdgelu(SPLATW(inp[i]))) * dout[i];
}

/*
 * LayerNorm over the last dimension (spec: ../layernorm.ts, eps 1e-5 as GPT-2), f32x4 over C with
 * scalar tails. Row sums run in float32 (the JS reference sums in float64).
 */
#define LN_EPS 1e-5f

static inline float row_sum(const float *x, int C4, int C) {
  vf acc = SPLAT(0.0f);
  for (int i = 0; i < C4; i += VL) acc = VADD(acc, LD(x + i));
  float s = hsum(acc);
  for (int i = C4; i < C; i++) s += x[i];
  return s;
}

/* one row's variance about m, then 1/sqrt(var + eps) */
static inline float ln_rstd(const float *x, float m, int C4, int C) {
  const vf vm = SPLAT(m);
  vf acc = SPLAT(0.0f);
  int i = 0;
  for (; i < C4; i += VL) {
    const vf d = VSUB(LD(x + i), vm);
    MADD(acc, d, d);
  }
  float v = hsum(acc);
  for (; i < C; i++) v += (x[i] - m) * (x[i] - m);
  return 1.0f / __builtin_sqrtf(v / (float)C + LN_EPS);
}

/* y = (x − m)·s·weight + bias */
static inline void ln_norm(float *y, const float *x, float m, float s, const float *weight, const float *bias, int C4, int C) {
  const vf vm = SPLAT(m), vs = SPLAT(s);
  int i = 0;
  for (; i < C4; i += VL) ST(y + i, VADD(VMUL(VMUL(VSUB(LD(x + i), vm), vs), LD(weight + i)), LD(bias + i)));
  for (; i < C; i++) y[i] = (x[i] - m) * s * weight[i] + bias[i];
}

/*
 * Rows four at a time, step by step (means, then rstds, then the outputs): each row's sums are
 * one dependency chain, and four side by side overlap; every row keeps its own arithmetic.
 */
EXPORT(layernorm_forward)
void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *weight, const float *bias, int N, int C) {
  const int C4 = C & ~(VL - 1);
  int n = 0;
  for (; n + 4 <= N; n += 4) {
    const float *x0 = inp + n * C, *x1 = x0 + C, *x2 = x1 + C, *x3 = x2 + C;
    const float m0 = row_sum(x0, C4, C) / (float)C, m1 = row_sum(x1, C4, C) / (float)C;
    const float m2 = row_sum(x2, C4, C) / (float)C, m3 = row_sum(x3, C4, C) / (float)C;
    const float s0 = ln_rstd(x0, m0, C4, C), s1 = ln_rstd(x1, m1, C4, C), s2 = ln_rstd(x2, m2, C4, C), s3 = ln_rstd(x3, m3, C4, C);
    ln_norm(out + n * C, x0, m0, s0, weight, bias, C4, C);
    ln_norm(out + (n + 1) * C, x1, m1, s1, weight, bias, C4, C);
    ln_norm(out + (n + 2) * C, x2, m2, s2, weight, bias, C4, C);
    ln_norm(out + (n + 3) * C, x3, m3, s3, weight, bias, C4, C);
    mean[n] = m0, mean[n + 1] = m1, mean[n + 2] = m2, mean[n + 3] = m3;
    rstd[n] = s0, rstd[n + 1] = s1, rstd[n + 2] = s2, rstd[n + 3] = s3;
  }
  for (; n < N; n++) {
    const float *x = inp + n * C;
    const float m = row_sum(x, C4, C) / (float)C, s = ln_rstd(x, m, C4, C);
    ln_norm(out + n * C, x, m, s, weight, bias, C4, C);
    mean[n] = m;
    rstd[n] = s;
  }
}

/* dinp (N,C) +=, dweight (C) +=, dbias (C) += */
EXPORT(layernorm_backward)
void layernorm_backward(float *dinp, float *dweight, float *dbias, const float *dout, const float *inp, const float *weight, const float *mean, const float *rstd, int N, int C) {
  const int C4 = C & ~(VL - 1);
  for (int n = 0; n < N; n++) {
    const float *x = inp + n * C, *g = dout + n * C;
    float *dx = dinp + n * C;
    const float m = mean[n], s = rstd[n];
    const vf vm = SPLAT(m), vs = SPLAT(s);
    /* the two reductions of the LayerNorm gradient: mean of dnorm and of dnorm * norm */
    vf a1 = SPLAT(0.0f), a2 = SPLAT(0.0f);
    int i = 0;
    for (; i < C4; i += VL) {
      const vf norm = VMUL(VSUB(LD(x + i), vm), vs);
      const vf dn = VMUL(LD(weight + i), LD(g + i));
      a1 = VADD(a1, dn);
      MADD(a2, dn, norm);
    }
    float s1 = hsum(a1), s2 = hsum(a2);
    for (; i < C; i++) {
      const float norm = (x[i] - m) * s, dn = weight[i] * g[i];
      s1 += dn;
      s2 += dn * norm;
    }
    s1 /= (float)C;
    s2 /= (float)C;
    const vf v1 = SPLAT(s1), v2 = SPLAT(s2);
    for (i = 0; i < C4; i += VL) {
      const vf d = LD(g + i);
      const vf norm = VMUL(VSUB(LD(x + i), vm), vs);
      const vf dn = VMUL(LD(weight + i), d);
      ST(dbias + i, VADD(LD(dbias + i), d));
      ST(dweight + i, VADD(LD(dweight + i), VMUL(norm, d)));
      ST(dx + i, VADD(LD(dx + i), VMUL(VSUB(VSUB(dn, v1), VMUL(norm, v2)), vs)));
    }
    for (; i < C; i++) {
      const float d = g[i], norm = (x[i] - m) * s, dn = weight[i] * d;
      dbias[i] += d;
      dweight[i] += norm * d;
      dx[i] += (dn - s1 - norm * s2) * s;
    }
  }
}
