/*
 * GELU (tanh approximation, GPT-2; Hendrycks & Gimpel 2016) and LayerNorm forward/backward, 4 lanes at a time.
 * Spec: ../gelu.ts, ../layernorm.ts. tanh is a rational approximation (vtanh below) that saturates to ±1.
 * Loop tails run the same vector code on one lane, so an element's result does not depend on
 * where it sits in the array (sampling one row equals scoring many).
 */
#include "simd.h"

#define GELU_S 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_A 0.044715f

/*
 * tanh(u) as the rational approximation u·P(u²)/Q(u²) on u clamped to ±7.90531110763549805 (where
 * float tanh is ±1), with the coefficients of Eigen's ptanh_float (also in ONNX Runtime's MLAS
 * tanh and XLA): one division and 11 multiply-adds, cheaper in wasm than e^{2u} through vexp.
 */
static inline v128_t vtanh(v128_t u) {
  u = wasm_f32x4_min(wasm_f32x4_max(u, SPLAT(-7.90531110763549805f)), SPLAT(7.90531110763549805f));
  const v128_t u2 = wasm_f32x4_mul(u, u);
  v128_t p = SPLAT(-2.76076847742355e-16f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, u2), SPLAT(2.00018790482477e-13f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, u2), SPLAT(-8.60467152213735e-11f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, u2), SPLAT(5.12229709037114e-08f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, u2), SPLAT(1.48572235717979e-05f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, u2), SPLAT(6.37261928875436e-04f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, u2), SPLAT(4.89352455891786e-03f));
  p = wasm_f32x4_mul(p, u);
  v128_t q = SPLAT(1.19825839466702e-06f);
  q = wasm_f32x4_add(wasm_f32x4_mul(q, u2), SPLAT(1.18534705686654e-04f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, u2), SPLAT(2.26843463243900e-03f));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, u2), SPLAT(4.89352518554385e-03f));
  return wasm_f32x4_div(p, q);
}

static inline v128_t vgelu(v128_t x) {
  const v128_t x3 = wasm_f32x4_mul(wasm_f32x4_mul(x, x), x);
  const v128_t u = wasm_f32x4_mul(SPLAT(GELU_S), wasm_f32x4_add(x, wasm_f32x4_mul(SPLAT(GELU_A), x3)));
  return wasm_f32x4_mul(wasm_f32x4_mul(SPLAT(0.5f), x), wasm_f32x4_add(SPLAT(1.0f), vtanh(u)));
}

/* gelu'(x) */
static inline v128_t vdgelu(v128_t x) {
  const v128_t xx = wasm_f32x4_mul(x, x);
  const v128_t u = wasm_f32x4_mul(SPLAT(GELU_S), wasm_f32x4_add(x, wasm_f32x4_mul(SPLAT(GELU_A), wasm_f32x4_mul(xx, x))));
  const v128_t th = vtanh(u);
  const v128_t sech2 = wasm_f32x4_sub(SPLAT(1.0f), wasm_f32x4_mul(th, th));
  const v128_t left = wasm_f32x4_mul(SPLAT(0.5f), wasm_f32x4_add(SPLAT(1.0f), th));
  const v128_t du = wasm_f32x4_mul(SPLAT(GELU_S), wasm_f32x4_add(SPLAT(1.0f), wasm_f32x4_mul(SPLAT(3.0f * GELU_A), xx)));
  return wasm_f32x4_add(left, wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_mul(SPLAT(0.5f), x), sech2), du));
}

__attribute__((export_name("gelu_forward")))
void gelu_forward(float *out, const float *inp, int N) {
  int i = 0;
  for (; i + 4 <= N; i += 4) ST(out + i, vgelu(LD(inp + i)));
  for (; i < N; i++) out[i] = wasm_f32x4_extract_lane(vgelu(SPLAT(inp[i])), 0);
}

__attribute__((export_name("gelu_backward")))
void gelu_backward(float *dinp, const float *inp, const float *dout, int N) {
  int i = 0;
  for (; i + 4 <= N; i += 4) ST(dinp + i, wasm_f32x4_add(LD(dinp + i), wasm_f32x4_mul(vdgelu(LD(inp + i)), LD(dout + i))));
  for (; i < N; i++) dinp[i] += wasm_f32x4_extract_lane(vdgelu(SPLAT(inp[i])), 0) * dout[i];
}

