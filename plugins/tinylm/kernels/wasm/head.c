/*
 * Output head (spec: ../head.ts): per row of M logits (stride Vp, V real entries) the softmax, the
 * target's log-prob and the entropy; the backward from d logprob and d entropy. f32x4 over V with
 * scalar tails; the row's log-sum-exp takes one scalar log (in double) per row, and the backward
 * uses log p_i = z_i − lse, so there is no log per entry.
 */
#include "simd.h"

/* ln(x), x > 0 and finite: x = 2^e · m with m in [√½, √2), ln m = 2 atanh(s), s = (m − 1)/(m + 1),
 * |s| ≤ 0.172, odd series to s^13 (error < 1e-12): no libc in this module. */
static double ln(double x) {
  union { double d; unsigned long long u; } v = { x };
  int e = (int)((v.u >> 52) & 0x7ff) - 1023;
  v.u = (v.u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL; /* m in [1, 2) */
  double m = v.d;
  if (m > 1.4142135623730951) { m *= 0.5; e++; }
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  const double p = 1.0 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7 + s2 * (1.0 / 9 + s2 * (1.0 / 11 + s2 * (1.0 / 13))))));
  return 2.0 * s * p + e * 0.6931471805599453;
}

EXPORT(head_forward)
void head_forward(float *probs, float *logprob, float *entropy, const float *logits, const int *targets, int M, int V, int Vp) {
  const int V4 = V & ~(VL - 1);
  for (int m = 0; m < M; m++) {
    const float *z = logits + m * Vp;
    float *p = probs + m * Vp;
    vf vmax = SPLAT(-3.4e38f);
    int i = 0;
#ifdef WIDE_HALVES
    /* AVX-512: the elementwise steps on 16 lanes; the sums still take 8 lanes at a time, in order */
    vw vmaxw = SPLATW(-3.4e38f);
    for (; i + WL <= V4; i += WL) vmaxw = VMAX(vmaxw, LDW(z + i));
    vmax = VMAX(vmax, VMAX(LO(vmaxw), HI(vmaxw)));
#endif
    for (; i < V4; i += VL) vmax = VMAX(vmax, LD(z + i));
    float max = hmax(vmax);
    for (; i < V; i++) if (z[i] > max) max = z[i];
    /* e_i = exp(z_i − max); sum and Σ e_i z_i */
    const vf mx = SPLAT(max);
    vf vs = SPLAT(0.0f), vez = SPLAT(0.0f);
    i = 0;
#ifdef WIDE_HALVES
    for (const vw mxw = SPLATW(max); i + WL <= V4; i += WL) {
      const vw zi = LDW(z + i), e = vexpw(VSUB(zi, mxw));
      STW(p + i, e);
      vs = VADD(vs, LO(e));
      MADD(vez, LO(e), LO(zi));
      vs = VADD(vs, HI(e));
      MADD(vez, HI(e), HI(zi));
    }
#endif
    for (; i < V4; i += VL) {
      const vf zi = LD(z + i), e = vexp(VSUB(zi, mx));
      ST(p + i, e);
      vs = VADD(vs, e);
      MADD(vez, e, zi);
    }
    float sum = hsum(vs), ez = hsum(vez);
    for (; i < V; i++) {
      const float e = sexp(z[i] - max);
      p[i] = e;
      sum += e;
      ez += e * z[i];
    }
    const float inv = 1.0f / sum;
    const vf vinv = SPLAT(inv);
    i = 0;
#ifdef WIDE_HALVES
    for (const vw vinvw = SPLATW(inv); i + WL <= V4; i += WL) STW(p + i, VMUL(LDW(p + i), vinvw));
#endif
    for (; i < V4; i += VL) ST(p + i, VMUL(LD(p + i), vinv));
    for (; i < V; i++) p[i] *= inv;
    for (i = V; i < Vp; i++) p[i] = 0.0f;
    const float lse = (float)((double)max + ln((double)sum));
    logprob[m] = z[targets[m]] - lse;
    const float h = lse - ez * inv;
    entropy[m] = h > 0.0f ? h : 0.0f; /* ≥ 0 despite rounding on peaked rows */
  }
}

/* dlogits (M,Vp) += −dl·p − de·p·(log p + H), + dl at the target */
EXPORT(head_backward)
void head_backward(float *dlogits, const float *probs, const float *logits, const float *logprob, const float *entropy,
                   const int *targets, const float *dlogprob, const float *dentropy, int M, int V, int Vp) {
  const int V4 = V & ~(VL - 1);
  for (int m = 0; m < M; m++) {
    const float dl = dlogprob[m], de = dentropy[m];
    if (dl == 0.0f && de == 0.0f) continue;
    const float *z = logits + m * Vp, *p = probs + m * Vp;
    float *d = dlogits + m * Vp;
    const float lse = z[targets[m]] - logprob[m];
    const float c = entropy[m] - lse; /* log p_i + H = z_i + c */
    const vf vdl = SPLAT(-dl), vde = SPLAT(de), vc = SPLAT(c);
    int i = 0;
    for (; i < V4; i += VL) {
      const vf pi = LD(p + i);
      const vf g = VSUB(VMUL(vdl, pi), VMUL(VMUL(vde, pi), VADD(LD(z + i), vc)));
      ST(d + i, VADD(LD(d + i), g));
    }
    for (; i < V; i++) d[i] += -dl * p[i] - de * p[i] * (z[i] + c);
    d[targets[m]] += dl;
  }
}
