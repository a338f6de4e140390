/*
 * Causal multi-head attention forward/backward with per-row lengths, f32x4 over the head size.
 * Spec: ../attention.ts (same layout: qkv (B,T,3C), att (B,NH,T,T), out (B,T,C)).
 * `attend` computes one (query, head) against keys/values at a given stride; the batched forward
 * (stride 3C inside qkv) and the sampler's KV-cache decode (stride C) share it, so a sampled
 * token's log-prob equals the teacher-forced score bit for bit.
 */
#include "simd.h"

static inline float dot(const float *a, const float *b, int n4, int n) {
  vf acc = SPLAT(0.0f);
  for (int i = 0; i < n4; i += VL) MADD(acc, LD(a + i), LD(b + i));
  float s = hsum(acc);
  for (int i = n4; i < n; i++) s += a[i] * b[i];
  return s;
}

/*
 * out[0..hs) = softmax_j(q·k[j]·scale) · v[j] over n1 + t + 1 keys: the first n1 from one place
 * (a shared prefix, rows of stride s1), then t + 1 from another (stride s2); att[0..n1+t] gets the
 * weights. With n1 = 0 it is plain causal attention over one row; either way the arithmetic runs
 * in key order over one contiguous att row, so a row split into prefix + own positions gives the
 * same bits as the concatenated row.
 */
static inline void attend2(float *out, float *att, const float *q, const float *k1, const float *v1, int s1, int n1,
                           const float *k2, const float *v2, int s2, int t, int hs, float scale) {
  const int hs4 = hs & ~(VL - 1), n = n1 + t + 1;
  float max = -3.4e38f;
  for (int j = 0; j < n1; j++) {
    const float s = dot(q, k1 + j * s1, hs4, hs) * scale;
    att[j] = s;
    if (s > max) max = s;
  }
  for (int t2 = 0; t2 <= t; t2++) {
    const float s = dot(q, k2 + t2 * s2, hs4, hs) * scale;
    att[n1 + t2] = s;
    if (s > max) max = s;
  }
  const vf vmax = SPLAT(max);
  vf vsum = SPLAT(0.0f);
  int j = 0;
  for (; j + VL <= n; j += VL) {
    const vf e = vexp(VSUB(LD(att + j), vmax));
    ST(att + j, e);
    vsum = VADD(vsum, e);
  }
  float sum = hsum(vsum);
  for (; j < n; j++) {
    const float e = sexp(att[j] - max);
    att[j] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
  for (j = 0; j < n; j++) att[j] *= inv;
  const float *a2 = att + n1;
  int i = 0;
  for (; i < hs4; i += VL) {
    vf acc = SPLAT(0.0f);
    for (j = 0; j < n1; j++) MADD(acc, SPLAT(att[j]), LD(v1 + j * s1 + i));
    for (int t2 = 0; t2 <= t; t2++) MADD(acc, SPLAT(a2[t2]), LD(v2 + t2 * s2 + i));
    ST(out + i, acc);
  }
  for (; i < hs; i++) {
    float acc = 0.0f;
    for (j = 0; j < n1; j++) acc += att[j] * v1[j * s1 + i];
    for (int t2 = 0; t2 <= t; t2++) acc += a2[t2] * v2[t2 * s2 + i];
    out[i] = acc;
  }
}

static inline void attend(float *out, float *att, const float *q, const float *k, const float *v, int stride, int t, int hs, float scale) {
  attend2(out, att, q, k, v, stride, 0, k, v, stride, t, hs, scale);
}

/*
 * Rows of qkv (B,T,3C), each after its prefix when hasPref (see attention_forward_prefixed): the
 * plain forward is this with no prefix.
 */
static void forward_rows(float *out, float *att, const float *qkv, const int *lens, int B, int T, int C, int NH,
                         const float *pqkv, const int *pref, int hasPref, int Tk) {
  const int C3 = 3 * C, hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int b = 0; b < B; b++) {
    const int len = lens[b] < T ? lens[b] : T, P = hasPref ? pref[2 * b + 1] : 0;
    const float *base = qkv + b * T * C3, *pbase = hasPref ? pqkv + pref[2 * b] * C3 : base;
    for (int t = 0; t < T; t++) {
      float *o = out + (b * T + t) * C;
      if (t >= len) {
        for (int i = 0; i < C; i++) o[i] = 0.0f;
        continue;
      }
      for (int h = 0; h < NH; h++) {
        attend2(o + h * hs, att + ((b * NH + h) * T + t) * Tk, base + t * C3 + h * hs,
                pbase + C + h * hs, pbase + 2 * C + h * hs, C3, P, base + C + h * hs, base + 2 * C + h * hs, C3, t, hs, scale);
      }
    }
  }
}

EXPORT(attention_forward)
void attention_forward(float *out, float *att, const float *qkv, const int *lens, int B, int T, int C, int NH) {
  forward_rows(out, att, qkv, lens, B, T, C, NH, qkv, lens, 0, T);
}

/* one decode query (row of qkv at q) against a cache slot: kc/vc point at position 0 of the slot */
EXPORT(attention_decode)
void attention_decode(float *out, float *att, const float *q, const float *kc, const float *vc, int t, int C, int NH) {
  const int hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int h = 0; h < NH; h++) attend(out + h * hs, att, q + h * hs, kc + h * hs, vc + h * hs, C, t, hs, scale);
}