/*
 * LayerNorm over the last dimension (spec: ../layernorm.ts, eps 1e-5 as GPT-2), f32x4 over C with
 * scalar tails. Row sums run in float32 (the JS reference sums in float64).
 */
#define LN_EPS 1e-5f

static inline float row_sum(const float *x, int C4, int C) {
  v128_t acc = SPLAT(0.0f);
  for (int i = 0; i < C4; i += 4) acc = wasm_f32x4_add(acc, LD(x + i));
  float s = hsum(acc);
  for (int i = C4; i < C; i++) s += x[i];
  return s;
}

__attribute__((export_name("layernorm_forward")))
void layernorm_forward(float *out, float *mean, float *rstd, const float *inp, const float *weight, const float *bias, int N, int C) {
  const int C4 = C & ~3;
  for (int n = 0; n < N; n++) {
    const float *x = inp + n * C;
    float *y = out + n * C;
    const float m = row_sum(x, C4, C) / (float)C;
    const v128_t vm = SPLAT(m);
    v128_t acc = SPLAT(0.0f);
    int i = 0;
    for (; i < C4; i += 4) {
      const v128_t d = wasm_f32x4_sub(LD(x + i), vm);
      MADD(acc, d, d);
    }
    float v = hsum(acc);
    for (; i < C; i++) v += (x[i] - m) * (x[i] - m);
    const float s = 1.0f / __builtin_sqrtf(v / (float)C + LN_EPS);
    const v128_t vs = SPLAT(s);
    for (i = 0; i < C4; i += 4) ST(y + i, wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_sub(LD(x + i), vm), vs), LD(weight + i)), LD(bias + i)));
    for (; i < C; i++) y[i] = (x[i] - m) * s * weight[i] + bias[i];
    mean[n] = m;
    rstd[n] = s;
  }
}

/* dinp (N,C) +=, dweight (C) +=, dbias (C) += */
__attribute__((export_name("layernorm_backward")))
void layernorm_backward(float *dinp, float *dweight, float *dbias, const float *dout, const float *inp, const float *weight, const float *mean, const float *rstd, int N, int C) {
  const int C4 = C & ~3;
  for (int n = 0; n < N; n++) {
    const float *x = inp + n * C, *g = dout + n * C;
    float *dx = dinp + n * C;
    const float m = mean[n], s = rstd[n];
    const v128_t vm = SPLAT(m), vs = SPLAT(s);
    /* the two reductions of the LayerNorm gradient: mean of dnorm and of dnorm * norm */
    v128_t a1 = SPLAT(0.0f), a2 = SPLAT(0.0f);
    int i = 0;
    for (; i < C4; i += 4) {
      const v128_t norm = wasm_f32x4_mul(wasm_f32x4_sub(LD(x + i), vm), vs);
      const v128_t dn = wasm_f32x4_mul(LD(weight + i), LD(g + i));
      a1 = wasm_f32x4_add(a1, dn);
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
    const v128_t v1 = SPLAT(s1), v2 = SPLAT(s2);
    for (i = 0; i < C4; i += 4) {
      const v128_t d = LD(g + i);
      const v128_t norm = wasm_f32x4_mul(wasm_f32x4_sub(LD(x + i), vm), vs);
      const v128_t dn = wasm_f32x4_mul(LD(weight + i), d);
      ST(dbias + i, wasm_f32x4_add(LD(dbias + i), d));
      ST(dweight + i, wasm_f32x4_add(LD(dweight + i), wasm_f32x4_mul(norm, d)));
      ST(dx + i, wasm_f32x4_add(LD(dx + i), wasm_f32x4_mul(wasm_f32x4_sub(wasm_f32x4_sub(dn, v1), wasm_f32x4_mul(norm, v2)), vs)));
    }
    for (; i < C; i++) {
      const float d = g[i], norm = (x[i] - m) * s, dn = weight[i] * d;
      dbias[i] += d;
      dweight[i] += norm * d;
      dx[i] += (dn - s1 - norm * s2) * s;
    }
  }
}
