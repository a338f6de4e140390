/*
 * Causal multi-head attention forward/backward with per-row lengths, f32x4 over the head size.
 * Spec: ../attention.ts (same layout: qkv (B,T,3C), att (B,NH,T,T), out (B,T,C)).
 * `attend` computes one (query, head) against keys/values at a given stride; the batched forward
 * (stride 3C inside qkv) and the sampler's KV-cache decode (stride C) share it, so a sampled
 * token's log-prob equals the teacher-forced score bit for bit.
 */
#include "simd.h"

static inline float dot(const float *a, const float *b, int n4, int n) {
  v128_t acc = SPLAT(0.0f);
  for (int i = 0; i < n4; i += 4) MADD(acc, LD(a + i), LD(b + i));
  float s = hsum(acc);
  for (int i = n4; i < n; i++) s += a[i] * b[i];
  return s;
}

/* out[0..hs) = softmax_t2(q·k[t2]·scale) · v[t2] over t2 ≤ t; att[0..t] gets the weights */
static inline void attend(float *out, float *att, const float *q, const float *k, const float *v, int stride, int t, int hs, float scale) {
  const int hs4 = hs & ~3;
  float max = -3.4e38f;
  for (int t2 = 0; t2 <= t; t2++) {
    const float s = dot(q, k + t2 * stride, hs4, hs) * scale;
    att[t2] = s;
    if (s > max) max = s;
  }
  const v128_t vmax = SPLAT(max);
  v128_t vsum = SPLAT(0.0f);
  int t2 = 0;
  for (; t2 + 4 <= t + 1; t2 += 4) {
    const v128_t e = vexp(wasm_f32x4_sub(LD(att + t2), vmax));
    ST(att + t2, e);
    vsum = wasm_f32x4_add(vsum, e);
  }
  float sum = hsum(vsum);
  for (; t2 <= t; t2++) {
    const float e = sexp(att[t2] - max);
    att[t2] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
  for (t2 = 0; t2 <= t; t2++) att[t2] *= inv;
  int i = 0;
  for (; i < hs4; i += 4) {
    v128_t acc = SPLAT(0.0f);
    for (t2 = 0; t2 <= t; t2++) MADD(acc, SPLAT(att[t2]), LD(v + t2 * stride + i));
    ST(out + i, acc);
  }
  for (; i < hs; i++) {
    float acc = 0.0f;
    for (t2 = 0; t2 <= t; t2++) acc += att[t2] * v[t2 * stride + i];
    out[i] = acc;
  }
}

__attribute__((export_name("attention_forward")))
void attention_forward(float *out, float *att, const float *qkv, const int *lens, int B, int T, int C, int NH) {
  const int C3 = 3 * C, hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int b = 0; b < B; b++) {
    const int len = lens[b] < T ? lens[b] : T;
    const float *base = qkv + b * T * C3;
    for (int t = 0; t < T; t++) {
      float *o = out + (b * T + t) * C;
      if (t >= len) {
        for (int i = 0; i < C; i++) o[i] = 0.0f;
        continue;
      }
      for (int h = 0; h < NH; h++) {
        attend(o + h * hs, att + ((b * NH + h) * T + t) * T, base + t * C3 + h * hs, base + C + h * hs, base + 2 * C + h * hs, C3, t, hs, scale);
      }
    }
  }
}

/* one decode query (row of qkv at q) against a cache slot: kc/vc point at position 0 of the slot */
__attribute__((export_name("attention_decode")))
void attention_decode(float *out, float *att, const float *q, const float *kc, const float *vc, int t, int C, int NH) {
  const int hs = C / NH;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int h = 0; h < NH; h++) attend(out + h * hs, att, q + h * hs, kc + h * hs, vc + h * hs, C, t, hs, scale);
}

/* dqkv (B,T,3C) +=; scratch (T) holds one row of d(att) */
__attribute__((export_name("attention_backward")))
void attention_backward(float *dqkv, float *scratch, const float *dout, const float *qkv, const float *att, const int *lens, int B, int T, int C, int NH) {
  const int C3 = 3 * C, hs = C / NH, hs4 = hs & ~3;
  const float scale = 1.0f / __builtin_sqrtf((float)hs);
  for (int b = 0; b < B; b++) {
    const int len = lens[b] < T ? lens[b] : T;
    const float *base = qkv + b * T * C3;
    float *dbase = dqkv + b * T * C3;
    for (int t = 0; t < len; t++) {
      for (int h = 0; h < NH; h++) {
        const float *q = base + t * C3 + h * hs;
        float *dq = dbase + t * C3 + h * hs;
        const float *a = att + ((b * NH + h) * T + t) * T;
        const float *d = dout + (b * T + t) * C + h * hs;
        /* d(att)[t2] = dout·v[t2]; dv[t2] += att[t2]·dout */
        float dsum = 0.0f;
        for (int t2 = 0; t2 <= t; t2++) {
          const float *v = base + t2 * C3 + 2 * C + h * hs;
          float *dv = dbase + t2 * C3 + 2 * C + h * hs;
          const float w = a[t2];
          const v128_t vw = SPLAT(w);
          v128_t acc = SPLAT(0.0f);
          int i = 0;
          for (; i < hs4; i += 4) {
            const v128_t g = LD(d + i);
            MADD(acc, g, LD(v + i));
            ST(dv + i, wasm_f32x4_add(LD(dv + i), wasm_f32x4_mul(vw, g)));
          }
          float s = hsum(acc);
          for (; i < hs; i++) {
            s += d[i] * v[i];
            dv[i] += w * d[i];
          }
          scratch[t2] = s;
          dsum += s * w;
        }
        /* softmax backward, then through q·k·scale */
        for (int t2 = 0; t2 <= t; t2++) {
          const float dpre = a[t2] * (scratch[t2] - dsum) * scale;
          if (dpre == 0.0f) continue;
          const float *k = base + t2 * C3 + C + h * hs;
          float *dk = dbase + t2 * C3 + C + h * hs;
          const v128_t vd = SPLAT(dpre);
          int i = 0;
          for (; i < hs4; i += 4) {
            ST(dq + i, wasm_f32x4_add(LD(dq + i), wasm_f32x4_mul(vd, LD(k + i))));
            ST(dk + i, wasm_f32x4_add(LD(dk + i), wasm_f32x4_mul(vd, LD(q + i))));
          }
          for (; i < hs; i++) {
            dq[i] += dpre * k[i];
            dk[i] += dpre * q[i];
          }
        }
      }
    }
  }
}