/*
 * Backward of one (query, head): keys/values in two segments as in attend2 (n1 prefix keys at
 * stride s1 with their gradients dk1/dv1, then t + 1 own keys at stride s2), in key order:
 * dv[j] += att[j]·dout, d(att)[j] = dout·v[j], then the softmax backward into dq and dk[j].
 */
static inline void backward_query(float *dq, const float *q, const float *a, const float *d, float *scratch,
                                  const float *k1, const float *v1, float *dk1, float *dv1, int s1, int n1,
                                  const float *k2, const float *v2, float *dk2, float *dv2, int s2, int t, int hs, float scale) {
  const int hs4 = hs & ~(VL - 1), n = n1 + t + 1;
  float dsum = 0.0f;
  for (int j = 0; j < n; j++) {
    const int own = j >= n1, r = own ? j - n1 : j, st = own ? s2 : s1;
    const float *v = (own ? v2 : v1) + r * st;
    float *dv = (own ? dv2 : dv1) + r * st;
    const float w = a[j];
    const vf vw = SPLAT(w);
    vf acc = SPLAT(0.0f);
    int i = 0;
    for (; i < hs4; i += VL) {
      const vf g = LD(d + i);
      MADD(acc, g, LD(v + i));
      ST(dv + i, VADD(LD(dv + i), VMUL(vw, g)));
    }
    float s = hsum(acc);
    for (; i < hs; i++) {
      s += d[i] * v[i];
      dv[i] += w * d[i];
    }
    scratch[j] = s;
    dsum += s * w;
  }
  for (int j = 0; j < n; j++) {
    const float dpre = a[j] * (scratch[j] - dsum) * scale;
    if (dpre == 0.0f) continue;
    const int own = j >= n1, r = own ? j - n1 : j, st = own ? s2 : s1;
    const float *k = (own ? k2 : k1) + r * st;
    float *dk = (own ? dk2 : dk1) + r * st;
    const vf vd = SPLAT(dpre);
    int i = 0;
    for (; i < hs4; i += VL) {
      ST(dq + i, VADD(LD(dq + i), VMUL(vd, LD(k + i))));
      ST(dk + i, VADD(LD(dk + i), VMUL(vd, LD(q + i))));
    }
    for (; i < hs; i++) {
      dq[i] += dpre * k[i];
      dk[i] += dpre * q[i];
    }
  }
}

/* dqkv (B,T,3C) += for the rows' own positions, dpqkv += their prefixes' k and v (when hasPref) */
static void backward_rows(float *dqkv, float *dpqkv, float *scratch, const float *dout, const float *qkv, const float *att, const int *lens,
                          int B, int T, int C, int NH, const float *pqkv, const int *pref, int hasPref, int Tk) {
  const int C3 = 3 * C, hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int b = 0; b < B; b++) {
    const int len = lens[b] < T ? lens[b] : T, P = hasPref ? pref[2 * b + 1] : 0;
    const float *base = qkv + b * T * C3, *pbase = hasPref ? pqkv + pref[2 * b] * C3 : base;
    float *dbase = dqkv + b * T * C3, *dpbase = hasPref ? dpqkv + pref[2 * b] * C3 : dbase;
    for (int t = 0; t < len; t++) {
      for (int h = 0; h < NH; h++) {
        const int kh = C + h * hs, vh = 2 * C + h * hs;
        backward_query(dbase + t * C3 + h * hs, base + t * C3 + h * hs, att + ((b * NH + h) * T + t) * Tk, dout + (b * T + t) * C + h * hs, scratch,
                       pbase + kh, pbase + vh, dpbase + kh, dpbase + vh, C3, P, base + kh, base + vh, dbase + kh, dbase + vh, C3, t, hs, scale);
      }
    }
  }
}

/* dqkv (B,T,3C) +=; scratch (T) holds one row of d(att) */
EXPORT(attention_backward)
void attention_backward(float *dqkv, float *scratch, const float *dout, const float *qkv, const float *att, const int *lens, int B, int T, int C, int NH) {
  backward_rows(dqkv, dqkv, scratch, dout, qkv, att, lens, B, T, C, NH, qkv, lens, 0, T);
}

/*
 * Rows that continue a shared prefix (spec: ../attention.ts attentionForwardPrefixed). pref holds
 * per row [first prefix position in pqkv, prefix length]; att is (B,NH,T,Tk).
 */
EXPORT(attention_forward_prefixed)
void attention_forward_prefixed(float *out, float *att, const float *qkv, const int *lens, int B, int T, int C, int NH,
                                const float *pqkv, const int *pref, int Tk) {
  forward_rows(out, att, qkv, lens, B, T, C, NH, pqkv, pref, 1, Tk);
}

/* dqkv (B,T,3C) += own positions; dpqkv += the prefix positions' k and v gradients; scratch ≥ Tk */
EXPORT(attention_backward_prefixed)
void attention_backward_prefixed(float *dqkv, float *dpqkv, float *scratch, const float *dout, const float *qkv, const float *att, const int *lens,
                                 int B, int T, int C, int NH, const float *pqkv, const int *pref, int Tk) {
  backward_rows(dqkv, dpqkv, scratch, dout, qkv, att, lens, B, T, C, NH, pqkv, pref, 1, Tk);
}
